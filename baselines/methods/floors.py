"""Floors for multiple-choice tasks: a seeded random choice and the most frequent answer position."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from baselines.core.records import ChoiceItem
from baselines.methods.base import Method
from baselines.methods.majority import ALL, MajorityFloor


@dataclass
class RandomChooser(Method):
    """A uniformly random choice per item, seeded by the item id (same answer whatever the order)."""

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
class MajorityChooser(MajorityFloor):
    """The most frequent answer label of the training items (ties: the smallest label)."""

    def outcomes(self, train: list[ChoiceItem]) -> dict[str, list]:
        return {ALL: [item.labels[i] for item in train for i in item.answer[:1]]}

    def predict(self, records: list[ChoiceItem]) -> list[dict]:
        answer = self.answer()
        return [{"id": item.id, "prediction": answer} for item in records]
