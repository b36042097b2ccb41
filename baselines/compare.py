"""Every system scored on a task side by side: leaderboard rows, paired tests against a reference, breakdowns.

Systems are the runs under `results/<task>/<system>/<run>/` (results.json + samples.jsonl), ours and
external (LLM) alike, chosen by the fields of their `variant` (split or test file, cross-validation,
segmenter), never by file names. Only runs computed on the same references (the same ids and gold
answers, by digest) as the reference system are compared; the others are left out with a note.
Per-item outcomes are rebuilt from each run's samples, so paired statistics (paired.py) use the same
metric functions as scoring.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import metrics as M
from .errors import DataError, BaselinesError, unknown_name
from .io import open_text, read_json, read_jsonl
from .paired import Paired, outcomes_on, paired_all
from .systems import System
from .paths import models_root, results_root
from .results_store import SAMPLES_FILE, run_files
from .tasks import Task, get_task

RESULT_KEYS = ("task", "system", "split", "n", "coverage", "metrics", "main_metric", "interval", "meta")
SAMPLE_KEYS = ("id", "gold", "answer", "correct")


@dataclass
class Comparison:
    """Everything `baselines compare` shows and writes."""

    task: Task
    split: str
    reference: System
    systems: list[System]  # best main metric first
    paired: dict[str, Paired]
    notes: list[str] = field(default_factory=list)
    replicates: int = 1000


def compare(task_name: str, results_dir=None, split: str | None = None, against: str | None = None,
            replicates: int = 1000, seed: int = 0, segmenter: str | None = None,
            test_file: str | None = None, only: list[str] | None = None) -> Comparison:
    """Load the runs of a task on one set of references and compare each system with the reference.

    `split` (default: the task's eval split) or `test_file` (a file name) chooses the runs; `segmenter`
    None keeps runs on gold sentences, a name keeps RR end-to-end runs with that segmenter, "any" both;
    `only` keeps the named systems (folder names under results/<task>/)."""
    task = get_task(task_name)
    test_file = Path(test_file).name if test_file else None  # runs record the file's name only
    if replicates < 1:
        raise BaselinesError(f"--replicates must be at least 1, got {replicates}")
    split = split or task.eval_split
    systems, notes = collect(task, results_dir, split, segmenter, test_file, only)
    systems.sort(key=lambda s: (-s.value, s.name))
    reference, more = choose_reference(systems, against)
    systems, left_out = same_references(systems, reference)
    paired, paired_notes = paired_all(task, reference, systems, replicates, seed)
    return Comparison(task, test_file or split, reference, systems, paired, notes + more + left_out + paired_notes,
                  replicates)


def collect(task: Task, results_dir, split: str, segmenter: str | None = None, test_file: str | None = None,
            only: list[str] | None = None) -> tuple[list[System], list[str]]:
    """Systems whose runs match the wanted variant; an unreadable run is named in a note and skipped."""
    files, notes, systems = run_files(task.name, results_dir), [], []
    if only and files:
        known = {path.parent.parent.name for path in files}
        unknown = [name for name in only if name not in known]
        if unknown:
            raise unknown_name("system (--systems)", unknown[0], known)
        files = [path for path in files if path.parent.parent.name in only]
    for path in files:
        try:
            result = read_json(path)
            if not _wanted(result, split, segmenter, test_file):
                continue
            systems.append(load_system(task, path, display_name(path.parent.parent.name, result), result))
        except DataError as error:
            notes.append(f"left out {path.parent}: {error}")
    if not systems:
        where = f"test file {test_file!r}" if test_file else f"split {split!r}"
        legacy = sorted((models_root() / task.name).glob("*/*.results.json"))
        hint = (f"; {len(legacy)} results files of an older release lie under {models_root() / task.name}: re-run "
                "their `baselines eval` / `baselines score` to write them in the new layout" if legacy else "")
        raise BaselinesError(f"no results for {task.name} on {where} under {results_root(results_dir) / task.name}"
                             f" (run `baselines eval` or `baselines score` first){hint}"
                             + (f"; problems: {'; '.join(notes)}" if notes else ""))
    return systems, notes


def _wanted(result, split: str, segmenter: str | None, test_file: str | None) -> bool:
    variant = result.get("variant") if isinstance(result, dict) else None
    if not isinstance(variant, dict):
        raise DataError("results without a 'variant' (written by an older version?); re-run the evaluation")
    if test_file is not None:
        if variant.get("test_file") != test_file:
            return False
    elif variant.get("split") != split or variant.get("test_file"):
        return False
    if segmenter == "any":
        return True
    return variant.get("segmenter") == (Path(segmenter).name if segmenter else None)


def display_name(system: str, result: dict) -> str:
    """The system, with its variant when that is not the plain one: 'learned (cv5)', 'bilstm_crf (e2e rule)'."""
    variant = result["variant"]
    marks = [f"cv{variant['cv']}" + (f" seed {variant['seed']}" if variant.get("seed") else "")
             if variant.get("cv") else "", f"e2e {variant['segmenter']}" if variant.get("segmenter") else ""]
    marks = [mark for mark in marks if mark]
    return system + (f" ({', '.join(marks)})" if marks else "")


def same_references(systems: list[System], reference: System) -> tuple[list[System], list[str]]:
    """The systems scored on the reference's references; a note for each one left out."""
    digest = reference.result["variant"].get("references")
    kept = [s for s in systems if s.result["variant"].get("references") == digest]
    notes = [f"left out {s.name}: scored on other references ({s.result['n']} items, digest "
             f"{s.result['variant'].get('references')}) than {reference.name} ({digest})"
             for s in systems if s not in kept]
    return kept, notes


def load_system(task: Task, path: Path, name: str, result: dict | None = None) -> System:
    """A results file (`result`: its contents, when already read) and the samples beside it, checked against each other."""
    result = read_json(path) if result is None else result
    problem = _schema_problem(result, task)
    if problem:
        raise DataError(f"{problem}; written by another version? Re-run the evaluation to regenerate it", path)
    samples_path = path.with_name(SAMPLES_FILE)
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
    """The named system (its display name or folder name), else the best of ours among the runs on the
    most common references (the full split, when subsets were also scored), else the best of those."""
    if against:
        named = [s for s in systems if s.name == against] or [s for s in systems if s.path.parent.parent.name == against]
        if named:
            return named[0], []
        raise unknown_name("system (--against)", against, [s.name for s in systems])
    common = most_common_references(systems)
    pool = [s for s in systems if s.result["variant"].get("references") == common]
    ours = [s for s in pool if not s.external]
    if ours:
        return ours[0], []
    return pool[0], ["no classical method has results: the reference is the best system"]


def most_common_references(systems: list[System]) -> str:
    """The references digest most systems were scored on (ties: the one with more items)."""
    from collections import Counter

    counts = Counter(s.result["variant"].get("references") for s in systems)
    size = {s.result["variant"].get("references"): s.result["n"] for s in systems}
    return max(counts, key=lambda digest: (counts[digest], size[digest]))
