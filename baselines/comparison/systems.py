"""A scored system as `compare` sees it: one run's results file and samples, checked, every figure recomputed.

Every figure `compare` shows (each metric, the share of all items answered, the main metric's bootstrap interval, the per-label,
per-group and per-supergroup tables) is recomputed from samples.jsonl with the evaluator's functions
(metrics.py, evaluate.per_group and per_supergroup) and only the recomputed figures are shown. A run is
refused (DataError) when a sample's `correct` is not `answer in gold` (naming the samples file and line),
or when a figure its results file states differs from the recomputed one by more than 1e-9 (naming the
results file and the figure). The interval is recomputed with the evaluator's replicates and seed, so it
matches the one a run of this version wrote exactly; as the bootstrap's draws may change with numpy, a
differing stored interval is only flagged in `System.notes`, never refused, and never shown.

A run scored with --only-present (missing policy "skip") holds only the items it answered, and one scored with
--missing failed-wrong only those and its failed requests: it is `partial`. `compare` shows the share of all items
answered, answered / (n + skipped), not the run's coverage (the share of its scored items answered, as `score`
states it); the two differ only for a partial run. Failed requests (a batch file's errored lines) are counted
apart ("failed"), among the missing. Unless its task makes the scored
items from the predictions (ItemsFromPredictions), a run's samples must be exactly the references its
variant names (by digest) unless it skipped some, so a subset cannot pass for a full run.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from numbers import Real
from pathlib import Path

import numpy as np

from baselines.core.errors import DataError
from baselines.evaluation.reading import strict_rule
from baselines.evaluation.scoring import figures, skipped_count, stated_failed
from baselines.evaluation.strict_reading import strict_metrics
from baselines.core.io import read_json
from baselines.comparison.outcomes import outcomes_on
from baselines.comparison.run_schema import read_samples, sample_problem, schema_problem
from baselines.core.records import Reference
from baselines.runs.overlap import overlap_note
from baselines.runs.results_store import SAMPLES_FILE, references_digest
from baselines.registry import ItemsFromPredictions, Task

TABLES = ("per_label", "per_group", "per_supergroup")
TOLERANCE = 1e-9


@dataclass
class System:
    """One results file, its per-item outcomes (arrays aligned with `ids`) and the figures recomputed from them."""

    name: str
    path: Path
    result: dict  # the results file as written: provenance, producer, variant; its figures are never shown
    ids: np.ndarray  # (n,) str
    group: np.ndarray  # (n,) str: the item's group (see Reference.group), "" for none
    gold: np.ndarray  # (n,) str: the label the item is scored against
    answer: np.ndarray  # (n,) str, "" where no answer was found
    answered: np.ndarray  # (n,) bool
    correct: np.ndarray  # (n,) bool
    strict: np.ndarray  # (n,) bool: the answer stands under the strict reading (evaluation/strict_reading.py)
    figures: dict = field(default_factory=dict)  # n, metrics, interval, all_items_answered, missing, failed, skipped, tables
    notes: list[str] = field(default_factory=list)  # what the recomputation flagged without refusing the run

    @property
    def producer(self) -> str:
        """'ours', 'llm' or 'other', as recorded when the run was scored (results files of earlier releases
        call it "kind")."""
        recorded = self.result.get("producer") or self.result.get("kind")
        return recorded or ("other" if self.result.get("meta", {}).get("method") == "external" else "ours")

    @property
    def external(self) -> bool:
        return self.producer != "ours"

    @property
    def value(self) -> float:
        """The main metric, recomputed from the samples."""
        return self.figures["metrics"][self.result["main_metric"]]

    @property
    def overlap_note(self) -> str | None:
        """How much of what it was scored on its model was fit on, for a run written past the limit with
        --allow-overlap (baselines.runs.overlap); None for any other run."""
        return overlap_note(self.result.get("meta", {}).get("train_overlap"))

    @property
    def measured_overlap(self) -> float | None:
        """The share of its scored units that its model was fit on, as its run measured it (None: not measured,
        e.g. an LLM's run, a method fit on nothing, or a run of an earlier release)."""
        report = self.result.get("meta", {}).get("train_overlap")
        share = report.get("overlap") if isinstance(report, dict) else None
        return share if isinstance(share, (int, float)) and not isinstance(share, bool) else None

    @property
    def strict_value(self) -> float | None:
        """The main metric under the strict reading, when it differs from the value (None: no raw text, or the
        same)."""
        strict = (self.figures.get("strict") or {}).get(self.result["main_metric"])
        return strict if strict is not None and abs(strict - self.value) > 1e-12 else None

    @property
    def partial(self) -> bool:
        """Scored with --only-present and some references skipped: its figures are on a subset."""
        return self.figures.get("skipped", 0) > 0

    def take(self, ids: np.ndarray, absent=None) -> dict[str, np.ndarray]:
        """The outcome arrays at `ids`, in that order; an id this system lacks takes `absent(id)` (a dict)."""
        keys = ("group", "gold", "answer", "answered", "correct", "strict")
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
        return {key: value.astype(getattr(self, key).dtype if key in ("answered", "correct", "strict") else str)
                for key, value in picked.items()}


def load_system(task: Task, path: Path, name: str, result: dict | None = None) -> System:
    """A results file (`result`: its contents, when already read) and the samples beside it, checked against
    each other, with every figure recomputed from the samples."""
    result = read_json(path) if result is None else result
    problem = schema_problem(result, task)
    if problem:
        raise DataError(f"{problem}; written by another version? Re-run the evaluation to regenerate it", path)
    samples_path = path.with_name(SAMPLES_FILE)
    if not samples_path.is_file():
        raise DataError(f"no per-item file {samples_path.name} beside it (older version?); re-run the evaluation",
                        path)
    numbered = read_samples(samples_path)
    for line, row in numbered:
        problem = sample_problem(row)
        if problem:
            raise DataError(problem, samples_path, line)
    rows = [row for _, row in numbered]
    if len(rows) != result["n"]:
        raise DataError(f"{len(rows)} samples but the results file says n={result['n']} (stale file?)", samples_path)
    system = _system(name, path, result, rows)
    if len(np.unique(system.ids)) != len(system.ids):
        raise DataError("duplicate ids in the samples", samples_path)
    _check_references(task, result, rows, path)
    system.figures = recompute(task, system, rows)
    _check_figures(result, system, path)
    return system


def _system(name: str, path: Path, result: dict, rows: list[dict]) -> System:
    return System(
        name=name, path=path, result=result,
        ids=np.array([str(r["id"]) for r in rows], dtype=str),
        group=np.array([str(r.get("group") or "") for r in rows], dtype=str),
        gold=np.array([r["answer"] if r["correct"] else r["gold"][0] for r in rows], dtype=str),
        answer=np.array([r["answer"] if r["answer"] is not None else "" for r in rows], dtype=str),
        answered=np.array([r["answer"] is not None for r in rows], dtype=bool),
        correct=np.array([r["correct"] for r in rows], dtype=bool),
        strict=np.array([r["answer"] is not None and ("rule" not in r or strict_rule(r["rule"])) for r in rows],
                        dtype=bool),
    )


def _check_references(task: Task, result: dict, rows: list[dict], path: Path) -> None:
    """The samples are the references the run names (its variant's digest) unless it skipped some."""
    if task.capability(ItemsFromPredictions) is not None:  # samples are items made from the predictions, the digest is
        return  # over the references they were made from
    skipped, named = _stated_skipped(result), (result.get("variant") or {}).get("references")
    digest = references_digest([Reference(id=str(r["id"]), gold=tuple(r["gold"]), labels=()) for r in rows])
    if skipped and digest == named:
        raise DataError(f"it says {skipped} references were skipped, but the samples hold every reference it "
                        "was scored on (hand-edited file?)", path)
    if not skipped and digest != named:
        raise DataError(f"the samples (references digest {digest}) are not the references it was scored on "
                        f"({named}), and it says none were skipped (hand-edited file?)", path)


def _stated_skipped(result: dict) -> int:
    return skipped_count(result.get("missing", 0), result.get("missing_policy", "error"), stated_failed(result))


def recompute(task: Task, system: System, rows: list[dict]) -> dict:
    """Every figure of a system from its samples (`rows`, aligned with its arrays), with the evaluator's functions.

    `skipped` (references left out by --only-present) and, when items are made from the predictions, `missing`
    (references) are not in the samples: they come from the results file, checked where the samples allow
    (_check_references here, leaderboard.check_skipped against the full runs). A partial run of such a task has no
    share of all items answered: its items are made from the predictions, its skipped references are not items."""
    (out,) = outcomes_on(task, [system], system.ids)
    derived = task.capability(ItemsFromPredictions) is not None
    skipped, stated = _stated_skipped(system.result), system.result.get("missing", 0)
    absent = sum(not row.get("has_prediction", True) for row in rows)
    all_answered = float(system.answered.sum() / (out.n + skipped))
    shown = figures(task, out, rows, metrics=system.result["metrics"])
    return {
        "n": out.n, "skipped": skipped,
        "missing": stated if skipped or derived else absent, "failed": stated_failed(system.result),
        "all_items_answered": None if skipped and derived else all_answered,
        "strict": strict_metrics(out, rows, shown["metrics"]),
        **shown,
    }


def _check_figures(result: dict, system: System, path: Path) -> None:
    """Refuse a results file stating other figures than its samples give; flag a different interval."""
    figures = system.figures
    stated = {"coverage": result["coverage"], "missing": result.get("missing", 0), "metrics": result["metrics"],
              **{table: result[table] for table in TABLES if result.get(table) and figures[table]}}
    recomputed = {"coverage": float(system.answered.mean()), "missing": figures["missing"],  # the evaluator's coverage
                  "metrics": {name: figures["metrics"][name] for name in result["metrics"]},
                  **{table: figures[table] for table in stated if table in TABLES}}
    if isinstance(result.get("strict"), dict) and figures["strict"] is not None:  # runs of earlier releases have none
        stated["strict"] = result["strict"]
        recomputed["strict"] = {name: figures["strict"][name] for name in result["strict"]
                                if name in figures["strict"]}
    difference = first_difference(stated, recomputed)
    if difference:
        figure, said, given = difference
        raise DataError(f"the samples give {figure}={_show(given)} but the results file says {_show(said)} "
                        "(hand-edited, or files from different runs?)", path)
    if first_difference(list(result["interval"]), list(figures["interval"])):
        system.notes.append(f"{path}: the interval it states, {_show(result['interval'])}, is not the one its "
                            f"samples give, {_show(list(figures['interval']))}; the latter is shown")


def first_difference(stated, recomputed, where: str = ""):
    """(figure, stated, recomputed) of the first figure that differs by more than TOLERANCE, or None."""
    if isinstance(stated, dict) and isinstance(recomputed, dict):
        for key in dict.fromkeys([*recomputed, *stated]):
            found = first_difference(stated.get(key), recomputed.get(key), f"{where}.{key}" if where else str(key))
            if found:
                return found
        return None
    if isinstance(stated, list) and isinstance(recomputed, list) and len(stated) == len(recomputed):
        return next((found for k, (a, b) in enumerate(zip(stated, recomputed))
                     if (found := first_difference(a, b, f"{where}[{k}]"))), None)
    numbers = all(isinstance(v, Real) and not isinstance(v, bool) for v in (stated, recomputed))
    if numbers and abs(stated - recomputed) <= TOLERANCE or stated == recomputed:
        return None
    return where, stated, recomputed


def _show(value) -> str:
    if isinstance(value, float):
        return f"{value:.6f}"
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."
