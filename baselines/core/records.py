"""Record types shared by loaders, methods and the evaluator."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Reference:
    """What the evaluator needs to score one item: the accepted answers and the valid labels."""

    id: str
    gold: tuple[str, ...]  # accepted answer labels (several for multi-label items)
    labels: tuple[str, ...]  # every answer label that is valid for this item
    group: str = ""  # CaselawQA task; RR document
    unit: str = ""  # resampling unit of the bootstrap (RR: the document); empty = the item
    choices: tuple[str, ...] = ()  # text of each choice, aligned with labels (multiple choice); empty for RR


@dataclass
class ChoiceItem:
    """A multiple-choice item: SCALR question or CaselawQA (task, opinion) example."""

    id: str
    question: str
    choices: list[str]
    labels: list[str]  # answer label of each choice ("0".."4", "A".., "001"..)
    answer: list[int] = field(default_factory=list)  # gold choice indexes; empty = unlabelled
    group: str = ""  # CaselawQA task name
    context: str = ""  # text the question is about (CaselawQA opinion)
    split: str = ""
    meta: dict = field(default_factory=dict)

    def reference(self) -> Reference:
        return Reference(
            id=self.id,
            gold=tuple(self.labels[i] for i in self.answer),
            labels=tuple(self.labels),
            group=self.group,
            choices=tuple(self.choices),
        )


def letter_labels(n: int) -> list[str]:
    """Answer labels as CaselawQA's prompts give them: letters up to 26 choices, else zero-padded numbers."""
    if n <= 26:
        return [chr(ord("A") + i) for i in range(n)]
    width = len(str(n))
    return [str(i + 1).zfill(width) for i in range(n)]


def _plain(text) -> str:
    return " ".join(str(text).split())


def choice_text(item: ChoiceItem) -> str:
    """The text a choice item is about: its context (an opinion) where it has one, else its question."""
    return item.context or item.question


def choice_identities(items: list[ChoiceItem]) -> list[str]:
    """Per item, the text that makes it the item it is, white space collapsed: its question and choices, the case
    it is about where one is named (meta case_id: distinct cases can share one opinion's text, e.g. one-line per
    curiam orders), and a digest of its context (an opinion is shared by the items of its tasks: made plain and
    digested once)."""
    import hashlib

    heads: dict[tuple, str] = {}
    contexts: dict[str, str] = {}
    identities = []
    for item in items:
        head = (item.question, *item.choices)
        if head not in heads:
            heads[head] = "\n".join(map(_plain, head))
        if item.context not in contexts:
            contexts[item.context] = hashlib.sha256(_plain(item.context).encode()).hexdigest()[:16]
        identities.append("\n".join([heads[head], _plain(item.meta.get("case_id") or ""), contexts[item.context]]))
    return identities
