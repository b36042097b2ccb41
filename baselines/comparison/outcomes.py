"""The outcomes of systems on a set of ids, in one numbering of labels, groups and resampling units, so that one
weight matrix of the bootstrap fits them all (paired.py resamples them; systems.py scores one system alone)."""
from __future__ import annotations

from typing import Protocol

import numpy as np

from baselines.evaluation import metrics as M
from baselines.registry import Documents, ItemsFromPredictions, Task


class Takes(Protocol):
    """What outcomes_on reads of a system: its scored items on given ids (systems.System)."""

    def take(self, ids: np.ndarray, absent=None) -> dict: ...


def outcomes_on(task: Task, systems: list[Takes], ids: np.ndarray) -> list[M.Outcomes]:
    """Outcomes of each system on `ids`, sharing label, group and unit indexes so one weight matrix fits all."""
    items = task.capability(ItemsFromPredictions)
    absent = items.absent if items is not None else None
    picked = [system.take(ids, absent) for system in systems]
    labels = np.unique(np.concatenate([np.unique(p[key][p["answered"]] if key == "answer" else p[key])
                                       for p in picked for key in ("gold", "answer")]))
    first = picked[0]
    groups, first_at, group = np.unique(first["group"], return_index=True, return_inverse=True)
    unit = np.arange(len(ids))  # ids are unique (checked on loading)
    if task.capability(Documents) is not None:  # documents, numbered in order of appearance as the evaluator numbers them
        unit = np.argsort(np.argsort(first_at))[group]
    outs = []
    for p in picked:
        pred = np.where(p["answered"], np.searchsorted(labels, p["answer"]), M.NO_ANSWER)
        outs.append(M.Outcomes(np.searchsorted(labels, p["gold"]).astype(np.int64), pred.astype(np.int64),
                               p["correct"], group.astype(np.int64), unit.astype(np.int64),
                               labels.tolist(), groups.tolist()))
    return outs
