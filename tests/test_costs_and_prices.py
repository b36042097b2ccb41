"""Costs from what the file says (its `usage`, else the prompt the export recorded, else our default prompt), a
reasoning field read as a think block, an answer withheld by the content filter, and prices with their dates."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from caselawqa_fixtures import write_normalized
from conftest import run_results
from typer.testing import CliRunner

from baselines.cli import app
from baselines.evaluation.formats import load_predictions
from baselines.export.batch import export_batch

GOLD = ["2", "1", "3", "0", "4"]  # question k of the tiny SCALR file; letters C, B, D, A, E
LETTERS = "ABCDE"


@pytest.fixture
def scalr_file(tmp_path) -> Path:
    path = tmp_path / "tiny.jsonl"
    path.write_text("".join(json.dumps({"index": str(k), "question": f"Whether rule {k} applies?", "answer": gold,
                                        **{f"choice_{c}": f"holding that rule {k} binds party {c}" for c in range(5)}})
                            + "\n" for k, gold in enumerate(GOLD)))
    return path


def write_lines(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def chat_line(k: int, content, finish: str = "stop", usage: dict | None = None, **message) -> dict:
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": content, **message},
                         "finish_reason": finish}], **({"usage": usage} if usage else {})}
    return {"id": f"batch_req_{k}", "custom_id": f"scalr-{k}", "error": None,
            "response": {"status_code": 200, "request_id": f"req_{k}", "body": body}}


def score(path: Path, scalr_file: Path, name: str, *options: str):
    return CliRunner().invoke(app, ["score", "scalr", str(path), "--test-file", str(scalr_file), "--name", name,
                                    *options])


def samples_of(name: str) -> list[dict]:
    from baselines.core.paths import results_root

    path = next((results_root() / "scalr" / name).glob("*/samples.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines()]


# -- a reasoning field is a think block --------------------------------------------------------------------------

THOUGHTS = "Option A fails on the statute. The answer is {}. Let me check B once more."


@pytest.mark.parametrize("field", ["reasoning", "reasoning_content"])
def test_a_reasoning_field_is_read_exactly_as_an_inline_think_section(tmp_path, scalr_file, field):
    apart = [chat_line(k, f"The answer is {LETTERS[int(g)]}.", **{field: THOUGHTS.format("E")})
             for k, g in enumerate(GOLD[:3])]
    apart += [chat_line(3, None, "length", **{field: THOUGHTS.format("A") + " So the final answer is A"}),
              chat_line(4, None, "length", **{field: "Let me weigh option"})]
    inline = [chat_line(k, f"<think>{THOUGHTS.format('E')}</think>The answer is {LETTERS[int(g)]}.")
              for k, g in enumerate(GOLD[:3])]
    inline += [chat_line(3, f"<think>{THOUGHTS.format('A')} So the final answer is A", "length"),
               chat_line(4, "<think>Let me weigh option", "length")]
    rows = load_predictions(write_lines(tmp_path / "apart.jsonl", apart), task_name="scalr")
    assert [row["raw"] for row in rows] == [line["response"]["body"]["choices"][0]["message"]["content"]
                                            for line in inline]
    for name, lines in (("apart", apart), ("inline", inline)):
        outcome = score(write_lines(tmp_path / f"{name}.jsonl", lines), scalr_file, name)
        assert outcome.exit_code == 0, outcome.output
    assert [s["answer"] for s in samples_of("apart")] == [s["answer"] for s in samples_of("inline")]
    assert [s["answer"] for s in samples_of("apart")][:3] == GOLD[:3]  # the content, not the thoughts' "E"
    assert run_results("scalr", "apart")["metrics"] == run_results("scalr", "inline")["metrics"]


def test_a_file_of_cut_off_reasoning_lines_is_not_sent_to_the_chat_template(tmp_path, scalr_file):
    lines = [chat_line(k, None, "length", reasoning="First, consider what each option would require of") for k in
             range(5)]
    outcome = score(write_lines(tmp_path / "cut.jsonl", lines), scalr_file, "cut")
    assert "chat_template" not in outcome.output and "chat template" not in outcome.output
    assert outcome.exit_code == 0 and "5 of the 5 were cut off by their token limit" in " ".join(outcome.output.split())
    empty = [chat_line(k, None, "length") for k in range(5)]  # the API returned nothing at all
    refused = score(write_lines(tmp_path / "empty.jsonl", empty), scalr_file, "empty")
    assert refused.exit_code == 2 and "chat" not in refused.output and "max_tokens" in refused.output


def test_an_answer_withheld_by_the_content_filter_counts_as_a_refusal(tmp_path):
    lines = [chat_line(0, None, "content_filter"), chat_line(1, "", "content_filter"),
             chat_line(2, "The answer is C.", "content_filter"), chat_line(3, "The answer is A.")]
    rows = load_predictions(write_lines(tmp_path / "filtered.jsonl", lines), task_name="scalr")
    assert [row.get("refused", False) for row in rows] == [True, True, False, False]
    assert rows.report["refusals"] == 2 and rows[0]["raw"] == ""


# -- tokens from the file's usage --------------------------------------------------------------------------------

def test_usage_is_the_basis_with_reasoning_and_cached_tokens_apart(tmp_path, scalr_file):
    usage = {"prompt_tokens": 1400, "completion_tokens": 2110, "total_tokens": 3510,
             "prompt_tokens_details": {"cached_tokens": 1024}, "completion_tokens_details": {"reasoning_tokens": 2100}}
    inline = [chat_line(k, f"<think>{'hmm ' * 50}</think>The answer is {LETTERS[int(g)]}.", usage=usage)
              for k, g in enumerate(GOLD)]
    apart = [chat_line(k, f"The answer is {LETTERS[int(g)]}.", usage=usage, reasoning="hmm " * 50)
             for k, g in enumerate(GOLD)]
    costs = []
    for name, lines in (("inline", inline), ("apart", apart)):
        outcome = score(write_lines(tmp_path / f"{name}.jsonl", lines), scalr_file, name, "--params", "8B")
        assert outcome.exit_code == 0, outcome.output
        costs.append(run_results("scalr", name)["meta"]["cost"])
        assert "from the file's usage" in " ".join(outcome.output.split())
    assert costs[0]["gpu_seconds_per_1000"] == costs[1]["gpu_seconds_per_1000"]  # where the thoughts sit: no matter
    cost = costs[0]
    assert (cost["basis"], cost["prompt_tokens_per_item"], cost["output_tokens_per_item"]) == ("usage", 1400, 2110)
    assert (cost["reasoning_tokens_per_item"], cost["cached_tokens_per_item"]) == (2100, 1024)
    assert cost["gpu_seconds_per_1000"] == pytest.approx(1000 * 2 * 8e9 * 3510 / (312e12 * 0.4), abs=0.01)


@pytest.mark.parametrize("body, expected", [
    ({"output": [{"type": "message", "content": [{"type": "output_text", "text": "C"}]}],
      "usage": {"input_tokens": 900, "output_tokens": 300, "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 250}}},
     {"prompt": 900, "completion": 300, "reasoning": 250, "cached": 0}),
    ({"choices": [{"index": 0, "text": "C", "finish_reason": "stop"}],  # vllm run-batch, /v1/completions
      "usage": {"prompt_tokens": 700, "completion_tokens": 2, "total_tokens": 702}},
     {"prompt": 700, "completion": 2, "reasoning": None, "cached": None}),
])
def test_usage_is_read_from_every_openai_endpoint(tmp_path, body, expected):
    line = {"custom_id": "scalr-0", "error": None, "response": {"status_code": 200, "body": body}}
    rows = load_predictions(write_lines(tmp_path / "out.jsonl", [line]), task_name="scalr")
    assert rows[0]["usage"] == expected and rows.report["with_usage"] == 1


def test_anthropic_usage_counts_cache_reads_and_writes_in_the_prompt(tmp_path):
    message = {"content": [{"type": "text", "text": "The answer is C."}], "stop_reason": "end_turn",
               "usage": {"input_tokens": 100, "output_tokens": 40, "cache_read_input_tokens": 1200,
                         "cache_creation_input_tokens": 50}}
    line = {"custom_id": "scalr-0", "result": {"type": "succeeded", "message": message}}
    rows = load_predictions(write_lines(tmp_path / "out.jsonl", [line]), task_name="scalr")
    assert rows[0]["usage"] == {"prompt": 1350, "completion": 40, "reasoning": None, "cached": 1200}


# -- the prompt actually sent, as the export recorded it ---------------------------------------------------------

def test_the_prompt_sent_as_exported_is_the_basis_when_the_file_has_no_usage(tmp_path):
    data = write_normalized(tmp_path / "data")
    requests = tmp_path / "batch" / "requests.jsonl"
    requests.parent.mkdir()
    done = export_batch("caselawqa", data, requests, api="openai", model="gpt-4o-mini", max_chars=300)
    record = json.loads(done.prompt_record.read_text())
    assert done.prompt_record == tmp_path / "batch" / "requests.prompts.json"
    assert record["settings"]["max_chars"] == 300 and record["task"] == "caselawqa"
    sent = {json.loads(line)["custom_id"]: json.loads(line) for line in requests.read_text().splitlines()}
    output = write_lines(tmp_path / "batch" / "output.jsonl", [
        {"custom_id": custom, "error": None, "response": {"status_code": 200, "body": {"choices": [
            {"index": 0, "message": {"content": "A"}, "finish_reason": "stop"}]}}} for custom in sent])
    scored = CliRunner().invoke(app, ["score", "caselawqa", str(output), "--data-dir", str(data), "--name", "cut",
                                      "--params", "8B"])
    assert scored.exit_code == 0, scored.output
    cost = run_results("caselawqa", "cut")["meta"]["cost"]
    tokens = record["prompt_tokens"]["batch"]
    assert cost["basis"] == "sent" and cost["prompt_tokens_per_item"] == round(sum(tokens.values()) / len(tokens), 1)
    assert cost["prompt_record"]["settings"]["max_chars"] == 300 and "prompt sent as exported" in " ".join(scored.output.split())
    elsewhere = tmp_path / "output.jsonl"  # the output moved away from its record: our default prompt, said so
    elsewhere.write_text(output.read_text())
    default = CliRunner().invoke(app, ["score", "caselawqa", str(elsewhere), "--data-dir", str(data), "--name",
                                       "default", "--params", "8B"])
    assert default.exit_code == 0 and "our default prompt" in " ".join(default.output.split())
    full = run_results("caselawqa", "default")["meta"]["cost"]
    assert full["basis"] == "default" and full["prompt_tokens_per_item"] > cost["prompt_tokens_per_item"]
    given = CliRunner().invoke(app, ["score", "caselawqa", str(elsewhere), "--data-dir", str(data), "--name",
                                     "given", "--prompts", str(done.prompt_record)])
    assert given.exit_code == 0 and run_results("caselawqa", "given")["meta"]["cost"]["basis"] == "sent"


def test_an_lm_eval_export_records_its_prompts_per_harness_task(tmp_path):
    from baselines.export.lm_eval import export_lm_eval
    from baselines.runs.prompt_record import read_prompt_record, sent_prompt_tokens

    export = export_lm_eval("caselawqa", write_normalized(tmp_path / "data"), tmp_path / "export", max_chars=300)
    record = read_prompt_record(export.folder)
    assert record["settings"] == {"max_chars": 300} and record["task"] == "caselawqa"
    direction, state = (record["prompt_tokens"][f"caselawqa_{name}"] for name in ("sc_direction", "sc_state"))
    assert record["prompt_tokens"]["caselawqa_mc_sc_direction"] == direction  # one document file, one prompt
    found = sent_prompt_tokens(record, list(direction), ["samples_caselawqa_sc_direction_2026-12-07T10-00.jsonl"])
    assert found == (sum(direction.values()) / len(direction), "caselawqa_sc_direction")
    group = sent_prompt_tokens(record, [*direction, *state], [])  # a group's logs: each item where it is
    assert group[0] == (sum(direction.values()) + sum(state.values())) / (len(direction) + len(state))
    assert sent_prompt_tokens(record, ["no-such-item"], []) is None
