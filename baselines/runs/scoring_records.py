"""The records `score` reads. Where the task declares how (ReferencesOnly) and the predictions format reads no
text, the references are loaded without the texts the items are about (CaselawQA: no opinion), so scoring
costs what the answers cost, whatever the size of the texts. Whole records are loaded only where a step needs
them: the overlap check of predictions our own eval wrote (the whole split), and the LLM cost estimate (the
prompts of a sample of at most COST_SAMPLE answered items: all of them in a smaller run, else the first
answered items of each group)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from baselines.registry import ExternalFormat, ReferencesOnly, Task

COST_SAMPLE = 1000  # answered items whose prompts the LLM cost estimate counts, at most, when texts are left out


@dataclass
class ScoringRecords:
    """The records scored (`records`, whole or without texts) and the loaders of whole ones."""

    records: list
    load_whole: Callable[[], list]  # whole records of the scored split
    load_ids: Callable[[set], list] | None = None  # whole records of some ids; None: `records` are whole

    @property
    def without_texts(self) -> bool:
        return self.load_ids is not None

    def whole(self) -> list:
        """Whole records of the split (loaded now when `records` are without texts)."""
        return self.load_whole() if self.without_texts else self.records

    def prompt_records(self, references: list, predictions: list[dict]) -> tuple[list, int]:
        """(whole records the LLM cost estimate counts prompts on, the number of answered items): every record
        when whole; else those of `cost_sample` of the answered items."""
        known = {ref.id for ref in references}
        answered = {str(row.get("id")) for row in predictions} & known
        if not self.without_texts:
            return self.records, len(answered)
        chosen = cost_sample(references, answered)
        return (self.load_ids(chosen) if chosen else []), len(answered)


def cost_sample(references: list, answered: set[str], limit: int | None = None) -> set[str]:
    """The answered ids whose prompts are counted: all when at most `limit`, else the first answered items of each
    group in the references' order (limit // groups of each, at least one), so that whole records of these ids
    are found in the first rows of each group's data. `limit`: COST_SAMPLE unless given."""
    limit = COST_SAMPLE if limit is None else limit
    if len(answered) <= limit:
        return set(answered)
    by_group: dict[str, list[str]] = {}
    for ref in references:
        if ref.id in answered:
            by_group.setdefault(ref.group, []).append(ref.id)
    each = max(1, limit // len(by_group))
    return {item for ids in by_group.values() for item in ids[:each]}


def scoring_loaders(task: Task, entry: ExternalFormat) -> tuple[Callable, Callable | None]:
    """(the loader `score` reads records with, the loader of whole records of some ids or None when the first
    gives whole records): the task's ReferencesOnly loaders unless the format reads the records' texts."""
    light = task.capability(ReferencesOnly)
    if light is None or entry.whole_records:
        return task.load, None
    return light.load, light.whole
