"""Reading the output files of LLM batch APIs as predictions rows {"id", "raw"}.

Two formats, one JSON object per line:

* openai-batch, the output file of the OpenAI Batch API (and of `vllm run-batch`):
  {"id": "batch_req_...", "custom_id": "...", "response": {"status_code": 200, "request_id": "...",
  "body": {...}}, "error": null}. A line with a non-null `error`, a status_code outside 2xx, or a body holding
  an `error` is errored.
* anthropic-batch, the results file of the Anthropic Message Batches API:
  {"custom_id": "...", "result": {"type": "succeeded", "message": {"content": [...], ...}}}. A result of type
  errored, expired or canceled is errored.

The text of a line, by endpoint, with tool calls, choice order and refusals: baselines.evaluation.batch_texts.
A generation cut off by its token limit gives a row with "truncated": true (the reader then takes only an answer
statement made before the cut); one read from tool calls "tool_call": true; a refusal "refused": true and the
text "" (no answer). The report counts each ("truncated", "tool_calls", "refusals"). The tokens a line says its
request used (`usage`, baselines.evaluation.batch_usage) go with its row as "usage", the basis of the run's cost
(baselines.runs.llm_cost); the report counts the rows that have them ("with_usage").

An errored line produces no row: its id reaches the evaluator as absent, where the missing-id policy
applies (by default an error naming the ids; --missing wrong counts them wrong; --only-present skips
them). A succeeded response whose text is empty or null is a row with "raw": "" (no answer, wrong).

The id of a row is the line's custom_id, mapped in two steps:
1. with an id prefix (--id-prefix PREFIX), PREFIX is stripped from every custom_id, and a custom_id
   without it is an error (an empty PREFIX keeps the custom_ids as they are); without one, the prefix
   "<task>-" (the benchmark's name: "scalr-12" -> "12") is stripped when every custom_id has it, and
   otherwise the custom_id is the id as it is;
2. "__" (two underscores) then stands for "/": batch APIs allow only a few characters in a custom_id
   (Anthropic: ^[a-zA-Z0-9_-]{1,64}$) while CaselawQA ids hold a slash, so
   "caselawqa-sc_issue_1__1986-001" is the id "sc_issue_1/1986-001". Ids never hold "__" otherwise.

A custom_id found twice (errored or not), or a line of another format, is an error naming the line.
The rows come as a list (BatchPredictions) whose `report` says what was read:
{"format": "openai-batch", "lines": N, "errored": K, "errored_ids": [the first 10 ids],
 "id_prefix": the prefix stripped, or None, "truncated": T, "tool_calls": C, "refusals": R, "with_usage": U}; its
`failed` lists every errored id.

OpenAI writes the requests that failed into a file of their own (the batch's error_file_id), in the output file's
line format, each line with an `error` or a response whose status_code is not 2xx. `with_error_file` adds its
requests to the failed ones (report: "errored", "errored_ids", "error_file": {"name", "lines"}): their items are
failed requests, not items never sent. A succeeded line in it, or a custom_id that the output file answers, is an
error naming the line.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from baselines.core.errors import BaselinesError, DataError
from baselines.evaluation.batch_texts import Generated, anthropic_text, openai_text
from baselines.evaluation.batch_usage import anthropic_usage, openai_usage
from baselines.evaluation.predictions import shown_id

OPENAI = "openai-batch"
ANTHROPIC = "anthropic-batch"
SLASH = "__"  # stands for "/" in a custom_id
SHOWN_ERRORED = 10  # errored ids kept in the report

Numbered = list[tuple[int, dict]]


class BatchPredictions(list):
    """Predictions rows {"id", "raw"} of a batch API file, with `report` on the lines read (see the module)."""

    report: dict
    failed: list[str]  # the id of every failed request (the report keeps the first few)

    def __init__(self, rows=(), report: dict | None = None, failed: list[str] | None = None):
        super().__init__(rows)
        self.report = dict(report or {})
        self.failed = list(failed or [])


def looks_like_openai_batch(row: dict) -> bool:
    """Whether `row` has the shape of an OpenAI Batch output line (custom_id, and response or error)."""
    return "custom_id" in row and "result" not in row and ("response" in row or "error" in row)


def looks_like_anthropic_batch(row: dict) -> bool:
    """Whether `row` has the shape of an Anthropic Message Batches result line (custom_id, result.type)."""
    return "custom_id" in row and isinstance(row.get("result"), dict) and "type" in row["result"]


def batch_format_of(row: dict) -> str | None:
    """The batch format whose shape `row` has, or None."""
    if looks_like_anthropic_batch(row):
        return ANTHROPIC
    if looks_like_openai_batch(row):
        return OPENAI
    return None


def rows_from_openai_batch(rows: Numbered, path: Path, task_name: str | None = None,
                           id_prefix: str | None = None) -> BatchPredictions:
    """Rows {"id", "raw"} of the numbered lines of an OpenAI Batch output file; errored lines are left out."""
    return _read(rows, path, OPENAI, task_name, id_prefix)


def rows_from_anthropic_batch(rows: Numbered, path: Path, task_name: str | None = None,
                              id_prefix: str | None = None) -> BatchPredictions:
    """Rows {"id", "raw"} of the numbered lines of an Anthropic Message Batches results file; errored lines
    are left out."""
    return _read(rows, path, ANTHROPIC, task_name, id_prefix)


def _read(rows: Numbered, path: Path, fmt: str, task_name: str | None, id_prefix: str | None) -> BatchPredictions:
    texts = _texts(rows, path, fmt)
    prefix = _prefix(texts, path, task_name, id_prefix)
    out, errored, line_of = [], [], {}
    counts = {"truncated": 0, "tool_calls": 0, "refusals": 0, "with_usage": 0}
    usage_of = dict(zip((line for line, _ in rows), map(_KINDS[fmt][3], (row for _, row in rows))))
    for line, custom_id, generated in texts:
        key = _mapped_id(custom_id, prefix, path, line)
        if key in line_of:
            raise DataError(f"custom_id {shown_id(custom_id)} gives the id {shown_id(key)} of the custom_id on line "
                            f"{line_of[key]}", path, line)
        line_of[key] = line
        if generated.text is None:
            errored.append(key)
            continue
        flags = {"truncated": generated.truncated, "tool_call": generated.tool_call, "refused": generated.refused}
        usage = {"usage": usage_of[line]} if usage_of[line] is not None else {}
        out.append({"id": key, "raw": generated.text, **{name: True for name, on in flags.items() if on}, **usage})
        counts["with_usage"] += bool(usage)
        counts["truncated"] += generated.truncated
        counts["tool_calls"] += generated.tool_call
        counts["refusals"] += generated.refused
    report = {"format": fmt, "lines": len(rows), "errored": len(errored),
              "errored_ids": errored[:SHOWN_ERRORED], "id_prefix": prefix, **counts}
    return BatchPredictions(out, report, errored)


def failed_ids(predictions: list[dict]) -> list[str]:
    """The ids of the requests that failed, for a batch API file's predictions (none for any other file)."""
    return list(getattr(predictions, "failed", []))


def with_error_file(predictions: list[dict], rows: Numbered, path: Path) -> BatchPredictions:
    """The predictions of an OpenAI Batch output file with the failed requests of its error file (`rows`, the
    numbered lines of `path`) added to those it holds; the custom_ids mapped as the output file's were."""
    report = getattr(predictions, "report", None) or {}
    if report.get("format") != OPENAI:
        raise BaselinesError(f"--errors {path.name}: an error file goes with an OpenAI Batch output file, and the "
                             "predictions are not one")
    texts = _texts(rows, path, OPENAI)
    prefix = _prefix(texts, path, None, report.get("id_prefix") or "")
    answered = {str(row["id"]) for row in predictions}
    failed = list(getattr(predictions, "failed", []))
    for line, custom_id, generated in texts:
        key = _mapped_id(custom_id, prefix, path, line)
        if generated.text is not None:
            raise DataError(f"custom_id {shown_id(custom_id)} succeeded: this is no error file (give the output "
                            "file as the predictions)", path, line)
        if key in answered or key in failed:
            raise DataError(f"custom_id {shown_id(custom_id)} is {'answered' if key in answered else 'failed'} in "
                            "the output file too (files of two batches?)", path, line)
        failed.append(key)
    merged = {**report, "errored": len(failed), "errored_ids": failed[:SHOWN_ERRORED],
              "error_file": {"name": path.name, "lines": len(rows)}}
    return BatchPredictions(predictions, merged, failed)


def _texts(rows: Numbered, path: Path, fmt: str) -> list[tuple[int, str, Generated]]:
    """(line, custom_id, what it generated) of every line (its text None when the request failed); checks shape and
    duplicates."""
    looks, text_of, expected, _ = _KINDS[fmt]
    out, first_line = [], {}
    for position, (line, row) in enumerate(rows):
        if not looks(row):
            raise DataError(f"{'mixed formats: ' if position else ''}not {expected}", path, line)
        custom_id = row.get("custom_id")
        if not isinstance(custom_id, str) or not custom_id:
            raise DataError(f"custom_id is not a non-empty string: {custom_id!r}", path, line)
        if custom_id in first_line:
            raise DataError(f"duplicate custom_id {shown_id(custom_id)} (first on line {first_line[custom_id]})",
                            path, line)
        first_line[custom_id] = line
        out.append((line, custom_id, text_of(row, path, line)))
    return out


def _prefix(texts: list[tuple[int, str, tuple]], path: Path, task_name: str | None,
            id_prefix: str | None) -> str | None:
    """The prefix stripped from every custom_id: the one given (each custom_id must have it), else '<task>-'
    when every custom_id has it, else None."""
    if id_prefix is not None:
        for line, custom_id, _ in texts:
            if not custom_id.startswith(id_prefix):
                raise DataError(f"custom_id {shown_id(custom_id)} does not start with the id prefix {id_prefix!r}",
                                path, line)
        return id_prefix or None
    task_prefix = f"{task_name}-" if task_name else None
    if task_prefix and all(custom_id.startswith(task_prefix) for _, custom_id, _ in texts):
        return task_prefix
    return None


def _mapped_id(custom_id: str, prefix: str | None, path: Path, line: int) -> str:
    key = custom_id[len(prefix):] if prefix else custom_id
    if not key:
        raise DataError(f"custom_id {shown_id(custom_id)} is only the prefix {prefix!r}: no id is left", path, line)
    return key.replace(SLASH, "/")


_KINDS: dict[str, tuple[Callable, Callable, str, Callable]] = {
    OPENAI: (looks_like_openai_batch, openai_text,
             "an OpenAI Batch output line (needs 'custom_id', and 'response' or 'error')", openai_usage),
    ANTHROPIC: (looks_like_anthropic_batch, anthropic_text,
                "an Anthropic Message Batches result line (needs 'custom_id' and 'result' with a 'type')",
                anthropic_usage),
}


def check_failed_requests(predictions: list[dict], missing: str) -> None:
    """A batch API file whose requests failed leaves their items without a prediction: failed, not wrong; under
    the default policy that is refused in one line saying so, before any work."""
    report = getattr(predictions, "report", None) or {}
    failed = report.get("errored", 0)
    if failed and missing == "error":
        shown = ", ".join(map(shown_id, report.get("errored_ids", []))) + (", ..." if failed > len(report.get(
            "errored_ids", [])) else "")
        requests = "requests" if failed > 1 else "request"
        raise BaselinesError(f"{failed} {requests} of the batch file failed (errored, expired or canceled: {shown}); "
                             "their items have no answer: score the others with --only-present, count the failed "
                             "requests wrong with --missing failed-wrong, or every item without a prediction with "
                             "--missing wrong")
