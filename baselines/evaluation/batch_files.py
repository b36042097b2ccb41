"""Reading the output files of LLM batch APIs as predictions rows {"id", "raw"}.

Two formats, one JSON object per line:

* openai-batch, the output file of the OpenAI Batch API:
  {"id": "batch_req_...", "custom_id": "...", "response": {"status_code": 200, "request_id": "...",
  "body": {...}}, "error": null}. The text is, by endpoint:
  - /v1/chat/completions: body.choices[0].message.content, a string, or a list of parts whose
    {"type": "text", "text": ...} texts are joined;
  - /v1/completions: body.choices[0].text;
  - /v1/responses: the `output_text` parts of the body.output items of type "message", joined.
  A line with a non-null `error`, a status_code outside 2xx, or a body holding an `error` is errored.
* anthropic-batch, the results file of the Anthropic Message Batches API:
  {"custom_id": "...", "result": {"type": "succeeded", "message": {"content": [...], ...}}}.
  The text is the content's `text` blocks joined by line breaks (thinking, tool_use and other blocks are
  ignored). A result of type errored, expired or canceled is errored.

Truncation. A generation cut off by its token limit (OpenAI: the choice's `finish_reason` is "length", or a
/v1/responses body whose `status` is "incomplete" for `max_output_tokens`; Anthropic: the message's
`stop_reason` is "max_tokens") gives a row with "truncated": true; the extractor then takes only an answer
statement made before the cut, and the report counts such lines ("truncated").

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
 "id_prefix": the prefix stripped, or None}.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from baselines.core.errors import BaselinesError, DataError
from baselines.evaluation.predictions import shown_id

OPENAI = "openai-batch"
ANTHROPIC = "anthropic-batch"
SLASH = "__"  # stands for "/" in a custom_id
SHOWN_ERRORED = 10  # errored ids kept in the report
ANTHROPIC_FAILED = ("errored", "expired", "canceled")

Numbered = list[tuple[int, dict]]


class BatchPredictions(list):
    """Predictions rows {"id", "raw"} of a batch API file, with `report` on the lines read (see the module)."""

    report: dict

    def __init__(self, rows=(), report: dict | None = None):
        super().__init__(rows)
        self.report = dict(report or {})


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
    out, errored, line_of, truncated = [], [], {}, 0
    for line, custom_id, (text, cut_off) in texts:
        key = _mapped_id(custom_id, prefix, path, line)
        if key in line_of:
            raise DataError(f"custom_id {shown_id(custom_id)} gives the id {shown_id(key)} of the custom_id on line "
                            f"{line_of[key]}", path, line)
        line_of[key] = line
        if text is None:
            errored.append(key)
        else:
            out.append({"id": key, "raw": text, **({"truncated": True} if cut_off else {})})
            truncated += cut_off
    report = {"format": fmt, "lines": len(rows), "errored": len(errored),
              "errored_ids": errored[:SHOWN_ERRORED], "id_prefix": prefix, "truncated": truncated}
    return BatchPredictions(out, report)


def _texts(rows: Numbered, path: Path, fmt: str) -> list[tuple[int, str, tuple[str | None, bool]]]:
    """(line, custom_id, (text, cut off)) of every line, text None when the request failed; checks shape and
    duplicates."""
    looks, text_of, expected = _KINDS[fmt]
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


def _openai_text(row: dict, path: Path, line: int) -> tuple[str | None, bool]:
    """(the generated text of an OpenAI Batch output line, whether the token limit cut it off); the text is None
    when the request failed."""
    if row.get("error") is not None:
        return None, False
    response = row.get("response")
    if not isinstance(response, dict):
        raise DataError("the line has neither a response nor an error", path, line)
    status = response.get("status_code", 200)
    if not isinstance(status, int) or isinstance(status, bool):
        raise DataError(f"response.status_code is not a number: {status!r}", path, line)
    if not 200 <= status < 300:
        return None, False
    body = response.get("body")
    if not isinstance(body, dict):
        raise DataError("the response has no body object", path, line)
    if body.get("error") is not None:
        return None, False
    if "choices" in body:
        return _choice_text(body["choices"], path, line), _choice_cut_off(body["choices"])
    if "output" in body:
        details = body.get("incomplete_details")
        cut_off = body.get("status") == "incomplete" and isinstance(details, dict) and \
            details.get("reason") == "max_output_tokens"
        return _responses_text(body["output"], path, line), cut_off
    raise DataError("the response body has neither 'choices' (/v1/chat/completions, /v1/completions) nor "
                    "'output' (/v1/responses)", path, line)


def _choice_text(choices, path: Path, line: int) -> str:
    """The text of the first choice: its message's content (chat completions) or its text (completions)."""
    if not isinstance(choices, list):
        raise DataError("response.body.choices is not a list", path, line)
    if not choices:
        return ""
    choice = choices[0]
    if not isinstance(choice, dict):
        raise DataError("response.body.choices[0] is not an object", path, line)
    if "message" in choice:
        message = choice["message"]
        if not isinstance(message, dict):
            raise DataError("response.body.choices[0].message is not an object", path, line)
        return _joined_parts(message.get("content"), "text", "choices[0].message.content", path, line)
    return _text_value(choice.get("text"), "choices[0].text", path, line)


def _choice_cut_off(choices) -> bool:
    """The first choice stopped at the token limit (finish_reason "length")."""
    return bool(isinstance(choices, list) and choices and isinstance(choices[0], dict)
                and choices[0].get("finish_reason") == "length")


def _responses_text(output, path: Path, line: int) -> str:
    """The `output_text` parts of the message items of a /v1/responses body (reasoning items are skipped)."""
    if not isinstance(output, list):
        raise DataError("response.body.output is not a list", path, line)
    texts = []
    for item in output:
        if not isinstance(item, dict):
            raise DataError("response.body.output holds an item that is not an object", path, line)
        if item.get("type") == "message":
            texts.append(_joined_parts(item.get("content"), "output_text", "output[].content", path, line))
    return "\n".join(text for text in texts if text)


def _anthropic_text(row: dict, path: Path, line: int) -> tuple[str | None, bool]:
    """(the generated text of an Anthropic Message Batches result line, whether max_tokens cut it off); the text
    is None when the request failed."""
    result = row["result"]
    kind = result["type"]
    if kind in ANTHROPIC_FAILED:
        return None, False
    if kind != "succeeded":
        raise DataError(f"unknown result type {kind!r}; valid: succeeded, {', '.join(ANTHROPIC_FAILED)}", path, line)
    message = result.get("message")
    if not isinstance(message, dict):
        raise DataError("a succeeded result has no message object", path, line)
    text = _joined_parts(message.get("content"), "text", "result.message.content", path, line, "\n")
    return text, message.get("stop_reason") == "max_tokens"


def _joined_parts(content, part_type: str, where: str, path: Path, line: int, separator: str = "") -> str:
    """A content given as text, or as a list of parts whose texts of type `part_type` are joined by `separator`;
    None is ""."""
    if content is None or isinstance(content, str):
        return content or ""
    if not isinstance(content, list):
        raise DataError(f"{where} is neither text nor a list of parts", path, line)
    texts = []
    for part in content:
        if not isinstance(part, dict):
            raise DataError(f"{where} holds a part that is not an object", path, line)
        if part.get("type") == part_type:
            texts.append(_text_value(part.get("text"), where, path, line))
    joined = texts[:1]
    for text in texts[1:]:  # a separator only where neither block breaks the line already
        apart = not separator or joined[-1].endswith(("\n", "\r")) or text.startswith(("\n", "\r"))
        joined.append(text if apart else separator + text)
    return "".join(joined)


def _text_value(value, where: str, path: Path, line: int) -> str:
    if value is not None and not isinstance(value, str):
        raise DataError(f"{where} is not text: {value!r}", path, line)
    return value or ""


_KINDS: dict[str, tuple[Callable, Callable, str]] = {
    OPENAI: (looks_like_openai_batch, _openai_text,
             "an OpenAI Batch output line (needs 'custom_id', and 'response' or 'error')"),
    ANTHROPIC: (looks_like_anthropic_batch, _anthropic_text,
                "an Anthropic Message Batches result line (needs 'custom_id' and 'result' with a 'type')"),
}


def check_failed_requests(predictions: list[dict], missing: str) -> None:
    """A batch API file whose requests failed leaves their items without a prediction: missing, not wrong; under
    the default policy that is refused in one line saying so, before any work."""
    report = getattr(predictions, "report", None) or {}
    failed = report.get("errored", 0)
    if failed and missing == "error":
        shown = ", ".join(map(shown_id, report.get("errored_ids", []))) + (", ..." if failed > len(report.get(
            "errored_ids", [])) else "")
        requests = "requests" if failed > 1 else "request"
        raise BaselinesError(f"{failed} {requests} of the batch file failed (errored, expired or canceled: {shown}); "
                             "their items count as missing, not wrong: score the others with --only-present, or "
                             "count them wrong with --missing wrong")
