"""The majority floor of every task, as scikit-learn's DummyClassifier(strategy="most_frequent").

One implementation counts the training outcomes (per group when a task has groups, such as the
CaselawQA tasks), breaks ties towards the smallest outcome as DummyClassifier does, and saves the
counts; each task's floor (floors.MajorityChooser, caselawqa_majority.CaselawMajority,
rr_simple.RRMajority) only says what an outcome is and what a prediction row holds.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Hashable, Mapping

from baselines.core.errors import BaselinesError
from baselines.methods.base import Method

ALL = ""  # the one group of a task without groups


def most_frequent(counts: Mapping[Hashable, int]) -> Hashable:
    """The outcome counted most often; ties go to the smallest outcome (DummyClassifier's rule)."""
    return min(counts, key=lambda outcome: (-counts[outcome], outcome))


@dataclass
class MajorityFloor(Method):
    """Base of the majority floors: per group, the most frequent training outcome; no hyperparameters."""

    def outcomes(self, train) -> dict[str, list]:
        """Group -> the outcomes of the training data in it (one group, ALL, for a task without groups)."""
        raise NotImplementedError

    def outcome_from_json(self, key: str) -> Hashable:
        """An outcome read back from state.json, where mapping keys are strings."""
        return key

    def fit(self, train, val=None):
        grouped = self.outcomes(train)
        if not any(grouped.values()):
            raise BaselinesError(f"{self.name}: the training data have no answers")
        self.counts_ = {group: dict(Counter(values)) for group, values in grouped.items()}
        return self

    def answer(self, group: str = ALL) -> Hashable:
        """The floor's answer for `group`: its most frequent training outcome."""
        return most_frequent(self.counts_[group])

    def state(self) -> dict:
        return {"counts": self.counts_}

    def set_state(self, state: dict) -> None:
        counts = {ALL: state["counts"]} if "answer" in state else state["counts"]  # earlier one-group files
        self.counts_ = {group: {self.outcome_from_json(k): n for k, n in values.items()}
                        for group, values in counts.items()}

    def save_state(self, folder: Path) -> None:
        (folder / "state.json").write_text(json.dumps(self.state(), sort_keys=True))

    def load_state(self, folder: Path) -> None:
        self.set_state(json.loads((folder / "state.json").read_text()))
