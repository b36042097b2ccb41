"""How long an export's prompts are: the mean tokens per document of each harness run (a task, or a group over
its tasks), counted by the tokenizer of the LLM cost estimate (baselines.runs.llm_cost.token_counter), so a
published figure's `tokens_per_item` can be counted by a command (`baselines export lm-eval --count-tokens`)."""
from __future__ import annotations

import json
from pathlib import Path

from baselines.export.harness import Export


def prompt_tokens(folder: Path, final: Path, export: Export) -> tuple[dict[str, float], str]:
    """(run name -> mean prompt tokens per document, what counted them) for the export written into `folder`,
    whose YAML files name their documents under `final` (the folder it becomes)."""
    from baselines.runs.llm_cost import token_counter

    count, counted_by = token_counter()
    per_task = _tokens_per_task(folder, Path(final).resolve(), count)
    sizes = {}
    for run in export.run_names():
        counts = [n for task in export.groups.get(run, [run]) for n in per_task.get(task, [])]
        if counts:
            sizes[run] = sum(counts) / len(counts)
    return sizes, counted_by


def _tokens_per_task(folder: Path, final: Path, count) -> dict[str, list[int]]:
    """Harness task -> the prompt tokens of each of its documents (the field its `doc_to_text` names); tasks
    whose prompt is a template rather than a field are left out."""
    import yaml

    counted: dict[tuple[Path, str], list[int]] = {}  # tasks sharing a documents file and field are counted once
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


def _field_tokens(documents: Path, field, count) -> list[int]:
    """The tokens of `field` in each document of a JSONL file (empty when a document lacks it)."""
    sizes = []
    with open(documents, encoding="utf-8") as handle:
        for line in handle:
            text = json.loads(line).get(field) if isinstance(field, str) else None
            if not isinstance(text, str):
                return []
            sizes.append(count(text))
    return sizes
