"""CaselawQA floor: the most frequent training answer of each task."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from baselines.core.errors import BaselinesError
from baselines.core.records import ChoiceItem
from baselines.tasks.caselawqa.common import by_task, frequency_scores, majority_choice, prediction_rows
from baselines.methods.majority import MajorityFloor
from baselines.tasks.caselawqa.recognise import TaskPaths, recognise


@dataclass
class CaselawMajority(TaskPaths, MajorityFloor):
    """Per task, the most frequent gold answer in train (ties: the first choice); scores are train frequencies."""

    def outcomes(self, train: list[ChoiceItem]) -> dict[str, list]:
        """Every gold answer counts (multi-label items count each of theirs)."""
        return {task: [a for item in items for a in item.answer] for task, items in by_task(train).items()}

    def fit(self, train: list[ChoiceItem], val: list[ChoiceItem] | None = None):
        self.roles_ = recognise(train)  # every task answered alike: said for the training summary
        return super().fit(train, val)

    def outcome_from_json(self, key: str) -> int:
        return int(key)

    def predict(self, records: list[ChoiceItem]) -> list[dict]:
        unknown = sorted({item.group for item in records} - set(self.counts_))
        if unknown:
            raise BaselinesError(f"majority: no trained answer for task(s) {', '.join(unknown)}; "
                                 "train on those tasks first")
        rows = []
        for task, items in by_task(records).items():
            counts = Counter(self.counts_[task])
            n = len(items[0].choices)
            scores = np.tile(frequency_scores(counts, n), (len(items), 1))
            scores[:, majority_choice(counts, n)] += 1.0  # the answer: ties broken as in MajorityFloor
            rows.extend(prediction_rows(items, scores / scores.sum(axis=1, keepdims=True)))
        return rows
