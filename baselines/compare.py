"""Every system scored on a task side by side: leaderboard rows, paired tests against a reference, breakdowns.

Systems are the results files `models/<task>/<system>/<split>.results.json` (and cross-validated
`<split>.cvK.results.json`), ours and external (LLM) alike. Per-item outcomes are rebuilt from the
`<split>.samples.jsonl` beside each file, so paired statistics use the same metric functions as scoring.

Paired comparison of a system B with the reference A runs on the ids both were scored on:
the difference metric(B) - metric(A); a paired bootstrap that applies the same resampling weights to
both (items, or documents for RR; within CaselawQA tasks), giving a percentile 95% interval and the
two-sided p-value min(1, 2 min(#{d <= 0} + 1, #{d >= 0} + 1) / (B + 1)), which is exactly 1 for
identical systems; and, for accuracy-type tasks, McNemar's exact test on item correctness.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.special import bdtr

from . import metrics as M
from .errors import DataError, BaselinesError, unknown_name
from .io import open_text, read_json, read_jsonl
from .run import models_root
from .tasks import Task, get_task

RESULT_KEYS = ("task", "method", "split", "n", "coverage", "metrics", "main_metric", "interval", "meta")
SAMPLE_KEYS = ("id", "gold", "answer", "correct")
ACCURACY_TYPE = ("accuracy", "mean_task_accuracy")


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
    def external(self) -> bool:
        return self.result.get("meta", {}).get("method") == "external"

    @property
    def value(self) -> float:
        return float(self.result["metrics"][self.result["main_metric"]])

    def take(self, ids: np.ndarray) -> dict[str, np.ndarray]:
        """The outcome arrays restricted to `ids` (all present), in that order."""
        if ids is self.ids or np.array_equal(ids, self.ids):
            return {key: getattr(self, key) for key in ("group", "gold", "answer", "answered", "correct")}
        order = np.argsort(self.ids)
        at = order[np.searchsorted(self.ids, ids, sorter=order)]
        return {key: getattr(self, key)[at] for key in ("group", "gold", "answer", "answered", "correct")}


@dataclass
class Paired:
    """A system against the reference on the ids both were scored on."""

    shared: int
    difference: float
    interval: tuple[float, float]
    p_bootstrap: float
    p_mcnemar: float | None


@dataclass
class Report:
    """Everything `baselines compare` shows and writes."""

    task: Task
    split: str
    reference: System
    systems: list[System]  # best main metric first
    paired: dict[str, Paired]
    notes: list[str] = field(default_factory=list)
    replicates: int = 1000


def compare(task_name: str, models_dir=None, split: str | None = None, against: str | None = None,
            replicates: int = 1000, seed: int = 0) -> Report:
    """Load every results file of a task split and compare each system with the reference."""
    task = get_task(task_name)
    if replicates < 1:
        raise BaselinesError(f"--replicates must be at least 1, got {replicates}")
    split = split or task.eval_split
    systems = sorted(collect(task, models_dir, split), key=lambda s: (-s.value, s.name))
    reference, notes = choose_reference(systems, against)
    paired, more = paired_all(task, reference, systems, replicates, seed)
    return Report(task, split, reference, systems, paired, notes + more, replicates)


def collect(task: Task, models_dir, split: str) -> list[System]:
    """Systems from models/<task>/*/<split>[.cvK].results.json; any unreadable file is an error."""
    root = models_root(models_dir) / task.name
    pattern = re.compile(re.escape(split) + r"(\.cv\d+)?\.results\.json")
    files = sorted(path for path in root.glob("*/*.results.json") if pattern.fullmatch(path.name))
    if not files:
        raise BaselinesError(f"no {split!r} results for {task.name} under {root}; "
                             "run `baselines eval` or `baselines score` first")
    systems = []
    for path in files:
        fold = pattern.fullmatch(path.name).group(1)
        systems.append(load_system(task, path, path.parent.name + (f" ({fold[1:]})" if fold else "")))
    return systems


def load_system(task: Task, path: Path, name: str) -> System:
    """A results file and the samples beside it, checked against each other."""
    result = read_json(path)
    problem = _schema_problem(result, task)
    if problem:
        raise DataError(f"{problem}; written by another version? Re-run the evaluation to regenerate it", path)
    samples_path = path.with_name(path.name[: -len(".results.json")] + ".samples.jsonl")
    if not samples_path.is_file():
        raise DataError(f"no per-item file {samples_path.name} beside it (older version?); re-run the evaluation",
                        path)
    rows = _read_samples(samples_path)
    for line, row in rows:
        absent = [key for key in SAMPLE_KEYS if key not in row]
        if absent or not isinstance(row["gold"], list) or not (row["correct"] or row["gold"]):
            raise DataError(f"unknown samples schema (missing or bad {', '.join(absent) or 'gold'})",
                            samples_path, line)
    rows = [row for _, row in rows]
    if len(rows) != result["n"]:
        raise DataError(f"{len(rows)} samples but the results file says n={result['n']} (stale file?)", samples_path)
    system = System(
        name=name, path=path, result=result,
        ids=np.array([str(r["id"]) for r in rows], dtype=str),
        group=np.array([str(r.get("group") or "") for r in rows], dtype=str),
        gold=np.array([r["answer"] if r["correct"] else r["gold"][0] for r in rows], dtype=str),
        answer=np.array([r["answer"] if r["answer"] is not None else "" for r in rows], dtype=str),
        answered=np.array([r["answer"] is not None for r in rows], dtype=bool),
        correct=np.array([bool(r["correct"]) for r in rows], dtype=bool),
    )
    _check_consistent(task, system, samples_path)
    return system


def _read_samples(path: Path) -> list[tuple[int, dict]]:
    """Numbered rows of a samples file: parsed in one call, or line by line to name a bad line."""
    with open_text(path) as handle:
        lines = [line for line in handle.read().splitlines() if line.strip()]
    try:
        rows = json.loads("[" + ",".join(lines) + "]")
    except json.JSONDecodeError:
        return list(read_jsonl(path))
    if not all(isinstance(row, dict) for row in rows):
        return list(read_jsonl(path))
    return list(enumerate(rows, start=1))  # line numbers of non-blank lines


def _schema_problem(result, task: Task) -> str | None:
    if not isinstance(result, dict):
        return "not a results object"
    absent = [key for key in RESULT_KEYS if key not in result]
    if absent:
        return f"unknown results schema (no {', '.join(absent)})"
    if result["task"] != task.name:
        return f"results of task {result['task']!r}, not {task.name!r}"
    if result["main_metric"] != task.main_metric or task.main_metric not in (result["metrics"] or {}):
        return f"main metric {result['main_metric']!r}, but {task.name} is scored by {task.main_metric!r}"
    if not isinstance(result["interval"], list) or len(result["interval"]) != 2 or not result["n"]:
        return "unknown results schema (interval or n)"
    return None


def _check_consistent(task: Task, system: System, samples_path: Path) -> None:
    if len(np.unique(system.ids)) != len(system.ids):
        raise DataError("duplicate ids in the samples", samples_path)
    (out,) = outcomes_on(task, [system], system.ids)
    rebuilt = M.point(task.main_metric, out)
    if abs(rebuilt - system.value) > 1e-9:
        raise DataError(f"the samples give {task.main_metric}={rebuilt:.6f} but the results file says "
                        f"{system.value:.6f} (files from different runs?)", samples_path)


def choose_reference(systems: list[System], against: str | None) -> tuple[System, list[str]]:
    """The named system, else the best of ours (meta.method != "external"), else the best of all."""
    if against:
        for system in systems:
            if system.name == against:
                return system, []
        raise unknown_name("system (--against)", against, [s.name for s in systems])
    ours = [s for s in systems if not s.external]
    if ours:
        return ours[0], []
    return systems[0], ["no classical method has results: the reference is the best system"]


def paired_all(task: Task, reference: System, systems: list[System], replicates: int,
               seed: int) -> tuple[dict[str, Paired], list[str]]:
    """Paired statistics of every system against the reference, one bootstrap per distinct shared-id set."""
    by_ids: dict[tuple, tuple[np.ndarray, list[System]]] = {}
    notes = []
    for system in systems:
        if system is reference:
            continue
        same = np.array_equal(reference.ids, system.ids)
        shared = reference.ids if same else np.intersect1d(reference.ids, system.ids)
        if len(shared) == 0:
            notes.append(f"{system.name}: no ids in common with {reference.name}; not compared")
            continue
        if len(shared) < max(len(reference.ids), len(system.ids)):
            notes.append(f"{system.name}: compared with {reference.name} on the {len(shared)} ids both were "
                         f"scored on ({system.name} has {len(system.ids)}, {reference.name} {len(reference.ids)})")
        by_ids.setdefault(("same",) if same else tuple(shared.tolist()), (shared, []))[1].append(system)
    paired = {}
    for shared, members in by_ids.values():
        outs = outcomes_on(task, [reference, *members], shared)
        for system, result in zip(members, paired_stats(task, outs, replicates, seed)):
            paired[system.name] = result
    return paired, notes


def outcomes_on(task: Task, systems: list[System], ids: np.ndarray) -> list[M.Outcomes]:
    """Outcomes of each system on `ids`, sharing label, group and unit indexes so one weight matrix fits all."""
    picked = [system.take(ids) for system in systems]
    labels = np.unique(np.concatenate([np.unique(p[key][p["answered"]] if key == "answer" else p[key])
                                       for p in picked for key in ("gold", "answer")]))
    first = picked[0]
    groups, group = np.unique(first["group"], return_inverse=True)
    documents = not task.grouped and bool((first["group"] != "").any())  # RR: resample whole documents
    unit = group if documents else np.arange(len(ids))  # ids are unique (checked on loading)
    outs = []
    for p in picked:
        pred = np.where(p["answered"], np.searchsorted(labels, p["answer"]), M.NO_ANSWER)
        outs.append(M.Outcomes(np.searchsorted(labels, p["gold"]).astype(np.int64), pred.astype(np.int64),
                               p["correct"], group.astype(np.int64), unit.astype(np.int64),
                               labels.tolist(), groups.tolist()))
    return outs


def paired_stats(task: Task, outs: list[M.Outcomes], replicates: int, seed: int) -> list[Paired]:
    """Each of outs[1:] against outs[0] with the same bootstrap weights for both."""
    metric = M.METRICS[task.main_metric]
    base, others = outs[0], outs[1:]
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
    """Groups (CaselawQA tasks) among `ids`, their sizes, and the system's accuracy in each."""
    picked = system.take(ids)
    groups, index = np.unique(picked["group"], return_inverse=True)
    n = np.bincount(index, minlength=len(groups))
    right = np.bincount(index, weights=picked["correct"].astype(np.float64), minlength=len(groups))
    return groups.tolist(), n, right / n
