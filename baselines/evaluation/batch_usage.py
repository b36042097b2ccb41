"""The tokens a batch API line says its request used (`usage`), in one shape for every format:
{"prompt": P, "completion": C, "reasoning": R or None, "cached": K or None}.

- OpenAI /v1/chat/completions and /v1/completions (and `vllm run-batch`): `usage.prompt_tokens`,
  `completion_tokens` (the reasoning tokens included), `completion_tokens_details.reasoning_tokens`,
  `prompt_tokens_details.cached_tokens`.
- OpenAI /v1/responses: `usage.input_tokens`, `output_tokens`, `output_tokens_details.reasoning_tokens`,
  `input_tokens_details.cached_tokens`.
- Anthropic Message Batches: `usage.input_tokens` (the tokens not read from the cache), `output_tokens`,
  `cache_read_input_tokens` and `cache_creation_input_tokens`: the prompt is the three added, its cached part the
  tokens read from the cache.

The prompt counts every input token (cached ones included) and the completion every output token (reasoning
included), so the two give the compute, and the reasoning and cached parts give what is priced apart. A line
without usage, or whose counts are not whole numbers of at least 0, has none (None)."""
from __future__ import annotations


def _count(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _detail(usage: dict, details: str, name: str) -> int | None:
    part = usage.get(details)
    return _count(part.get(name)) if isinstance(part, dict) else None


def openai_usage(row: dict) -> dict | None:
    """The usage of an OpenAI Batch output line (any endpoint), or None."""
    body = (row.get("response") or {}).get("body") if isinstance(row.get("response"), dict) else None
    usage = body.get("usage") if isinstance(body, dict) else None
    if not isinstance(usage, dict):
        return None
    if "prompt_tokens" in usage:
        prompt, completion = _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))
        reasoning = _detail(usage, "completion_tokens_details", "reasoning_tokens")
        cached = _detail(usage, "prompt_tokens_details", "cached_tokens")
    else:
        prompt, completion = _count(usage.get("input_tokens")), _count(usage.get("output_tokens"))
        reasoning = _detail(usage, "output_tokens_details", "reasoning_tokens")
        cached = _detail(usage, "input_tokens_details", "cached_tokens")
    if prompt is None or completion is None:
        return None
    return {"prompt": prompt, "completion": completion, "reasoning": reasoning, "cached": cached}


def anthropic_usage(row: dict) -> dict | None:
    """The usage of an Anthropic Message Batches result line, or None."""
    message = (row.get("result") or {}).get("message") if isinstance(row.get("result"), dict) else None
    usage = message.get("usage") if isinstance(message, dict) else None
    if not isinstance(usage, dict):
        return None
    fresh, completion = _count(usage.get("input_tokens")), _count(usage.get("output_tokens"))
    if fresh is None or completion is None:
        return None
    read = _count(usage.get("cache_read_input_tokens")) or 0
    written = _count(usage.get("cache_creation_input_tokens")) or 0
    return {"prompt": fresh + read + written, "completion": completion, "reasoning": None,
            "cached": read if "cache_read_input_tokens" in usage else None}
