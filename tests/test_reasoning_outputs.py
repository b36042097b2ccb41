"""What reasoning models write, scored end to end: truncated batch generations, text blocks, rows with extra keys,
special tokens and very long generations, and the strict reading beside the score."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_results
from typer.testing import CliRunner

from baselines.cli import app
from baselines.comparison.headline import headline_section
from baselines.comparison.leaderboard import compare
from baselines.comparison.render import details_display, footer, leaderboard_records
from baselines.core.paths import results_root
from baselines.core.records import Reference
from baselines.evaluation.formats import load_predictions
from baselines.evaluation.scoring import score_predictions
from baselines.registry import get_task
from baselines.runs import llm_cost
from baselines.runs.results_store import Variant, references_digest, write_run

GOLD = ["2", "1", "3", "0", "4"]  # question k of the tiny SCALR file; letters C, B, D, A, E



def score(path: Path, scalr_file: Path, name: str, *options: str):
    return CliRunner().invoke(app, ["score", "scalr", str(path), "--test-file", str(scalr_file), "--name", name,
                                    *options])


def write_lines(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def openai_line(k: int, text: str, finish: str = "stop") -> dict:
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}]}
    return {"id": f"batch_req_{k}", "custom_id": f"scalr-{k}", "error": None,
            "response": {"status_code": 200, "request_id": f"req_{k}", "body": body}}


def anthropic_line(k: int, blocks: list[str], stop: str = "end_turn") -> dict:
    message = {"type": "message", "role": "assistant", "content": [{"type": "text", "text": b} for b in blocks],
               "stop_reason": stop}
    return {"custom_id": f"scalr-{k}", "result": {"type": "succeeded", "message": message}}


CUT_TEXTS = [  # (text, cut off by the token limit, read as)
    ("The final answer is C. Let me explain why: the court", True, "2"),  # a final answer before the cut counts
    ("Let's analyze each option.\n\n**Option A**: not this one.\n\n**Option B**", True, None),
    ("Going through them: A is wrong, C is wrong, so it must be", True, None),
    ("B", True, "1"),  # max_tokens=1: a bare label is an answer statement
    ("Reasoning about D: the statute reaches it. So D", True, None),  # no answer statement before the cut
]


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_truncated_batch_generations_count_only_an_answer_statement_made_before_the_cut(tmp_path, scalr_file, kind):
    lines = [openai_line(k, text, "length" if cut else "stop") if kind == "openai"
             else anthropic_line(k, [text], "max_tokens" if cut else "end_turn")
             for k, (text, cut, _) in enumerate(CUT_TEXTS)]
    path = write_lines(tmp_path / f"{kind}.jsonl", lines)
    rows = load_predictions(path, task_name="scalr")
    assert rows.report["truncated"] == 5 and [row.get("truncated", False) for row in rows] == [c for _, c, _ in CUT_TEXTS]
    outcome = score(path, scalr_file, kind)
    assert outcome.exit_code == 0, outcome.output
    assert "truncated generations" in outcome.output
    saved = run_results("scalr", kind)
    assert saved["truncated"] == 5 and saved["meta"]["batch"]["truncated"] == 5
    samples = [json.loads(line) for line in (results_root() / "scalr" / kind).glob("*/samples.jsonl").__next__()
               .read_text().splitlines()]
    assert [s["answer"] for s in samples] == [answer for *_, answer in CUT_TEXTS]
    assert samples[4]["rule"] == "truncated" and samples[4]["truncated"] is True
    uncut = write_lines(tmp_path / f"{kind}-uncut.jsonl", [openai_line(4, CUT_TEXTS[4][0]) if kind == "openai"
                                                           else anthropic_line(4, [CUT_TEXTS[4][0]])])
    assert load_predictions(uncut, task_name="scalr")[0] == {"id": "4", "raw": CUT_TEXTS[4][0]}


def test_anthropic_text_blocks_are_joined_by_a_line_break(tmp_path, scalr_file):
    path = write_lines(tmp_path / "blocks.jsonl", [anthropic_line(0, ["The final answer is C", "Explanation: B is wrong."]),
                                                   anthropic_line(1, ["Thinking aloud.\n", "The final answer is B"])])
    rows = load_predictions(path, task_name="scalr")
    assert [row["raw"] for row in rows] == ["The final answer is C\nExplanation: B is wrong.",
                                            "Thinking aloud.\nThe final answer is B"]
    assert score(path, scalr_file, "blocks", "--only-present").exit_code == 0
    assert run_results("scalr", "blocks")["metrics"]["accuracy"] == 1.0


def test_extra_keys_of_a_plain_row_do_not_make_it_a_harness_sample(tmp_path, scalr_file):
    rows = [{"id": str(k), "raw": f"The final answer is {'ABCDE'[int(gold)]}", "n_choices": 5, "choice": 0}
            for k, gold in enumerate(GOLD)]
    outcome = score(write_lines(tmp_path / "extra.jsonl", rows), scalr_file, "extra")
    assert outcome.exit_code == 0, outcome.output
    assert run_results("scalr", "extra")["metrics"]["accuracy"] == 1.0  # read as text, not as choice 0


@pytest.mark.parametrize("special", ["<|endoftext|>", "<|endofprompt|>", "<|fim_prefix|>"])
def test_special_tokens_in_a_generation_are_counted_as_text(tmp_path, scalr_file, special):
    rows = [{"id": str(k), "raw": f"The final answer is {'ABCDE'[int(gold)]}{special}"} for k, gold in enumerate(GOLD)]
    outcome = score(write_lines(tmp_path / "special.jsonl", rows), scalr_file, "special", "--params", "8B")
    assert outcome.exit_code == 0, outcome.output
    saved = run_results("scalr", "special")
    assert saved["metrics"]["accuracy"] == 1.0 and saved["meta"]["cost"]["gpu_seconds_per_1000"] > 0


def test_a_generation_of_1_9_mb_is_scored_and_its_tokens_counted(tmp_path, scalr_file):
    long = ("The court weighs the statute, the record and the precedent. " * 31_700)[:1_900_000]
    rows = [{"id": str(k), "raw": (long if k == 0 else "") + f"\nThe final answer is {'ABCDE'[int(gold)]}"}
            for k, gold in enumerate(GOLD)]
    outcome = score(write_lines(tmp_path / "long.jsonl", rows), scalr_file, "long", "--params", "8B")
    assert outcome.exit_code == 0, outcome.output
    cost = run_results("scalr", "long")["meta"]["cost"]
    assert cost["output_tokens_per_item"] > 300_000 / 5 and cost["gpu_seconds_per_1000"] > 0


def test_long_texts_are_counted_in_pieces_cut_at_white_space():
    count, _ = llm_cost.token_counter()
    text = "word " * 250_000
    pieces = list(llm_cost.text_pieces(text))
    assert "".join(pieces) == text and max(map(len, pieces)) <= llm_cost.PIECE_CHARS and len(pieces) > 10
    assert abs(count(text) - 250_000) <= len(pieces)  # one token per word, give or take a piece's edge


def test_an_estimate_that_cannot_be_made_is_a_dash_with_its_reason_and_the_run_is_scored(tmp_path, scalr_file,
                                                                                          monkeypatch):
    def refusing():
        def count(text):
            raise ValueError("Input too long to encode safely")
        return count, "cl100k_base BPE (bpe-openai)"
    monkeypatch.setattr(llm_cost, "token_counter", refusing)
    rows = [{"id": str(k), "raw": f"The final answer is {'ABCDE'[int(gold)]}"} for k, gold in enumerate(GOLD)]
    outcome = score(write_lines(tmp_path / "dash.jsonl", rows), scalr_file, "dash", "--params", "8B")
    assert outcome.exit_code == 0, outcome.output
    assert "cost (estimate): – (the tokens could not be counted: Input too long" in outcome.output
    cost = run_results("scalr", "dash")["meta"]["cost"]
    assert "gpu_seconds_per_1000" not in cost and cost["unavailable"].startswith("the tokens could not be counted")


LENIENT = ["C", "The answer is B.", "I'd pick D", "A.\n\nWait, no. E.", "Everything considered, C."]  # of 5 right


def write_raw_run(name: str, texts: list[str], refs: list[Reference], producer: str = "llm") -> None:
    task = get_task("scalr")
    rows = [{"id": ref.id, "raw": text} for ref, text in zip(refs, texts)]
    result, samples = score_predictions(task, rows, refs, system=name, split=task.eval_split)
    result.producer, result.meta = producer, {"method": "external", "command": f"baselines score scalr {name}.jsonl"}
    variant = Variant(split=task.eval_split, references=references_digest(refs))
    result.variant = variant.to_dict()
    write_run(results_root() / "scalr" / name / variant.slug(), result.to_dict(), samples, None)


def test_strict_reading_is_recorded_compared_and_headlined_where_it_differs():
    refs = [Reference(id=f"q{k}", gold=(gold,), labels=("0", "1", "2", "3", "4")) for k, gold in
            enumerate(["2", "1", "3", "4", "0"])]
    task = get_task("scalr")
    result, _ = score_predictions(task, [{"id": r.id, "raw": t} for r, t in zip(refs, LENIENT)], refs, replicates=200)
    assert result.metrics["accuracy"] == 0.8  # "Everything considered, C." is wrong (gold A)
    assert result.strict == {"accuracy": 0.4, "balanced_accuracy": result.strict["balanced_accuracy"]}  # whole, answer_is
    labels, _ = score_predictions(task, [{"id": r.id, "prediction": r.gold[0]} for r in refs], refs, replicates=200)
    assert labels.strict is None  # labels are read the same way in both
    write_raw_run("lenient-llm", LENIENT, refs)
    write_raw_run("strict-llm", [f"The final answer is {'ABCDE'[int(r.gold[0])]}" for r in refs], refs)
    write_raw_run("ours-raw", ["B"] * 5, refs, producer="ours")
    comparison = compare("scalr", against="ours-raw", replicates=200)
    columns, rows = details_display(comparison)
    assert "strict accuracy %" in columns
    strict_cells = {row[0]: row[columns.index("strict accuracy %")] for row in rows}
    assert strict_cells["lenient-llm (LLM)"] == "40.0" and strict_cells["strict-llm (LLM)"] == "100.0"
    assert any(line.startswith("strict accuracy:") for line in footer(comparison))
    records = {record["system"]: record for record in leaderboard_records(comparison)}
    assert records["lenient-llm"]["strict"] == 0.4 and records["strict-llm"]["strict"] == 1.0
    headline = "\n".join(headline_section(task, comparison, None, lambda system: ""))
    assert "| lenient-llm (LLM) | 5 of 5 | 80.0 (strict 40.0) |" in headline
    assert "| strict-llm (LLM) | 5 of 5 | 100.0 |" in headline and "(strict N)" in headline


HOLDINGS = [f"holding that statute {k} reaches the conduct of party {k}" for k in range(5)]


@pytest.mark.parametrize("dash", ["—", "–", ":"])
def test_a_dash_after_a_label_reads_as_a_colon(dash):
    from baselines.evaluation.reading import extract_with_rule

    aliases = get_task("scalr").aliases
    labels = [str(k) for k in range(5)]
    assert extract_with_rule(f"3 {dash} {HOLDINGS[2]}", labels, aliases, HOLDINGS, numbering="legalbench") == \
        (None, "leading:several")
    assert extract_with_rule(f"D {dash} {HOLDINGS[3]}", labels, aliases, HOLDINGS) == ("3", "leading")
    assert extract_with_rule(f"Option B {dash} wrong. Option D {dash} also wrong.", labels, aliases)[0] is None
