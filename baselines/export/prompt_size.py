"""How long an export's prompts are: the mean tokens per document of each harness run (a task, or a group over
its tasks), counted by the tokenizer of the LLM cost estimate (baselines.runs.llm_cost.token_counter), so a
published figure's `tokens_per_item` can be counted by a command (`baselines export lm-eval --count-tokens`)."""
from __future__ import annotations

import json
from pathlib import Path

from baselines.core.errors import BaselinesError
from baselines.export.harness import Export


def prompt_tokens(folder: Path, final: Path, export: Export,
                  counted: tuple[dict[str, dict[str, int]], str] | None = None) -> tuple[dict[str, float], str]:
    """(run name -> mean prompt tokens per document, what counted them) for the export written into `folder`,
    whose YAML files name their documents under `final` (the folder it becomes); `counted`: what
    `item_prompt_tokens` gave, when already made."""
    per_task, counted_by = counted or item_prompt_tokens(folder, final)
    sizes = {}
    for run in export.run_names():
        counts = [n for task in export.groups.get(run, [run]) for n in per_task.get(task, {}).values()]
        if counts:
            sizes[run] = sum(counts) / len(counts)
    return sizes, counted_by


def item_prompt_tokens(folder: Path, final: Path) -> tuple[dict[str, dict[str, int]], str]:
    """(harness task -> item id -> prompt tokens, what counted them) of the export written into `folder`."""
    from baselines.runs.llm_cost import token_counter

    count, counted_by = token_counter()
    return _tokens_per_task(folder, Path(final).resolve(), count), counted_by


def _tokens_per_task(folder: Path, final: Path, count) -> dict[str, dict[str, int]]:
    """Harness task -> the prompt tokens of each of its documents by id (the field its `doc_to_text` names); tasks
    whose prompt is a template rather than a field are left out."""
    import yaml

    counted: dict[tuple[Path, str], dict[str, int]] = {}  # tasks sharing a documents file and field are counted once
    per_task = {}
    for config in sorted(folder.rglob("*.yaml")):
        spec = yaml.safe_load(config.read_text(encoding="utf-8"))
        if not isinstance(spec, dict) or not isinstance(spec.get("task"), str):
            continue  # a group
        field = spec.get("doc_to_text")
        try:
            documents = folder / Path(spec["dataset_kwargs"]["data_files"]["test"]).relative_to(final)
        except (KeyError, TypeError, ValueError):
            continue
        if (documents, field) not in counted:
            counted[documents, field] = _field_tokens(documents, field, count)
        if counted[documents, field]:
            per_task[spec["task"]] = counted[documents, field]
    return per_task


def _field_tokens(documents: Path, field, count) -> dict[str, int]:
    """Item id -> the tokens of `field` in each document of a JSONL file (empty when a document lacks it); a
    repeated id is refused, naming it (one count per id would leave a document out of the mean)."""
    sizes = {}
    with open(documents, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            document = json.loads(line)
            text = document.get(field) if isinstance(field, str) else None
            if not isinstance(text, str):
                return {}
            item = str(document.get("id"))
            if item in sizes:
                raise BaselinesError(f"{documents}, line {number}: the id {item!r} is repeated, so its documents' "
                                     "prompt tokens cannot be told apart; give each document its own id")
            sizes[item] = count(text)
    return sizes
