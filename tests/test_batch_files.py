"""Batch API output files (OpenAI Batch, Anthropic Message Batches) scored as raw generations.

The fixtures under fixtures/batch/ answer a tiny SCALR file of 7 questions (custom_id scalr-<index>):
questions 0, 1 and 2 right (2: "Answer: 2" in LegalBench's numbering), 3 and 4 wrong (4: no text), 5 and 6
errored (missing)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_results
from typer.testing import CliRunner

from baselines.cli import app
from baselines.core.errors import DataError
from baselines.core.paths import results_root
from baselines.evaluation.batch_files import looks_like_anthropic_batch, looks_like_openai_batch
from baselines.evaluation.formats import load_predictions

FIXTURES = Path(__file__).parent / "fixtures" / "batch"
OPENAI = FIXTURES / "openai_batch_output.jsonl"
ANTHROPIC = FIXTURES / "anthropic_batch_results.jsonl"
GOLD = ["2", "1", "2", "4", "3", "0", "1"]  # gold label of question k of the tiny SCALR file
RIGHT, WRONG, ERRORED = ["0", "1", "2"], ["3", "4"], ["5", "6"]
TEXTS = {
    OPENAI: ["Only one holding addresses exhaustion directly.\n\nThe final answer is C", "B", "Answer: 2",
             "The final answer is A", ""],
    ANTHROPIC: ["Only one holding addresses exhaustion directly.\n\nThe final answer is C", "B", "Answer: 2",
                "(D)", ""],
}
FORMAT = {OPENAI: "openai-batch", ANTHROPIC: "anthropic-batch"}
BOTH = pytest.mark.parametrize("fixture", [OPENAI, ANTHROPIC], ids=["openai", "anthropic"])


@pytest.fixture
def scalr_file(tmp_path) -> Path:
    path = tmp_path / "tiny.jsonl"
    path.write_text("".join(json.dumps({"index": str(k), "question": f"Question {k}?", "answer": gold,
                                        **{f"choice_{c}": f"holding {k}-{c}" for c in range(5)}}) + "\n"
                            for k, gold in enumerate(GOLD)))
    return path


def score(path: Path, scalr_file: Path, *options: str, name: str = "batch"):
    return CliRunner().invoke(app, ["score", "scalr", str(path), "--test-file", str(scalr_file), "--name", name,
                                    *options])


def fixture_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_lines(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def chat_line(custom_id: str, content) -> dict:
    body = {"object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                                      "finish_reason": "stop"}]}
    return {"id": "batch_req_1", "custom_id": custom_id, "error": None,
            "response": {"status_code": 200, "request_id": "req_1", "body": body}}


def claude_line(custom_id: str, text: str) -> dict:
    message = {"type": "message", "role": "assistant", "content": [{"type": "text", "text": text}]}
    return {"custom_id": custom_id, "result": {"type": "succeeded", "message": message}}


@BOTH
@pytest.mark.parametrize("explicit", [False, True])
def test_fixture_is_detected_and_read(fixture, explicit):
    rows = load_predictions(fixture, FORMAT[fixture] if explicit else "auto", task_name="scalr")
    cut_off = {"4"} if fixture == ANTHROPIC else set()  # stop_reason max_tokens, with thinking blocks only
    assert [{k: v for k, v in row.items() if k != "usage"} for row in rows] == \
        [{"id": str(k), "raw": text, **({"truncated": True} if str(k) in cut_off else {})}
         for k, text in enumerate(TEXTS[fixture])]
    assert all(row["usage"]["prompt"] > 0 and row["usage"]["completion"] > 0 for row in rows)  # each line's usage
    assert rows.report == {"format": FORMAT[fixture], "lines": 7, "errored": 2, "errored_ids": ERRORED,
                           "id_prefix": "scalr-", "truncated": len(cut_off), "tool_calls": 0, "refusals": 0,
                           "with_usage": len(rows)}
    first = fixture_lines(fixture)[0]
    assert looks_like_openai_batch(first) == (fixture == OPENAI)
    assert looks_like_anthropic_batch(first) == (fixture == ANTHROPIC)


@BOTH
def test_the_other_batch_format_is_refused_naming_the_line(fixture):
    other = "anthropic-batch" if fixture == OPENAI else "openai-batch"
    with pytest.raises(DataError, match=rf"{fixture.name}:1: not an? (OpenAI|Anthropic)"):
        load_predictions(fixture, other, task_name="scalr")
    with pytest.raises(DataError, match=r":1: row (has no 'id'|needs exactly one of)"):
        load_predictions(fixture, "jsonl")


@BOTH
def test_errored_lines_are_missing_under_the_default_policy(fixture, scalr_file):
    result = score(fixture, scalr_file)
    assert result.exit_code == 2
    assert "2 requests of the batch file failed (errored, expired or canceled: '5', '6')" in result.output, result.output
    assert "their items have no answer" in result.output and "--missing failed-wrong" in result.output
    assert result.output.count("\n") == 1
    assert not (results_root() / "scalr" / "batch").exists()


@BOTH
def test_only_present_scores_the_answered_lines(fixture, scalr_file):
    result = score(fixture, scalr_file, "--only-present", "--numbering", "legalbench")
    assert result.exit_code == 0, result.output
    saved = run_results("scalr", "batch")
    assert saved["n"] == 5 and saved["missing"] == 2 and saved["producer"] == "llm"
    samples = outcomes()
    assert [samples[key] for key in RIGHT] == [True] * 3 and [samples[key] for key in WRONG] == [False, False]
    assert sorted(samples) == ["0", "1", "2", "3", "4"]
    assert saved["metrics"]["accuracy"] == pytest.approx(3 / 5) and saved["coverage"] == pytest.approx(4 / 5)
    assert saved["meta"]["batch"]["errored"] == 2 and saved["meta"]["batch"]["id_prefix"] == "scalr-"


@BOTH
def test_missing_wrong_counts_the_errored_lines(fixture, scalr_file):
    result = score(fixture, scalr_file, "--missing", "wrong", "--numbering", "legalbench")
    assert result.exit_code == 0, result.output
    saved = run_results("scalr", "batch")
    assert saved["n"] == 7 and saved["missing"] == 2
    samples = outcomes()
    assert [samples[key] for key in ERRORED] == [False, False]
    assert saved["metrics"]["accuracy"] == pytest.approx(3 / 7)


@BOTH
def test_a_bare_number_waits_for_its_numbering(fixture, scalr_file):
    result = score(fixture, scalr_file, "--only-present")  # "Answer: 2": LegalBench's 2, or the second letter?
    assert result.exit_code == 0 and "bare numbers, numbering" in result.output, result.output
    saved = run_results("scalr", "batch")
    assert saved["numbering_unknown"] == 1 and saved["metrics"]["accuracy"] == pytest.approx(2 / 5)


def outcomes() -> dict[str, bool]:
    """id -> correct, from the samples.jsonl of the only run of system 'batch'."""
    found = list((results_root() / "scalr" / "batch").glob("*/samples.jsonl"))
    assert len(found) == 1, found
    return {row["id"]: row["correct"] for row in map(json.loads, found[0].read_text().splitlines())}


def test_id_prefix_is_stripped_and_required(tmp_path, scalr_file):
    rows = [claude_line(f"run7-scalr-{k}", "The final answer is " + "ABCDE"[int(gold)]) for k, gold in enumerate(GOLD)]
    path = write_lines(tmp_path / "run7.jsonl", rows)
    result = score(path, scalr_file, "--id-prefix", "run7-scalr-")
    assert result.exit_code == 0, result.output
    assert run_results("scalr", "batch")["metrics"]["accuracy"] == 1.0
    path = write_lines(tmp_path / "run8.jsonl", [*rows[:3], claude_line("run8-scalr-3", "A"), *rows[4:]])
    result = score(path, scalr_file, "--id-prefix", "run7-scalr-", name="other")
    assert result.exit_code == 2
    assert "run8.jsonl:4: custom_id 'run8-scalr-3' does not start with the id prefix 'run7-scalr-'" in result.output
    assert not (results_root() / "scalr" / "other").exists()


def test_id_prefix_applies_to_batch_files_only(tmp_path, scalr_file):
    path = write_lines(tmp_path / "plain.jsonl", [{"id": str(k), "raw": "A"} for k in range(len(GOLD))])
    result = score(path, scalr_file, "--id-prefix", "scalr-")
    assert result.exit_code == 2 and "--id-prefix applies to batch API files only" in result.output
    with pytest.raises(DataError, match="--id-prefix applies to batch API files only"):
        load_predictions(path, id_prefix="x")


def test_without_a_common_task_prefix_custom_ids_are_kept():
    rows = [(1, chat_line("scalr-0", "A")), (2, chat_line("other-1", "B"))]
    from baselines.evaluation.batch_files import rows_from_openai_batch

    out = rows_from_openai_batch(rows, Path("x"), task_name="scalr")
    assert [row["id"] for row in out] == ["scalr-0", "other-1"] and out.report["id_prefix"] is None
    out = rows_from_openai_batch(rows[:1], Path("x"), task_name="scalr", id_prefix="")
    assert out[0]["id"] == "scalr-0" and out.report["id_prefix"] is None  # an empty prefix strips nothing
    with pytest.raises(DataError, match=r"x:1: custom_id 'scalr-' is only the prefix"):
        rows_from_openai_batch([(1, chat_line("scalr-", "A"))], Path("x"), task_name="scalr")


def test_double_underscore_stands_for_a_slash(tmp_path):
    path = write_lines(tmp_path / "caselaw.jsonl", [claude_line("caselawqa-sc_issue_1__1986-001", "B"),
                                                    claude_line("caselawqa-sc_direction__2000-040", "A")])
    rows = load_predictions(path, task_name="caselawqa")
    assert [row["id"] for row in rows] == ["sc_issue_1/1986-001", "sc_direction/2000-040"]
    rows = load_predictions(path, id_prefix="caselawqa-sc_")
    assert [row["id"] for row in rows] == ["issue_1/1986-001", "direction/2000-040"]
    rows = load_predictions(path)  # no task name, no prefix: only the slashes are mapped
    assert rows[0]["id"] == "caselawqa-sc_issue_1/1986-001"


def test_double_underscore_ids_score_against_caselawqa_references(tmp_path):
    from caselawqa_fixtures import toy_cases, write_normalized

    data = write_normalized(tmp_path / "data")
    test_ids = [row["id"] for row in toy_cases()[1] if row["split"] == "test" and row["task"] == "sc_direction"]
    path = write_lines(tmp_path / "claude.jsonl", [claude_line("caselawqa-" + key.replace("/", "__"), "A")
                                                   for key in test_ids])
    result = CliRunner().invoke(app, ["score", "caselawqa", str(path), "--data-dir", str(data), "--name", "claude",
                                      "--only-present"])
    assert result.exit_code == 0, result.output
    assert run_results("caselawqa", "claude")["n"] == len(test_ids)


@pytest.mark.parametrize("errored_first", [False, True])
def test_a_duplicate_custom_id_is_refused_naming_the_line(tmp_path, scalr_file, errored_first):
    lines = fixture_lines(OPENAI)
    twice = {**lines[5], "custom_id": "scalr-1"}  # an errored line repeating a succeeded one's custom_id
    rows = [twice, *lines] if errored_first else [*lines, twice]
    path = write_lines(tmp_path / "dup.jsonl", rows)
    result = score(path, scalr_file, "--only-present")
    where = 3 if errored_first else 8
    first = 1 if errored_first else 2
    assert result.exit_code == 2
    assert f"dup.jsonl:{where}: duplicate custom_id 'scalr-1' (first on line {first})" in result.output
    assert not (results_root() / "scalr" / "batch").exists()


@pytest.mark.parametrize("intruder", ["anthropic", "plain"])
def test_a_mixed_file_is_refused_naming_the_line(tmp_path, scalr_file, intruder):
    lines = fixture_lines(OPENAI)
    other = claude_line("scalr-9", "A") if intruder == "anthropic" else {"id": "9", "raw": "A"}
    path = write_lines(tmp_path / "mixed.jsonl", [*lines[:3], other, *lines[3:]])
    result = score(path, scalr_file, "--only-present")
    assert result.exit_code == 2 and "mixed.jsonl:4: mixed formats: not an OpenAI Batch output line" in result.output
    path = write_lines(tmp_path / "mixed2.jsonl", [*fixture_lines(ANTHROPIC)[:2], chat_line("scalr-9", "A")])
    with pytest.raises(DataError, match=r"mixed2.jsonl:3: mixed formats: not an Anthropic"):
        load_predictions(path, task_name="scalr")


def test_a_batch_input_file_is_refused_with_a_hint(tmp_path):
    request = {"custom_id": "scalr-0", "method": "POST", "url": "/v1/chat/completions",
               "body": {"model": "gpt-4o", "messages": [{"role": "user", "content": "Question 0?"}]}}
    with pytest.raises(DataError, match=r"input.jsonl:1: .*custom_id.*input file holds the requests"):
        load_predictions(write_lines(tmp_path / "input.jsonl", [request]))


@pytest.mark.parametrize("body, text", [
    ({"object": "chat.completion", "choices": [{"message": {"role": "assistant", "content": [
        {"type": "text", "text": "The final "}, {"type": "image_url", "image_url": {}},
        {"type": "text", "text": "answer is B"}]}}]}, "The final answer is B"),
    ({"object": "chat.completion", "choices": [{"message": {"role": "assistant", "content": None,
                                                            "refusal": "I cannot help with that."}}]}, ""),
    ({"object": "text_completion", "choices": [{"text": " B", "index": 0, "finish_reason": "stop"}]}, " B"),
    ({"object": "text_completion", "choices": [{"text": None}]}, ""),
    ({"object": "response", "status": "completed", "error": None, "output": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "Answer: ", "annotations": []},
            {"type": "output_text", "text": "(B)", "annotations": []}]}]}, "Answer: (B)"),
    ({"object": "response", "status": "incomplete", "error": None, "output": []}, ""),
])
def test_openai_endpoints_give_their_text(body, text):
    from baselines.evaluation.batch_files import rows_from_openai_batch

    line = {"id": "batch_req_1", "custom_id": "scalr-0", "error": None,
            "response": {"status_code": 200, "request_id": "req_1", "body": body}}
    out = rows_from_openai_batch([(1, line)], Path("x"), task_name="scalr")
    refused = {"refused": True} if "refusal" in json.dumps(body) else {}
    assert out == [{"id": "0", "raw": text, **refused}] and out.report["errored"] == 0


@pytest.mark.parametrize("response", [
    {"status_code": 500, "request_id": "req_1", "body": {"error": {"message": "server error"}}},
    {"status_code": 200, "request_id": "req_1", "body": {"object": "response", "status": "failed", "output": [],
                                                         "error": {"code": "server_error", "message": "failed"}}},
])
def test_openai_failures_are_errored(response):
    from baselines.evaluation.batch_files import rows_from_openai_batch

    line = {"id": "batch_req_1", "custom_id": "scalr-0", "response": response, "error": None}
    out = rows_from_openai_batch([(1, line), (2, chat_line("scalr-1", "B"))], Path("x"), task_name="scalr")
    assert out == [{"id": "1", "raw": "B"}] and out.report["errored_ids"] == ["0"]


@pytest.mark.parametrize("line, message", [
    ({"custom_id": "scalr-0", "response": None, "error": None}, "neither a response nor an error"),
    ({"custom_id": "scalr-0", "response": {"status_code": 200, "body": {"id": "x"}}, "error": None},
     "neither 'choices'"),
    ({"custom_id": 7, "response": None, "error": {"code": "batch_expired"}}, "custom_id is not a non-empty string"),
    ({"custom_id": "scalr-0", "result": {"type": "unknown"}}, "unknown result type 'unknown'"),
    ({"custom_id": "scalr-0", "result": {"type": "succeeded", "message": {"content": [{"type": "text", "text": 3}]}}},
     "result.message.content is not text"),
])
def test_malformed_lines_are_refused_naming_the_line(tmp_path, line, message):
    path = write_lines(tmp_path / "bad.jsonl", [line])
    with pytest.raises(DataError, match=rf"bad.jsonl:1: .*{message}"):
        load_predictions(path, task_name="scalr")


def test_round_five_tool_calls_choice_order_and_refusals(tmp_path):
    """Round five: an answer given to a tool (OpenAI tool_calls and function_call, Responses function_call,
    Anthropic tool_use) is read and counted; choices are read by their index; a refusal stop reason is no answer,
    and counted."""
    from baselines.evaluation.batch_files import rows_from_anthropic_batch, rows_from_openai_batch

    def chat(message, **choice):
        return {"custom_id": "scalr-0", "error": None, "response": {"status_code": 200, "body": {
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls", **choice}]}}}

    call = {"id": "c1", "type": "function", "function": {"name": "answer", "arguments": '{"answer": "D"}'}}
    for line in (chat({"role": "assistant", "content": None, "tool_calls": [call]}),
                 chat({"role": "assistant", "content": None, "function_call": call["function"]}),
                 {"custom_id": "scalr-0", "error": None, "response": {"status_code": 200, "body": {"output": [
                     {"type": "function_call", "name": "answer", "arguments": '{"answer": "D"}'}]}}}):
        rows = rows_from_openai_batch([(1, line)], Path("x"), task_name="scalr")
        assert rows[0]["raw"] == '{"answer": "D"}' and rows[0]["tool_call"] and rows.report["tool_calls"] == 1
    tool_use = {"custom_id": "scalr-0", "result": {"type": "succeeded", "message": {"content": [
        {"type": "tool_use", "id": "t", "name": "answer", "input": {"answer": "D"}}], "stop_reason": "tool_use"}}}
    rows = rows_from_anthropic_batch([(1, tool_use)], Path("x"), task_name="scalr")
    assert rows[0]["raw"] == '{"answer": "D"}' and rows.report["tool_calls"] == 1
    shuffled = {"custom_id": "scalr-0", "error": None, "response": {"status_code": 200, "body": {"choices": [
        {"index": 1, "message": {"role": "assistant", "content": "B"}, "finish_reason": "length"},
        {"index": 0, "message": {"role": "assistant", "content": "The final answer is D"}, "finish_reason": "stop"}]}}}
    rows = rows_from_openai_batch([(1, shuffled)], Path("x"), task_name="scalr")
    assert rows == [{"id": "0", "raw": "The final answer is D"}]
    refusal = {"custom_id": "scalr-0", "result": {"type": "succeeded", "message": {"content": [
        {"type": "text", "text": "The answer is D. I can't continue with this."}], "stop_reason": "refusal"}}}
    rows = rows_from_anthropic_batch([(1, refusal)], Path("x"), task_name="scalr")
    assert rows == [{"id": "0", "raw": "", "refused": True}] and rows.report["refusals"] == 1
    repeated = {"custom_id": "scalr-0", "error": None, "response": {"status_code": 200, "body": {"choices": [
        {"index": 0, "message": {"content": "A"}}, {"index": 0, "message": {"content": "B"}}]}}}
    with pytest.raises(DataError, match="x:1: .*indexes \\[0, 0\\]"):
        rows_from_openai_batch([(1, repeated)], Path("x"), task_name="scalr")
