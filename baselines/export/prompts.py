"""Prompts and documents for lm-evaluation-harness tasks: one JSON document per item, carrying our id.

Every document holds its finished prompt (the harness reads it verbatim through `doc_to_text`), the
answer labels offered (`labels`), the gold labels (`targets`) and gold positions (`gold_indexes`), and
the id our references use, so `baselines score` joins the harness's sample logs by it. Each benchmark's
prompts live in its folder (baselines/tasks/<task>/prompts.py); the parts they share are here.
"""
from __future__ import annotations

from baselines.core.records import ChoiceItem


def option_lines(labels: list[str], choices: list[str]) -> str:
    """One "<label>. <choice>" line per choice."""
    return "\n".join(f"{label.strip()}. {choice.strip()}" for label, choice in zip(labels, choices))


def gold_fields(item: ChoiceItem, labels: list[str]) -> dict:
    """The document fields of a choice item's gold answer: its labels (`targets`) and positions (`gold_indexes`)."""
    return {"targets": [labels[i] for i in item.answer], "gold_indexes": list(item.answer)}
