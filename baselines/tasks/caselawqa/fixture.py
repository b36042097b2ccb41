"""A few CaselawQA-shaped examples of two tasks for the public contract (baselines.testing)."""
from __future__ import annotations

from baselines.core.records import ChoiceItem, letter_labels

WORDS = ["warrant", "search", "tax", "contract", "speech", "damages", "appeal", "jury", "statute", "agency"]


def contract_items(n: int = 24) -> list[ChoiceItem]:
    items = []
    for task, width in (("sc_toy_a", 2), ("sc_toy_b", 3)):
        for i in range(n):
            answer = i % width
            opinion = f"Opinion {i}. The court considered the {WORDS[answer]} issue. " * 5 + WORDS[i % 10]
            items.append(ChoiceItem(id=f"{task}/{i}", question="Which?", choices=[f"choice {k}" for k in range(width)],
                                    labels=letter_labels(width), answer=[answer], group=task, context=opinion,
                                    split="train", meta={"case_id": str(i), "court": "sc"}))
    return items
