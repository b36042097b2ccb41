"""A scored system as `compare` sees it: one run's results and its per-item outcomes as arrays."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass
class System:
    """One results file and its per-item outcomes (arrays aligned with `ids`)."""

    name: str
    path: Path
    result: dict
    ids: np.ndarray  # (n,) str
    group: np.ndarray  # (n,) str: CaselawQA task, RR document, "" otherwise
    gold: np.ndarray  # (n,) str: the label the item is scored against
    answer: np.ndarray  # (n,) str, "" where no answer was found
    answered: np.ndarray  # (n,) bool
    correct: np.ndarray  # (n,) bool

    @property
    def kind(self) -> str:
        """'ours', 'llm' or 'other', as recorded when the run was scored."""
        return self.result.get("kind") or ("other" if self.result.get("meta", {}).get("method") == "external"
                                           else "ours")

    @property
    def external(self) -> bool:
        return self.kind != "ours"

    @property
    def value(self) -> float:
        return float(self.result["metrics"][self.result["main_metric"]])

    def take(self, ids: np.ndarray, absent=None) -> dict[str, np.ndarray]:
        """The outcome arrays at `ids`, in that order; an id this system lacks takes `absent(id)` (a dict)."""
        keys = ("group", "gold", "answer", "answered", "correct")
        if ids is self.ids or np.array_equal(ids, self.ids):
            return {key: getattr(self, key) for key in keys}
        order = np.argsort(self.ids)
        found = np.minimum(np.searchsorted(self.ids, ids, sorter=order), len(self.ids) - 1)
        at = order[found]
        present = self.ids[at] == ids
        picked = {key: getattr(self, key)[at] for key in keys}
        if present.all():
            return picked
        picked = {key: value.astype(object) for key, value in picked.items()}
        for k in np.flatnonzero(~present):  # only for tasks whose items depend on the predictions
            for key, value in absent(str(ids[k])).items():
                picked[key][k] = value
        return {key: value.astype(getattr(self, key).dtype if key in ("answered", "correct") else str)
                for key, value in picked.items()}
