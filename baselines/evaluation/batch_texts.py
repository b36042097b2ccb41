"""The text a batch API's result line holds (baselines.evaluation.batch_files reads the files): what the model
generated, and what the line says of it.

- OpenAI, /v1/chat/completions: the choice whose `index` is 0 (choices may come in any order; without indexes, the
  first); its message's `content` (a string, or parts whose texts are joined); the `arguments` of its tool calls
  (`tool_calls`, or the older `function_call`), after the content, one per line: an answer given as
  `{"answer": "D"}` to a tool is read like one written out. A reasoning model's thoughts, which vLLM (and the APIs
  that follow it) return apart in `reasoning` or `reasoning_content`, are read exactly as an inline `<think>`
  section is: the text handed to the reader is "<think>" + reasoning + "</think>" + content (the section left open
  when the generation was cut off before any content). A `refusal` with no content is a refusal, and so is an
  answer withheld by the content filter (`finish_reason` "content_filter", no content). Cut off when its
  `finish_reason` is "length". /v1/completions: the choice's `text`.
- OpenAI, /v1/responses: the `output_text` parts of the output's message items, and the `arguments` of its
  `function_call` items; a `refusal` part is a refusal. Cut off when the body is "incomplete" for
  `max_output_tokens`.
- Anthropic Message Batches: the message's `text` blocks joined by line breaks, and the `input` of its `tool_use`
  blocks as JSON; thinking blocks are not read. Cut off when `stop_reason` is "max_tokens"; a `stop_reason` of
  "refusal" is a refusal: no answer, whatever text came before it.

A refusal gives the text "" (no answer) and is counted apart, as generations read from tool calls are.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

from baselines.core.errors import DataError

ANTHROPIC_FAILED = ("errored", "expired", "canceled")
REASONING_FIELDS = ("reasoning", "reasoning_content")  # vLLM's reasoning parsers, DeepSeek and others


class Generated(NamedTuple):
    """A result line's text (None: the request failed), and whether it was cut off, read from tool calls, or a
    refusal."""

    text: str | None
    truncated: bool = False
    tool_call: bool = False
    refused: bool = False


FAILED = Generated(None)


def openai_text(row: dict, path: Path, line: int) -> Generated:
    """The generation of an OpenAI Batch output line (or of `vllm run-batch`)."""
    if row.get("error") is not None:
        return FAILED
    response = row.get("response")
    if not isinstance(response, dict):
        raise DataError("the line has neither a response nor an error", path, line)
    status = response.get("status_code", 200)
    if not isinstance(status, int) or isinstance(status, bool):
        raise DataError(f"response.status_code is not a number: {status!r}", path, line)
    if not 200 <= status < 300:
        return FAILED
    body = response.get("body")
    if not isinstance(body, dict):
        raise DataError("the response has no body object", path, line)
    if body.get("error") is not None:
        return FAILED
    if "choices" in body:
        return _choice(body["choices"], path, line)
    if "output" in body:
        details = body.get("incomplete_details")
        cut_off = body.get("status") == "incomplete" and isinstance(details, dict) and \
            details.get("reason") == "max_output_tokens"
        return _responses(body["output"], path, line)._replace(truncated=cut_off)
    raise DataError("the response body has neither 'choices' (/v1/chat/completions, /v1/completions) nor "
                    "'output' (/v1/responses)", path, line)


def _choice(choices, path: Path, line: int) -> Generated:
    """The choice of index 0: its message's content and tool-call arguments (chat) or its text (completions)."""
    choice = first_choice(choices, path, line)
    if choice is None:
        return Generated("")
    cut_off = choice.get("finish_reason") == "length"
    if "message" not in choice:
        return Generated(text_value(choice.get("text"), "choices[].text", path, line), cut_off)
    message = choice["message"]
    if not isinstance(message, dict):
        raise DataError("response.body.choices[].message is not an object", path, line)
    content = joined_parts(message.get("content"), "text", "choices[].message.content", path, line)
    calls = [call.get("function") for call in message.get("tool_calls") or [] if isinstance(call, dict)]
    calls += [message["function_call"]] if isinstance(message.get("function_call"), dict) else []
    arguments = [text_value(call.get("arguments"), "the arguments of a tool call", path, line)
                 for call in calls if isinstance(call, dict)]
    answer = "\n".join(text for text in [content, *arguments] if text)
    if not answer and (message.get("refusal") or choice.get("finish_reason") == "content_filter"):
        return Generated("", cut_off, refused=True)
    return Generated(with_reasoning(message, answer, cut_off, path, line), cut_off, bool(arguments))


def with_reasoning(message: dict, answer: str, cut_off: bool, path: Path, line: int) -> str:
    """The answer after the message's reasoning field (`reasoning`, `reasoning_content`) written as the inline
    section a reasoning model writes without a reasoning parser: "<think>" + reasoning + "</think>" + answer, left
    open when the generation was cut off before any answer, as an inline one is."""
    field = next((name for name in REASONING_FIELDS if message.get(name) is not None), None)
    reasoning = text_value(message.get(field), f"choices[].message.{field}", path, line) if field else ""
    if not reasoning.strip():
        return answer
    return "<think>" + reasoning + ("" if cut_off and not answer else "</think>" + answer)


def first_choice(choices, path: Path, line: int) -> dict | None:
    """The choice whose `index` is 0 (the first listed when none has an index); None when there is none."""
    if not isinstance(choices, list):
        raise DataError("response.body.choices is not a list", path, line)
    if not choices:
        return None
    if not all(isinstance(choice, dict) for choice in choices):
        raise DataError("response.body.choices holds an item that is not an object", path, line)
    indexes = [choice.get("index") for choice in choices]
    if all(index is None for index in indexes):
        return choices[0]
    if any(not isinstance(index, int) or isinstance(index, bool) for index in indexes) or \
            len(set(indexes)) != len(indexes):
        raise DataError(f"response.body.choices have indexes {indexes}: each must be a distinct whole number",
                        path, line)
    return next((choice for choice in choices if choice["index"] == 0), None) or \
        min(choices, key=lambda choice: choice["index"])


def _responses(output, path: Path, line: int) -> Generated:
    """The `output_text` parts of the message items of a /v1/responses body and its function calls' arguments
    (reasoning items are skipped)."""
    if not isinstance(output, list):
        raise DataError("response.body.output is not a list", path, line)
    texts, arguments, refused = [], [], False
    for item in output:
        if not isinstance(item, dict):
            raise DataError("response.body.output holds an item that is not an object", path, line)
        if item.get("type") == "message":
            texts.append(joined_parts(item.get("content"), "output_text", "output[].content", path, line))
            refused = refused or any(isinstance(part, dict) and part.get("type") == "refusal"
                                     for part in item.get("content") or [])
        elif item.get("type") == "function_call":
            arguments.append(text_value(item.get("arguments"), "output[].arguments", path, line))
    text = "\n".join(text for text in [*texts, *arguments] if text)
    if refused and not text:
        return Generated("", refused=True)
    return Generated(text, tool_call=bool(arguments))


def anthropic_text(row: dict, path: Path, line: int) -> Generated:
    """The generation of an Anthropic Message Batches result line."""
    result = row["result"]
    kind = result["type"]
    if kind in ANTHROPIC_FAILED:
        return FAILED
    if kind != "succeeded":
        raise DataError(f"unknown result type {kind!r}; valid: succeeded, {', '.join(ANTHROPIC_FAILED)}", path, line)
    message = result.get("message")
    if not isinstance(message, dict):
        raise DataError("a succeeded result has no message object", path, line)
    stop = message.get("stop_reason")
    if stop == "refusal":
        return Generated("", refused=True)
    text = joined_parts(message.get("content"), "text", "result.message.content", path, line, "\n")
    inputs = [json.dumps(block.get("input"), ensure_ascii=False) for block in message.get("content") or []
              if isinstance(block, dict) and block.get("type") == "tool_use"]
    return Generated("\n".join(part for part in [text, *inputs] if part), stop == "max_tokens", bool(inputs))


def joined_parts(content, part_type: str, where: str, path: Path, line: int, separator: str = "") -> str:
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
            texts.append(text_value(part.get("text"), where, path, line))
    joined = texts[:1]
    for text in texts[1:]:  # a separator only where neither block breaks the line already
        apart = not separator or joined[-1].endswith(("\n", "\r")) or text.startswith(("\n", "\r"))
        joined.append(text if apart else separator + text)
    return "".join(joined)


def text_value(value, where: str, path: Path, line: int) -> str:
    if value is not None and not isinstance(value, str):
        raise DataError(f"{where} is not text: {value!r}", path, line)
    return value or ""
