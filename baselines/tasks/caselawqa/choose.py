"""Choosing the combination weights of every task on val, lever by lever (the combination: combine.py).

Weights are chosen greedily on val (majority-capped weighted accuracy, as the heads are chosen): mention
weights per family, a window weight for all tasks then per task where val has at least `min_val` examples,
alpha, tau per family, for each task with at least `min_val` val examples its head and window weights
together; and last, where reader views are given (readers.py), each view in turn: one weight for all tasks, then
for each task with at least `min_val` val examples its head weight and that view's weight together. Ties go to the weights already chosen, then to the smaller weight (for tau: to no rule, then
the larger tau; for h: the larger h).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

import numpy as np

from baselines.tasks.caselawqa.aliases import family
from baselines.tasks.caselawqa.combine import Weights, combined_scores, task_scores, weighted_accuracy


@dataclass
class Grids:
    """Candidate weights of each lever (0 = lever off; ties go to the smaller weight)."""

    head: tuple = (1.0, 0.5, 0.25, 0.0)
    mentions: tuple = (0.0, 0.03, 0.06, 0.1, 0.15, 0.25, 0.5, 1.0)
    windows: tuple = (0.0, 0.25, 0.5, 1.0, 2.0)
    prior: tuple = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)
    confident: tuple = (0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99)
    readers: tuple = (0.0, 0.25, 0.5, 1.0, 2.0)


class ValChooser:
    """Scores candidate weights on val: `parts` task -> TaskParts of its val examples, `answers` their answers."""

    def __init__(self, parts: dict, answers: dict, cap: bool = True):
        self.parts, self.answers, self.cap = parts, answers, cap

    def accuracy(self, task: str, scores: np.ndarray) -> float:
        return weighted_accuracy(scores, self.answers[task], self.cap)

    def mean(self, weights: dict, tasks=None) -> float:
        tasks = tasks or list(self.parts)
        scores = combined_scores({t: p for t, p in self.parts.items() if t in tasks}, weights)
        return float(np.mean([self.accuracy(t, scores[t]) for t in tasks]))

    def best(self, grid: tuple, trial, tasks=None, prefer=None, larger: bool = False) -> float:
        """The grid value whose weights (trial(value) -> weights) score best on `tasks`; ties: `prefer`, then the
        smaller value (with `larger`: 0, then the larger value)."""
        def tie(value):
            return (value == 0, value) if larger else (value == prefer, -value)

        return max(grid, key=lambda value: (self.mean(trial(value), tasks), *tie(value)))

    def choose(self, grids: Grids, min_val: int) -> tuple[dict, dict]:
        """(task -> Weights, val mean after each lever)."""
        weights = {task: Weights() for task in self.parts}
        steps = {"heads": self.mean(weights)}
        with_mentions = [t for t, p in self.parts.items() if p.mentions is not None]
        for name in sorted({family(t) for t in with_mentions}):
            tasks = [t for t in with_mentions if family(t) == name]
            w = self.best(grids.mentions, lambda v: _set(weights, tasks, mentions=v), tasks)
            weights = _set(weights, tasks, mentions=w)
        steps["+mentions"] = self.mean(weights)
        everything = list(self.parts)
        weights = self._windows_per_task(weights, grids.windows, min_val)
        steps["+windows"] = self.mean(weights)
        alpha = self.best(grids.prior, lambda v: _set(weights, everything, prior=v))
        weights = _set(weights, everything, prior=alpha)
        steps["+prior"] = self.mean(weights)
        for name in sorted({family(t) for t in with_mentions}):
            tasks = [t for t in with_mentions if family(t) == name]
            tau = self.best(grids.confident, lambda v: _set(weights, tasks, confident=v), tasks, larger=True)
            weights = _set(weights, tasks, confident=tau)
        steps["+confident rule"] = self.mean(weights)
        for task in everything:
            if len(self.answers[task]) >= min_val:
                now = (weights[task].head, weights[task].windows)
                h, v = max(itertools.product(grids.head, grids.windows), key=lambda hv: (
                    self.mean(_set(weights, [task], head=hv[0], windows=hv[1]), [task]), hv == now, hv[0], -hv[1]))
                weights = _set(weights, [task], head=h, windows=v)
        steps["+per-task head and window weights"] = self.mean(weights)
        for view in sorted({view for p in self.parts.values() for view in p.readers}):
            weights = self._reader_weights(weights, view, grids, min_val)
            steps[f"+{view.replace('_', ' ')}"] = self.mean(weights)
        return self._with_val_scores(weights), {k: round(v, 4) for k, v in steps.items()}

    def add_view(self, weights: dict, view: str, grids: Grids, min_val: int) -> tuple[dict, float]:
        """(`weights` with a reader view given after the others (its val scores already in `parts`) weighted as
        choose weights each view, the val scores recorded; the val mean after it)."""
        weights = self._reader_weights(weights, view, grids, min_val)
        return self._with_val_scores(weights), round(self.mean(weights), 4)

    def _windows_per_task(self, weights: dict, grid: tuple, min_val: int) -> dict:
        """One window weight for all tasks, then its own for each task with at least min_val val examples."""
        everything = list(self.parts)
        g = self.best(grid, lambda v: _set(weights, everything, windows=v))
        weights = _set(weights, everything, windows=g)
        for task in everything:
            if len(self.answers[task]) >= min_val:
                v = self.best(grid, lambda v: _set(weights, [task], windows=v), [task], prefer=g)
                weights = _set(weights, [task], windows=v)
        return weights

    def _reader_weights(self, weights: dict, view: str, grids: Grids, min_val: int) -> dict:
        """A reader view's weight for all tasks that have it, then for each such task with at least min_val val
        examples its own, chosen together with the task's head weight."""
        tasks = [t for t, p in self.parts.items() if view in p.readers]
        u = self.best(grids.readers, lambda v: _set_reader(weights, tasks, view, v), tasks)
        weights = _set_reader(weights, tasks, view, u)
        for task in tasks:
            if len(self.answers[task]) >= min_val:
                now = (weights[task].head, weights[task].readers.get(view, 0.0))
                h, v = max(itertools.product(grids.head, grids.readers), key=lambda hv: (
                    self.mean(_set_reader(_set(weights, [task], head=hv[0]), [task], view, hv[1]), [task]),
                    hv == now, hv[0], -hv[1]))
                weights = _set_reader(_set(weights, [task], head=h), [task], view, v)
        return weights

    def _with_val_scores(self, weights: dict) -> dict:
        final = combined_scores(self.parts, weights)
        out = {}
        for task, w in weights.items():
            head = self.accuracy(task, task_scores(self.parts[task], Weights()))
            out[task] = replace(w, val={"n": len(self.answers[task]), "heads": round(head, 4),
                                        "combined": round(self.accuracy(task, final[task]), 4)})
        return out


def _set(weights: dict, tasks: list[str], **values) -> dict:
    return {task: replace(w, **values) if task in tasks else w for task, w in weights.items()}


def _set_reader(weights: dict, tasks: list[str], view: str, value: float) -> dict:
    return {task: replace(w, readers={**w.readers, view: value}) if task in tasks else w
            for task, w in weights.items()}
