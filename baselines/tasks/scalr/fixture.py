"""A few SCALR-shaped questions for the public contract (baselines.testing): quick to fit on, every choice used."""
from __future__ import annotations

from baselines.core.records import ChoiceItem

WORDS = ["warrant", "search", "tax", "contract", "speech", "damages", "appeal", "jury", "statute", "agency"]


def contract_items(n: int = 20) -> list[ChoiceItem]:
    items = []
    for i in range(n):
        answer = i % 5
        choices = [f"holding that the {WORDS[(i + k) % 10]} rule applies to {WORDS[(i + 2 * k) % 10]}" for k in range(5)]
        question = f"Whether the {WORDS[(i + answer) % 10]} rule applies to {WORDS[(i + 2 * answer) % 10]} cases"
        items.append(ChoiceItem(id=str(i), question=question, choices=choices, labels=["0", "1", "2", "3", "4"],
                                answer=[answer]))
    return items
