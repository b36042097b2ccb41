"""lm-evaluation-harness per-sample logs scored through `baselines score --format lm-eval`."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from baselines.cli import app
from baselines.core.errors import BaselinesError, DataError
from baselines.evaluation.scoring import score_predictions
from baselines.evaluation.harness_logs import rows_from_lm_eval
from baselines.evaluation.formats import load_predictions
from baselines.core.records import Reference
from baselines.core.paths import results_root
from conftest import run_results
from baselines.registry import get_task

QUESTIONS = [  # LegalBench SCALR rows as the harness's `doc`: index, question, choice_0..4, answer
    {"index": str(k), "question": f"Question {k}?", **{f"choice_{c}": f"holding {k}.{c}" for c in range(5)},
     "answer": str(k % 5)} for k in range(4)
]


def generation_sample(doc_id: int, doc: dict, text: str, filter_name: str = "get-answer") -> dict:
    """One generate_until sample as the harness (v0.4.3+) writes it: responses sanitised to strings."""
    return {
        "doc_id": doc_id, "doc": doc, "target": doc["answer"],
        "arguments": {"gen_args_0": {"arg_0": f"{doc.get('question', '')}\nAnswer:",
                                     "arg_1": {"until": ["\n"], "do_sample": False, "max_gen_toks": 15}}},
        "resps": [[text]], "filtered_resps": [text.strip()], "filter": filter_name,
        "metrics": ["exact_match"], "doc_hash": "d", "prompt_hash": "p", "target_hash": "t",
        "exact_match": float(text.strip() == doc["answer"]),
    }


def choice_sample(doc_id: int, doc: dict, logprobs: list[float], strings: bool = True) -> dict:
    """One multiple-choice (loglikelihood) sample: a [logprob, is_greedy] pair per choice."""
    best = logprobs.index(max(logprobs))
    pairs = [[str(v), str(k == best)] if strings else [v, k == best] for k, v in enumerate(logprobs)]
    return {
        "doc_id": doc_id, "doc": doc, "target": doc["answer"],
        "arguments": {f"gen_args_{k}": {"arg_0": "Q\nAnswer:", "arg_1": f" {doc[f'choice_{k}']}"}
                      for k in range(len(logprobs))},
        "resps": [[pair] for pair in pairs], "filtered_resps": pairs, "filter": "none",
        "metrics": ["acc"], "acc": float(best == int(doc["answer"])),
    }


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


@pytest.fixture
def scalr_file(tmp_path) -> Path:
    return write_jsonl(tmp_path / "scalr_test.jsonl", QUESTIONS)


def numbered(rows: list[dict]) -> list[tuple[int, dict]]:
    return list(enumerate(rows, start=1))


def test_generation_samples_take_id_from_doc_and_text_from_filtered_resps():
    rows = [generation_sample(k, doc, f" The final answer is {'ABCDE'[k]}") for k, doc in enumerate(QUESTIONS)]
    rows[1]["filtered_resps"] = ["C"]  # the filter's output wins over the raw response
    out = rows_from_lm_eval(numbered(rows), Path("x"))
    assert out[0] == {"id": "0", "raw": "The final answer is A"}
    assert out[1] == {"id": "1", "raw": "C"}
    del rows[2]["filtered_resps"]
    assert rows_from_lm_eval(numbered(rows), Path("x"))[2] == {"id": "2", "raw": " The final answer is C"}


def test_id_field_and_doc_id():
    rows = [generation_sample(7 + k, {**doc, "id": f"case-{k}"}, "A") for k, doc in enumerate(QUESTIONS)]
    assert rows_from_lm_eval(numbered(rows), Path("x"))[0]["id"] == "case-0"  # "id" before "index"
    assert rows_from_lm_eval(numbered(rows), Path("x"), id_field="index")[0]["id"] == "0"
    assert rows_from_lm_eval(numbered(rows), Path("x"), id_field="doc_id")[0]["id"] == "7"
    with pytest.raises(DataError, match="no field 'nope'"):
        rows_from_lm_eval(numbered(rows), Path("x"), id_field="nope")
    bare = [generation_sample(0, {"text": "t", "answer": "0"}, "A")]
    with pytest.raises(DataError, match="--id-field"):
        rows_from_lm_eval(numbered(bare), Path("x"))


def test_several_filters_need_a_choice():
    rows = [generation_sample(k, doc, "A", name) for k, doc in enumerate(QUESTIONS)
            for name in ("strict-match", "flexible-extract")]
    with pytest.raises(DataError, match="several filters"):
        rows_from_lm_eval(numbered(rows), Path("x"))
    out = rows_from_lm_eval(numbered(rows), Path("x"), filter_name="flexible-extract")
    assert [row["id"] for row in out] == ["0", "1", "2", "3"]


@pytest.mark.parametrize("strings", [True, False])  # v0.4.3+ logs hold strings; older ones numbers
def test_loglikelihood_samples_map_the_best_choice_to_the_label_at_its_position(strings):
    rows = [choice_sample(0, QUESTIONS[0], [-1.0, -3.0, -0.5, -2.0, -4.0], strings)]
    assert rows_from_lm_eval(numbered(rows), Path("x")) == [
        {"id": "0", "choice": 2, "n_choices": 5, "continuation": "holding 0.2"}]
    refs = [Reference(id="0", gold=("2",), labels=("0", "1", "2", "3", "4"))]
    result, samples = score_predictions(get_task("scalr"), [{"id": "0", "choice": 2, "n_choices": 5}], refs)
    assert samples[0]["answer"] == "2" and result.metrics["accuracy"] == 1.0
    with pytest.raises(BaselinesError, match="4 choices but the item has 5"):
        score_predictions(get_task("scalr"), [{"id": "0", "choice": 2, "n_choices": 4}], refs)


@pytest.mark.parametrize("logprobs", [
    [math.nan] * 5, [-math.inf] * 5, [-1.0, -0.5, -0.5, -2.0, -3.0], [-1.0, math.nan, -0.5, -2.0, -3.0]])
@pytest.mark.parametrize("strings", [True, False])
def test_nan_or_tied_loglikelihoods_are_no_answer(logprobs, strings):
    rows = rows_from_lm_eval(numbered([choice_sample(0, QUESTIONS[0], logprobs, strings)]), Path("x"))
    assert rows == [{"id": "0", "choice": None, "n_choices": 5, "continuation": None}]
    refs = [Reference(id="0", gold=("0",), labels=("0", "1", "2", "3", "4"))]
    result, samples = score_predictions(get_task("scalr"), rows, refs, replicates=20)
    assert samples[0]["answer"] is None and result.coverage == 0.0 and result.metrics["accuracy"] == 0.0


def test_mixed_formats_and_duplicates_name_the_line(tmp_path):
    rows = [generation_sample(0, QUESTIONS[0], "A"), {"id": "1", "raw": "B"}]
    with pytest.raises(DataError, match=r":2: mixed formats"):
        load_predictions(write_jsonl(tmp_path / "mixed.jsonl", rows), "lm-eval")
    rows = [generation_sample(0, QUESTIONS[0], "A", "none"),
            choice_sample(1, QUESTIONS[1], [-1.0, -2.0, -3.0, -4.0, -5.0])]
    with pytest.raises(DataError, match=r":2: mixed formats"):
        load_predictions(write_jsonl(tmp_path / "mixed2.jsonl", rows))
    rows = [generation_sample(0, QUESTIONS[0], "A"), generation_sample(1, QUESTIONS[0], "B")]
    with pytest.raises(DataError, match=r":2: duplicate id '0'"):
        load_predictions(write_jsonl(tmp_path / "dup.jsonl", rows))


def test_cli_scores_an_lm_eval_log(tmp_path, scalr_file):
    answers = ["(A)", "The final answer is B", "I am not sure.", "E"]  # right, right, none, wrong (gold D)
    log = write_jsonl(tmp_path / "samples_scalr_2025-01-01T00-00-00.jsonl",
                      [generation_sample(k, doc, text) for k, (doc, text) in enumerate(zip(QUESTIONS, answers))])
    result = CliRunner().invoke(app, ["score", "scalr", str(log), "--format", "lm-eval", "--name", "llm",
                                      "--test-file", str(scalr_file)])
    assert result.exit_code == 0, result.output
    saved = run_results("scalr", "llm")
    assert saved["metrics"]["accuracy"] == 0.5
    assert saved["coverage"] == 0.75
    assert saved["meta"]["method"] == "external"


def test_cli_scores_a_multiple_choice_log(tmp_path, scalr_file):
    rows = [choice_sample(k, doc, [-1.0 if c == int(doc["answer"]) else -2.0 for c in range(5)])
            for k, doc in enumerate(QUESTIONS)]
    log = write_jsonl(tmp_path / "samples_scalr_mc.jsonl", rows)
    result = CliRunner().invoke(app, ["score", "scalr", str(log), "--name", "mc", "--test-file", str(scalr_file)])
    assert result.exit_code == 0, result.output
    saved = run_results("scalr", "mc")
    assert saved["metrics"]["accuracy"] == 1.0


@pytest.mark.parametrize("case", ["empty generations", "wrong task", "id field on jsonl"])
def test_bad_input_exits_2_without_results(tmp_path, scalr_file, case):
    if case == "empty generations":
        rows = [generation_sample(k, doc, "") for k, doc in enumerate(QUESTIONS)]
    elif case == "wrong task":
        rows = [generation_sample(k, {**doc, "index": f"other-{k}"}, "A") for k, doc in enumerate(QUESTIONS)]
    else:
        rows = [{"id": doc["index"], "raw": "A"} for doc in QUESTIONS]
    log = write_jsonl(tmp_path / "log.jsonl", rows)
    extra = ["--id-field", "index"] if case == "id field on jsonl" else []
    result = CliRunner().invoke(app, ["score", "scalr", str(log), "--name", "bad", "--test-file", str(scalr_file),
                                      *extra])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: ")
    assert not (results_root() / "scalr" / "bad").exists()


def test_generations_that_answer_nothing_are_scored_with_the_likely_causes(tmp_path, scalr_file):
    """A model that says something but commits to no choice is a real result (coverage 0), not an error; the
    summary says the likely causes. Every generation empty is an error naming the chat template."""
    rows = [generation_sample(k, doc, "no idea") for k, doc in enumerate(QUESTIONS)]
    log = write_jsonl(tmp_path / "log.jsonl", rows)
    result = CliRunner().invoke(app, ["score", "scalr", str(log), "--name", "silent", "--test-file", str(scalr_file)])
    assert result.exit_code == 0, result.output
    assert "warning: no answer was read from any of the" in result.output and "--apply_chat_template" in result.output
    assert run_results("scalr", "silent")["coverage"] == 0.0
    empty = write_jsonl(tmp_path / "empty.jsonl", [generation_sample(k, doc, " ") for k, doc in enumerate(QUESTIONS)])
    refused = CliRunner().invoke(app, ["score", "scalr", str(empty), "--name", "e", "--test-file", str(scalr_file)])
    assert refused.exit_code == 2 and "chat template" in refused.output


def test_choices_scored_as_label_text_map_by_text():
    doc = {"id": "sc_x/1", "question": "q", "choices": ["no", "yes", "other"]}
    sample = choice_sample(0, {**QUESTIONS[0], **doc}, [-3.0, -1.0, -2.0])
    sample["arguments"] = [["ctx", " C"], ["ctx", " A"], ["ctx", " B"]]  # older layout: [[context, continuation]]
    (row,) = rows_from_lm_eval(numbered([sample]), Path("x"))
    assert row["continuation"] == "A"
    refs = [Reference(id="sc_x/1", gold=("A",), labels=("A", "B", "C", "D"))]  # counts differ: text decides
    result, samples = score_predictions(get_task("caselawqa"), [row], refs)
    assert samples[0]["answer"] == "A" and result.metrics["accuracy"] == 1.0
