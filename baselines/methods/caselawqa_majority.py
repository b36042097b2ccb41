"""CaselawQA floor: the most frequent training answer of each task."""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import BaselinesError
from ..records import ChoiceItem
from .base import Method
from .caselawqa_common import answer_counts, by_task, frequency_scores, majority_choice, prediction_rows


@dataclass
class CaselawMajority(Method):
    """Per task, the most frequent gold answer in train (ties: the first choice); scores are train frequencies."""

    task = "caselawqa"
    name = "majority"

    def fit(self, train: list[ChoiceItem], val=None):
        if not train:
            raise BaselinesError("majority: no training examples")
        self.counts_ = {task: dict(answer_counts(items)) for task, items in by_task(train).items()}
        return self

    def predict(self, records: list[ChoiceItem]) -> list[dict]:
        unknown = sorted({item.group for item in records} - set(self.counts_))
        if unknown:
            raise BaselinesError(f"majority: no trained answer for task(s) {', '.join(unknown)}; "
                                 "train on those tasks first")
        rows = []
        for task, items in by_task(records).items():
            counts = Counter({int(k): v for k, v in self.counts_[task].items()})
            n = len(items[0].choices)
            scores = np.tile(frequency_scores(counts, n), (len(items), 1))
            scores[:, majority_choice(counts, n)] += 1.0  # ties broken like majority_choice
            rows.extend(prediction_rows(items, scores / scores.sum(axis=1, keepdims=True)))
        return rows

    def save_state(self, folder: Path) -> None:
        (folder / "state.json").write_text(json.dumps({"counts": self.counts_}, sort_keys=True))

    def load_state(self, folder: Path) -> None:
        self.counts_ = json.loads((folder / "state.json").read_text())["counts"]
