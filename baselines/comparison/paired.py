"""Paired statistics of systems against a reference on shared items: bootstrap differences and McNemar.

A system B against the reference A runs on the ids both were scored on (when the task makes its items
from the predictions, e.g. boundary items: the union of their items, see ItemsFromPredictions): the
difference metric(B) - metric(A); a paired bootstrap that applies the same resampling weights to both (items,
or whole groups when the task resamples groups; within groups when it is grouped), giving a percentile 95%
interval and the two-sided p-value min(1, 2 min(#{d <= 0} + 1, #{d >= 0} + 1) / (B + 1)), which is exactly 1
for identical systems; and, for accuracy-type tasks, McNemar's exact test on item correctness.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import bdtr

from baselines.comparison.outcomes import outcomes_on
from baselines.comparison.systems import System
from baselines.evaluation import metrics as M
from baselines.registry import ItemsFromPredictions, Task

ACCURACY_TYPE = ("accuracy", "mean_task_accuracy")


@dataclass
class Paired:
    """A system against the reference on the ids both were scored on."""

    shared: int
    difference: float
    interval: tuple[float | None, float | None]  # None: a single resampling unit, no interval
    p_bootstrap: float | None
    p_mcnemar: float | None


def paired_all(task: Task, reference: System, systems: list[System], replicates: int,
               seed: int) -> tuple[dict[str, Paired], list[str]]:
    """Paired statistics of every system against the reference, one bootstrap per distinct shared-id set."""
    by_ids: dict[tuple, tuple[np.ndarray, list[System]]] = {}
    notes = []
    for system in systems:
        if system is reference:
            continue
        shared = shared_ids(task, reference, system)
        if len(shared) == 0:
            notes.append(f"{system.name}: no ids in common with {reference.name}; not compared")
            continue
        if len(shared) < max(len(reference.ids), len(system.ids)):
            notes.append(f"{system.name}: compared with {reference.name} on the {len(shared)} ids both were "
                         f"scored on ({system.name} has {len(system.ids)}, {reference.name} {len(reference.ids)})")
        same = shared is reference.ids  # shared_ids returns the reference's own ids when they are equal
        by_ids.setdefault(("same",) if same else tuple(shared.tolist()), (shared, []))[1].append(system)
    paired = {}
    for shared, members in by_ids.values():
        outs = outcomes_on(task, [reference, *members], shared)
        for system, result in zip(members, paired_stats(task, outs, replicates, seed)):
            paired[system.name] = result
    return paired, notes


def shared_ids(task: Task, reference: System, system: System) -> np.ndarray:
    """The ids two systems are paired on: those both were scored on (when the task makes its items from the
    predictions: the union, an absent item taking the task's absent outcome)."""
    if np.array_equal(reference.ids, system.ids):
        return reference.ids
    if task.capability(ItemsFromPredictions) is not None:
        return np.union1d(reference.ids, system.ids)
    return np.intersect1d(reference.ids, system.ids)


def paired_stats(task: Task, outs: list[M.Outcomes], replicates: int, seed: int) -> list[Paired]:
    """Each of outs[1:] against outs[0] with the same bootstrap weights for both."""
    metric = M.METRICS[task.main_metric]
    base, others = outs[0], outs[1:]
    if M.single_unit_strata(base, task.grouped):  # one document: resampling it proves nothing
        return [Paired(out.n, M.point(task.main_metric, out) - M.point(task.main_metric, base), (None, None), None,
                       mcnemar(base.correct, out.correct) if task.main_metric in ACCURACY_TYPE else None)
                for out in others]
    chunks: list[list[np.ndarray]] = [[] for _ in others]
    rng = np.random.default_rng(seed)
    for W in M.bootstrap_weights(base, replicates, rng, stratify=task.grouped):
        reference = metric(base, W)
        for k, out in enumerate(others):
            chunks[k].append(metric(out, W) - reference)
    results = []
    for out, parts in zip(others, chunks):
        d = np.concatenate(parts)
        low, high = np.percentile(d, [2.5, 97.5])
        p = min(1.0, 2 * min(np.sum(d <= 0) + 1, np.sum(d >= 0) + 1) / (len(d) + 1))
        exact = mcnemar(base.correct, out.correct) if task.main_metric in ACCURACY_TYPE else None
        difference = M.point(task.main_metric, out) - M.point(task.main_metric, base)
        results.append(Paired(out.n, difference, (float(low), float(high)), float(p), exact))
    return results


def mcnemar(first: np.ndarray, second: np.ndarray) -> float:
    """Exact two-sided McNemar p-value of paired correctness (1.0 when no item is discordant)."""
    only_first = int(np.sum(first & ~second))
    only_second = int(np.sum(~first & second))
    discordant = only_first + only_second
    if discordant == 0:
        return 1.0
    return float(min(1.0, 2 * bdtr(min(only_first, only_second), discordant, 0.5)))


def group_accuracy(system: System, ids: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Groups among `ids`, their sizes, and the system's accuracy in each."""
    picked = system.take(ids)
    groups, index = np.unique(picked["group"], return_inverse=True)
    n = np.bincount(index, minlength=len(groups))
    right = np.bincount(index, weights=picked["correct"].astype(np.float64), minlength=len(groups))
    return groups.tolist(), n, right / n
