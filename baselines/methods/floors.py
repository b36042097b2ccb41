"""Floors for multiple-choice tasks: a seeded random choice and the most frequent answer position."""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import BaselinesError
from ..records import ChoiceItem
from .base import Method


@dataclass
class RandomChooser(Method):
    """A uniformly random choice per item, seeded by the item id (same answer whatever the order)."""

    task = "scalr"
    name = "random"
    needs_fit = False

    seed: int = 0

    def predict(self, records: list[ChoiceItem]) -> list[dict]:
        import zlib

        rows = []
        for item in records:
            rng = np.random.default_rng([self.seed, zlib.crc32(item.id.encode())])
            rows.append({"id": item.id, "prediction": item.labels[int(rng.integers(len(item.choices)))]})
        return rows


@dataclass
class MajorityChooser(Method):
    """The most frequent answer label of the training items (ties: the smallest label)."""

    task = "scalr"
    name = "majority"

    def fit(self, train: list[ChoiceItem], val=None):
        counts = Counter(item.labels[i] for item in train for i in item.answer[:1])
        if not counts:
            raise BaselinesError("majority: the training items have no answers")
        self.answer_ = min(counts, key=lambda label: (-counts[label], label))
        self.counts_ = dict(counts)
        return self

    def predict(self, records: list[ChoiceItem]) -> list[dict]:
        return [{"id": item.id, "prediction": self.answer_} for item in records]

    def save_state(self, folder: Path) -> None:
        (folder / "state.json").write_text(json.dumps({"answer": self.answer_, "counts": self.counts_}))

    def load_state(self, folder: Path) -> None:
        state = json.loads((folder / "state.json").read_text())
        self.answer_, self.counts_ = state["answer"], state["counts"]
