"""`baselines export batch`: request files for the OpenAI Batch API, Anthropic's Message Batches and `vllm
run-batch`, one request per item, with the same prompts and generation length as the harness export.

The prompts are those of `baselines export lm-eval` with the same options (written to a scratch folder and read
back, so the two cannot drift): each generation task's documents and `doc_to_text` field, and its `max_gen_toks`
as `max_tokens` (or `--max-tokens`), at temperature 0. Each request's `custom_id` is `<task>-<id>`, with `__` for a
`/` of the id, which `baselines score` maps back to the item with no option. A file over the API's limits is split
into parts named `<name>.part<k>.jsonl`. Beside them, `<name>.prompts.json` records the prompt tokens of each
request and the settings that shaped them (baselines.runs.prompt_record), the cost basis of an output without
`usage`.

- OpenAI (`--api openai`): `{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body": {"model",
  "messages", "max_tokens", "temperature"}}`, or `/v1/responses` with `--endpoint responses` (`input`,
  `max_output_tokens`). The same file is the input of `vllm run-batch`, whose output `score` reads as an OpenAI
  batch output. Limits: 50,000 requests and 200 MB per file.
- Anthropic (`--api anthropic`): `{"custom_id", "params": {"model", "max_tokens", "temperature", "messages"}}`,
  one per line: the `requests` of a Message Batch. Limits: 100,000 requests and 256 MB per batch.
"""
from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from baselines.core.errors import BaselinesError
from baselines.core.safe_write import check_output, write_staged, writable_target
from baselines.export.lm_eval import export_lm_eval
from baselines.runs.llm_cost import token_counter
from baselines.runs.prompt_record import batch_record_path, record_bytes

APIS = {"openai": {"requests": 50_000, "bytes": 200 * 1024 ** 2},
        "anthropic": {"requests": 100_000, "bytes": 256 * 1024 ** 2}}
ENDPOINTS = {"chat": "/v1/chat/completions", "responses": "/v1/responses"}
CUSTOM_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # Anthropic's rule, the stricter of the two


@dataclass
class BatchExport:
    """What a batch export wrote: the request files (parts), requests per file, and how they were made."""

    task: str
    api: str
    model: str
    files: list[Path] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    max_tokens: list[int] = field(default_factory=list)  # the max_tokens values of its requests
    notes: list[str] = field(default_factory=list)
    prompt_record: Path | None = None  # the prompt tokens of each request (`<name>.prompts.json`)

    @property
    def n_requests(self) -> int:
        return sum(self.counts)


def export_batch(task_name: str, data_dir, out: Path, *, api: str, model: str, endpoint: str = "chat",
                 max_tokens: int | None = None, force: bool = False, split: str | None = None,
                 load_options: dict | None = None, sample: int | None = None, seed: int = 0,
                 **options) -> BatchExport:
    """Write the request file(s) for one split of a benchmark (all or nothing); `options` are the benchmark's own
    export options (--max-chars, --window, --prompt)."""
    _check_choices(api, endpoint, model, max_tokens)
    out = Path(out)
    check_output(out, folder=False, example="requests.jsonl")  # a folder, a device, a link: before any work
    with tempfile.TemporaryDirectory(prefix="legal-baselines-batch-") as scratch:
        export = export_lm_eval(task_name, data_dir, Path(scratch) / "export", split=split, load_options=load_options,
                                sample=sample, seed=seed, **options)
        prompts = list(_generation_prompts(export.folder, max_tokens))
    requests = [_request(api, endpoint, model, task_name, item_id, prompt, tokens) for item_id, prompt, tokens in prompts]
    parts = _parts([json.dumps(request, ensure_ascii=False) + "\n" for request in requests], APIS[api])
    files = [out] if len(parts) == 1 else [out.with_name(f"{out.stem}.part{k}{out.suffix}") for k in
                                             range(1, len(parts) + 1)]
    record = writable_target(batch_record_path(out))
    targets = [writable_target(path) for path in files]
    for path in [*targets, record]:
        if path.exists() and not force:
            raise BaselinesError(f"{path} exists: choose another --out, or --force to replace it")
    settings = {**options, "sample": sample, "seed": seed if sample is not None else None, "api": api,
                "model": model, "endpoint": endpoint, "max_tokens": max_tokens}
    write_staged({**{path: "".join(lines).encode("utf-8") for path, lines in zip(targets, parts)},
                  record: _prompt_record(task_name, export.split, settings, prompts)})
    return BatchExport(task_name, api, model, targets, [len(lines) for lines in parts],
                       sorted({tokens for _, _, tokens in prompts}), export.notes, record)


def _prompt_record(task: str, split: str, settings: dict, prompts: list[tuple[str, str, int]]) -> bytes:
    """The record of the prompt tokens of each request (`<name>.prompts.json`), which `baselines score` reads for
    the cost of a run whose output carries no `usage`."""
    count, counted_by = token_counter()
    return record_bytes(task, split, settings, counted_by, {"batch": {item: count(prompt) for item, prompt, _ in prompts}})


def _check_choices(api: str, endpoint: str, model: str, max_tokens: int | None) -> None:
    if api not in APIS:
        raise BaselinesError(f"unknown --api {api!r}; valid: {', '.join(APIS)}")
    if endpoint not in ENDPOINTS or (api == "anthropic" and endpoint != "chat"):
        raise BaselinesError(f"unknown --endpoint {endpoint!r} for --api {api}; valid: "
                             f"{', '.join(ENDPOINTS) if api == 'openai' else 'chat'}")
    if not model or not model.strip():
        raise BaselinesError("--model is empty: give the model name the API knows, e.g. gpt-4o-mini")
    if max_tokens is not None and not 1 <= max_tokens <= 1_000_000:
        raise BaselinesError(f"--max-tokens {max_tokens} is out of range: a count from 1 to 1,000,000")


def _generation_prompts(folder: Path, max_tokens: int | None):
    """(item id, prompt, max tokens) of every document of every generation task the export wrote."""
    for config_path in sorted(folder.rglob("*.yaml")):
        config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
        if not isinstance(config, dict) or config.get("output_type") != "generate_until":
            continue
        tokens = max_tokens or int(config.get("generation_kwargs", {}).get("max_gen_toks", 256))
        documents = Path(config["dataset_kwargs"]["data_files"]["test"])
        field_name = config["doc_to_text"]
        for line in documents.read_text(encoding="utf-8").splitlines():
            document = json.loads(line)
            yield str(document["id"]), document[field_name], tokens


def custom_id(task: str, item_id: str) -> str:
    """`<task>-<id>` with `__` for `/`: what `baselines score` maps back to the item (refused if an API cannot
    take it)."""
    shown = f"{task}-{item_id.replace('/', '__')}"
    if not CUSTOM_ID.fullmatch(shown):
        raise BaselinesError(f"id {item_id!r} makes the custom_id {shown!r}, which batch APIs refuse (letters, digits, "
                             "'_' and '-', at most 64 characters)")
    return shown


def _request(api: str, endpoint: str, model: str, task: str, item_id: str, prompt: str, tokens: int) -> dict:
    messages = [{"role": "user", "content": prompt}]
    if api == "anthropic":
        return {"custom_id": custom_id(task, item_id),
                "params": {"model": model, "max_tokens": tokens, "temperature": 0, "messages": messages}}
    body = ({"model": model, "input": prompt, "max_output_tokens": tokens, "temperature": 0} if endpoint == "responses"
            else {"model": model, "messages": messages, "max_tokens": tokens, "temperature": 0})
    return {"custom_id": custom_id(task, item_id), "method": "POST", "url": ENDPOINTS[endpoint], "body": body}


def _parts(lines: list[str], limits: dict) -> list[list[str]]:
    """The lines in parts of at most the API's requests and bytes per file."""
    parts, current, size = [], [], 0
    for line in lines:
        length = len(line.encode("utf-8"))
        if current and (len(current) >= limits["requests"] or size + length > limits["bytes"]):
            parts.append(current)
            current, size = [], 0
        current.append(line)
        size += length
    return parts + [current] if current else parts or [[]]
