"""Shared pieces of the CaselawQA methods: grouping by task, opinion keys, scores and the majority answer."""
from __future__ import annotations

import hashlib
import itertools
from collections import Counter

import numpy as np

from baselines.core import progress
from baselines.methods import checkpoint
from baselines.core.dask_client import dask_client
from baselines.core.records import ChoiceItem
from baselines.methods.majority import most_frequent


def by_task(records: list, key=lambda item: item.group) -> dict[str, list]:
    """Records (or anything `key` maps to a task name) grouped by task, in first-seen order."""
    groups: dict[str, list] = {}
    for item in records:
        groups.setdefault(key(item), []).append(item)
    return groups


def opinion_keys(records: list[ChoiceItem]) -> list[str]:
    """A content digest of each record's opinion, computed once per distinct string object."""
    memo: dict[int, str] = {}
    keys = []
    for item in records:
        key = memo.get(id(item.context))
        if key is None:
            key = hashlib.sha1(item.context.encode("utf-8")).hexdigest()
            memo[id(item.context)] = key
        keys.append(key)
    return keys


def unique_opinions(records: list[ChoiceItem]) -> tuple[list[str], list[str], list[int]]:
    """(distinct keys, their texts, row of each record in that list)."""
    keys = opinion_keys(records)
    position: dict[str, int] = {}
    texts: list[str] = []
    rows = []
    for key, item in zip(keys, records):
        if key not in position:
            position[key] = len(texts)
            texts.append(item.context)
        rows.append(position[key])
    return list(position), texts, rows


def train_shares(first_answers: list[int], n_choices: int) -> np.ndarray:
    """(n_choices,) share of each choice among the first answers, each count smoothed by +0.5."""
    counts = np.bincount(np.asarray(first_answers, dtype=np.int64), minlength=n_choices)[:n_choices] + 0.5
    return counts / counts.sum()


def majority_choice(counts: Counter, n_choices: int) -> int:
    """The most frequent answer (ties: the smaller index, as every majority floor); choice 0 without answers."""
    return most_frequent(counts) if counts and n_choices else 0


def frequency_scores(counts: Counter, n_choices: int) -> list[float]:
    """Per-choice answer frequencies (sums to 1, or all zero without answers)."""
    total = sum(counts.values()) or 1
    return [round(counts.get(k, 0) / total, 6) for k in range(n_choices)]


def prediction_rows(items: list[ChoiceItem], scores: np.ndarray, extra: dict | None = None) -> list[dict]:
    """{"id", "prediction", "scores"} rows: the highest-scoring choice's label and every choice's score."""
    rows = []
    for item, row in zip(items, scores):
        best = int(np.argmax(row))
        out = {"id": item.id, "prediction": item.labels[best], "scores": [round(float(s), 6) for s in row]}
        if extra:
            out.update(extra)
        rows.append(out)
    return rows


def capped_weights(first_answers: list[int]) -> np.ndarray:
    """Example weights that cap the majority class at half the total, as Lawma built its test sets."""
    answers = np.asarray(first_answers)
    weights = np.ones(len(answers), dtype=np.float64)
    if len(answers) <= 10:
        return weights
    values, counts = np.unique(answers, return_counts=True)
    top = values[np.argmax(counts)]
    majority, others = counts.max(), len(answers) - counts.max()
    if majority > others > 0:
        weights[answers == top] = others / majority
    return weights


BACKENDS = ("loky", "threading", "sequential", "dask")


def run_parallel(calls, n_jobs: int = 1, backend: str = "loky", scheduler: str | None = None, *,
                 total: int | None = None, desc: str = "fitting per-task heads", weights: list[int] | None = None,
                 shared: list | tuple = ()) -> list:
    """Run joblib `delayed` calls locally, or on a Dask cluster (backend 'dask', scheduler 'tcp://host:port');
    the results in the order of the calls.

    A bar named `desc` counts the finished calls (tasks); with their number (`total`, or the length of `calls`)
    it also shows the time left. With `weights` (the examples of each call, in order) it counts examples instead,
    so the time left follows the work done, not the number of tasks (the largest come first), and says how many
    tasks are done. The calls are dispatched as before (a generator is not read ahead). On a Dask cluster, the
    `shared` objects (matrices that every call takes whole) are sent to every worker once, before the calls.

    Inside a training being checkpointed (methods/checkpoint.py), each result is kept as it comes back, and the
    calls a killed run finished are not run again: their kept results take their place."""
    from baselines.core.errors import BaselinesError

    if backend not in BACKENDS:
        raise BaselinesError(f"unknown backend {backend!r}; valid: {', '.join(BACKENDS)}")
    total = len(calls) if total is None and hasattr(calls, "__len__") else total
    stage = checkpoint.active().stage(desc) if checkpoint.active() is not None and total is not None else None
    kept = stage.finished(total) if stage is not None else {}
    todo = [index for index in range(total or 0) if index not in kept] if stage is not None else None
    pending = (call for index, call in enumerate(calls) if index not in kept) if kept else calls
    if kept:
        progress.say(f"{desc}: {len(kept)} of {total} tasks done by the run that was stopped, kept")
    reader = _Results(desc, total, weights, kept, stage)
    if backend != "dask":
        from joblib import Parallel

        jobs = 1 if backend == "sequential" else n_jobs
        results = Parallel(n_jobs=jobs, backend="threading" if backend == "threading" else "loky",
                           pre_dispatch="n_jobs", return_as="generator")(pending)
        return reader.read(results, todo)
    from joblib import Parallel, parallel_config

    client = dask_client(scheduler, "backend 'dask'")
    try:
        with parallel_config(backend="dask", client=client, scatter=list(shared) or None):
            results = Parallel(n_jobs=-1, pre_dispatch="2*n_jobs", return_as="generator")(pending)
            return reader.read(results, todo)
    finally:
        client.close()


class _Results:
    """Reads the results of run_parallel through a bar (of tasks, or of examples when each call's `weights` are
    given, with the tasks done beside), keeps each in the checkpoint `stage`, and puts them with the `kept` ones
    in the order of the calls."""

    def __init__(self, desc: str, total: int | None, weights: list[int] | None, kept: dict, stage):
        self.desc, self.total, self.weights, self.kept, self.stage = desc, total, weights, kept, stage

    def read(self, results, todo: list[int] | None) -> list:
        order = todo if todo is not None else itertools.count()
        out = dict(self.kept)
        left = self.total - len(self.kept) if self.total is not None else None
        if self.weights is None:
            bar = progress.bar(desc=self.desc, total=left, unit="task")
        else:
            bar = progress.bar(desc=self.desc, total=sum(w for i, w in enumerate(self.weights) if i not in self.kept),
                               unit="example")
        with bar:
            for index, result in zip(order, results):
                if self.stage is not None:
                    self.stage.save(index, result)
                out[index] = result
                if self.weights is not None:  # before the update, so the line it may write says it
                    bar.set_postfix_str(f"{len(out)} of {self.total} tasks")
                bar.update(1 if self.weights is None else self.weights[index])
        return [out[index] for index in sorted(out)]
