"""Every system scored on a task side by side: leaderboard rows, paired tests against a reference, breakdowns.

Systems are the runs under `results/<task>/<system>/<run>/` (results.json + samples.jsonl), ours and
external (LLM) alike, chosen by the fields of their `variant` (split or test file, cross-validation,
segmenter), never by file names. Only runs computed on the same references (the same ids and gold
answers, by digest) as the reference system are compared; the others are left out with a note.
Every figure shown is recomputed from each run's samples with the evaluator's functions, and a run whose
results file states other figures is left out with a note naming it (systems.py); paired statistics
(paired.py) use the same metric functions as scoring. A run whose folder changed after it was written (any
field of results.json, by its digest: cost, producer and command as well as figures; or a file it lists) is
left out with a note naming it (`check_unchanged`).

Runs scored with --only-present or --missing failed-wrong (partial: some references skipped) are scored on the
items they kept only, so they rank after the runs on every reference, are the reference only when named or when no
full run is there, and `compare` shows the share of all items they answered (not their coverage, which is over the
items they scored).
"""
from __future__ import annotations

from collections import Counter
from os import PathLike
from pathlib import Path

from baselines.comparison.compared import Compared
from baselines.comparison.markdown import to_markdown
from baselines.comparison.paired import Paired, paired_all
from baselines.comparison.render import COMPARE_MANIFEST
from baselines.comparison.systems import System, load_system
from baselines.core.errors import BaselinesError, DataError, unknown_name
from baselines.core.io import read_json
from baselines.core.params import check_option
from baselines.core.paths import models_root, results_root
from baselines.core.safe_write import write_output_folder
from baselines.runs.results_store import RESULTS_DIGEST, Variant, changed_since_written, pending_runs, run_files
from baselines.registry import ItemsFromPredictions, Task, get_task


class Comparison(Compared):
    """Everything `baselines compare` shows and writes, with its Markdown and a file it can be saved into."""

    def to_markdown(self) -> str:
        """The leaderboard (with the command behind each run), notes and breakdowns as Markdown: what
        `baselines compare --markdown-only` prints."""
        return to_markdown(self)

    def __str__(self) -> str:
        return self.to_markdown()

    __repr__ = __str__  # a comparison shown in a REPL or notebook is its table, not every sample of every run

    def save(self, path) -> Path:
        """Write to_markdown() into the file `path`, replaced whole (never half-written), through the same checks as
        `baselines compare --out`: a file already there is replaced only when this program wrote it (listed by the
        folder's compare_manifest.json); anything else, a link included, is refused. Returns the path."""
        if not isinstance(path, (str, PathLike)):
            given = "None" if path is None else f"a value of type {type(path).__name__}"
            raise BaselinesError(f"path must be a path (str or os.PathLike), not {given}")
        target = Path(path)
        if target.resolve().is_dir():
            raise BaselinesError(f"{target} is a folder: save writes one Markdown file, "
                                 f"e.g. {target / (self.task.name + '.md')}")
        data = (self.to_markdown() + "\n").encode("utf-8")
        write_output_folder(target.parent, {target.name: data}, COMPARE_MANIFEST, "Comparison.save")
        return target


def compare(task_name: str, results_dir=None, split: str | None = None, against: str | None = None,
            replicates: int = 1000, seed: int = 0, segmenter: str | None = None,
            test_file: str | None = None, only: list[str] | None = None) -> Comparison:
    """Load the runs of a task on one set of references and compare each system with the reference.

    `split` (default: the task's eval split) or `test_file` (a file name) chooses the runs; `segmenter`
    None keeps runs on gold sentences, a name keeps end-to-end runs with that segmenter, "any" both;
    `only` keeps the named systems (folder names under results/<task>/)."""
    task = get_task(task_name)
    test_file = Path(test_file).name if test_file else None  # runs record the file's name only
    check_option("replicates", replicates, "--replicates")
    check_option("seed", seed, "--seed")
    split = split or task.eval_split
    systems, notes = collect(task, results_dir, split, segmenter, test_file, only)
    systems, miscounted = check_skipped(task, systems)
    systems, changed = check_unchanged(task, systems)
    systems.sort(key=lambda s: (s.partial, s.overlap_note is not None, -s.value, s.name))  # in-sample runs last
    reference, more = choose_reference(systems, against)
    systems, left_out = same_references(systems, reference)
    paired, paired_notes = paired_all(task, reference, systems, replicates, seed)
    notes += [note for system in systems for note in system.notes] + extractor_notes(systems)
    return Comparison(task, test_file or split, reference, systems, paired,
                      notes + changed + more + left_out + miscounted + paired_notes, replicates, seed)


def extractor_notes(systems: list[System]) -> list[str]:
    """A note when raw generations were read by different versions of the extractor's rules."""
    versions = {s.name: s.result.get("extractor_version") for s in systems if s.producer != "ours"}
    if len(set(versions.values())) < 2:
        return []
    shown = ", ".join(f"{name} ({version})" for name, version in sorted(versions.items()))
    return [f"generations were read by different extractor versions: {shown}; score them again to compare "
            "like with like"]


def collect(task: Task, results_dir, split: str, segmenter: str | None = None, test_file: str | None = None,
            only: list[str] | None = None) -> tuple[list[System], list[str]]:
    """Systems whose runs match the wanted variant; an unreadable run is named in a note and skipped."""
    files, notes, systems = run_files(task.name, results_dir), [], []
    pending = pending_runs(task.name, results_dir)
    if only and (files or pending):
        known = {path.parent.parent.name for path in files} | {folder.parent.name for folder in pending}
        unknown = [name for name in only if name not in known]
        if unknown:
            raise unknown_name("system (--systems)", unknown[0], known)
        files = [path for path in files if path.parent.parent.name in only]
    notes += [f"left out {folder}: {why}" for folder, why in pending.items() if not only or folder.parent.name in only]
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
    variant = Variant.from_dict(variant)
    if test_file is not None:
        if variant.test_file != test_file:
            return False
    elif variant.split != split or variant.test_file:
        return False
    if segmenter == "any":
        return True
    return variant.segmenter == (Path(segmenter).name if segmenter else None)


def display_name(system: str, result: dict) -> str:
    """The system, with its variant when that is not the plain one: 'learned (cv5)', 'bilstm_crf (e2e rule)'."""
    variant = Variant.from_dict(result["variant"])
    marks = [f"cv{variant.cv}" + (f" seed {variant.seed}" if variant.seed else "") if variant.cv else "",
             f"e2e {variant.segmenter}" if variant.segmenter else ""]
    marks = [mark for mark in marks if mark]
    return system + (f" ({', '.join(marks)})" if marks else "")


def same_references(systems: list[System], reference: System) -> tuple[list[System], list[str]]:
    """The systems scored on the reference's references; a note for each one left out."""
    kept = [s for s in systems if digest(s) == digest(reference)]
    notes = [f"left out {s.name}: scored on other references ({s.figures['n']} items, digest "
             f"{digest(s)}) than {reference.name} ({digest(reference)})" for s in systems if s not in kept]
    return kept, notes


def check_skipped(task: Task, systems: list[System]) -> tuple[list[System], list[str]]:
    """The systems, less partial runs whose items and skipped references do not add up to the items of the
    full runs on the same references (where there is one; not when items are made from the predictions: their
    count is not that of the references)."""
    if task.capability(ItemsFromPredictions) is not None:
        return systems, []
    total = {digest(s): s.figures["n"] for s in systems if not s.partial}
    wrong = [s for s in systems if s.partial and total.get(digest(s), s.figures["n"] + s.figures["skipped"])
             != s.figures["n"] + s.figures["skipped"]]
    notes = [f"left out {s.path.parent}: it says {s.figures['skipped']} references were skipped besides its "
             f"{s.figures['n']} items, but they hold {total[digest(s)]} items (hand-edited file?)" for s in wrong]
    return [s for s in systems if s not in wrong], notes


def check_unchanged(task: Task, systems: list[System]) -> tuple[list[System], list[str]]:
    """The systems whose run folder is as this tool wrote it: the whole of results.json (its digest: cost, producer,
    command and provenance too, not only the figures recomputed from the samples) and every file it lists. Each run
    left out is named in a note; so is each run written before results files carried their digest, shown but
    checked by its figures and files alone, and never the default reference while a checked run is there."""
    kept, notes = [], []
    for system in systems:
        changed = changed_since_written(system.path.parent, system.result)
        if changed:
            notes.append(f"left out {system.path.parent}: {changed}; score or evaluate it again")
            continue
        kept.append(system)
        if RESULTS_DIGEST not in system.result["meta"]:
            notes.append(f"{system.path}: written without a {RESULTS_DIGEST} (an earlier release): its figures are "
                         "recomputed from its samples, but what else it says (producer, cost, command) cannot be "
                         "checked; score or evaluate it again to check it")
    if not kept:
        raise BaselinesError(f"no run of {task.name} is left to compare: {'; '.join(notes)}")
    return kept, notes


def unchecked(system: System) -> bool:
    """A run whose results.json carries no digest (an earlier release's): nothing but its figures is checked."""
    return RESULTS_DIGEST not in system.result["meta"]


def digest(system: System) -> str | None:
    """The references digest a run was scored on."""
    return system.result["variant"].get("references")


def choose_reference(systems: list[System], against: str | None) -> tuple[System, list[str]]:
    """The named system (its display name or folder name), else among the runs on the most common references
    (the full split, when subsets were also scored): the best of ours on every reference, else the best run on
    every reference, else the best partial run of ours, else the best partial run; a run written with
    --allow-overlap (scored on items its model was fit on) only when there is no other."""
    if against:
        named = [s for s in systems if s.name == against] or [s for s in systems if s.path.parent.parent.name == against]
        if named:
            return named[0], []
        raise unknown_name("system (--against)", against, [s.name for s in systems])
    common = most_common_references(systems)
    pool = sorted((s for s in systems if digest(s) == common),  # stable: best first within each kind
                  key=lambda s: (s.partial, s.overlap_note is not None, s.external, unchecked(s)))  # in-sample last
    if not pool[0].external:
        return pool[0], []
    partial = any(not s.external for s in pool)  # ours, but scored with --only-present
    return pool[0], [f"no classical method has results{' on every reference' if partial else ''}: "
                     "the reference is the best system"]


def most_common_references(systems: list[System]) -> str:
    """The references digest most systems were scored on (ties: the one with more items)."""
    counts = Counter(digest(s) for s in systems)
    size = {digest(s): s.figures["n"] + s.figures["skipped"] for s in systems}
    return max(counts, key=lambda common: (counts[common], size[common]))
