"""Reading Lawma's released per-example responses (`<model>/<task>.json`) as predictions rows.

Each file is a JSON list of {"model_response", "id", "ground_truth", ["logprobs"], "prompt_len"}
for one task; `id` is the Caselaw Access Project id of the case (`cap_case_id` in our opinions).
Rows are joined to our references by (task, cap_case_id); rows of cases we have no text for are
counted, not errors. A response becomes one of the item's labels by:

1. stripped of surrounding spaces, it is one of the item's labels (" A" -> "A", " 007" -> "007");
2. it is one non-Latin character (Llama-family runs on tasks with more than 26 choices answer with
   one CJK character per choice): its position k among the row's `logprobs` keys, which follow the
   choice order, gives the item's k-th label;
3. anything else goes, unchanged, to the common reader of raw generations (baselines/evaluation/reading/), which
   may find no answer: the model's miss, counted in coverage.

The row's `ground_truth` is mapped the same way and compared with our gold answer; disagreements
are counted per task in the join report, and a task file disagreeing on more than
GROUND_TRUTH_TOLERANCE of its compared rows is refused (a file of another task, or other references).
Every file is also checked by its cases, and a file with rows without `ground_truth` by the labels of its
responses, and refused when they show another task (lawma_checks.py); a file accepted with rows without
ground truth is named in the join report (`without_ground_truth`).
`logprobs` may be a JSON object or a string holding a Python dict literal; only the order of its keys is
read (rule 2), never its values, so no log-likelihood decides an answer here.
"""
from __future__ import annotations

import ast
import unicodedata
from pathlib import Path
from typing import Iterable

from baselines.core.errors import BaselinesError, DataError
from baselines.core.io import read_json
from baselines.core.records import ChoiceItem
from baselines.evaluation.ground_truth import GROUND_TRUTH_TOLERANCE
from baselines.evaluation.predictions import shown_id
from baselines.tasks.caselawqa.lawma_checks import check_task_files, task_counts

# Share of a task file's compared rows whose ground truth may differ from our gold answers. Measured: Lawma's
# released files agree on every compared row (legalbert 5,039 of 5,039 in 37 files; llama-3-8b-instruct,
# llama-3-70b-instruct and lawma-70b 3,870 of 3,870 in 33 files each: 0% in every file), while a file read as
# another task disagrees on 7% (sc_petitionerstate as sc_respondentstate: 1 of 14) up to 100% of the rows they
# share, and on 27% or more for every pair outside the state tasks. Among sc_adminactionstate,
# sc_caseoriginstate, sc_casesourcestate, sc_petitionerstate and sc_respondentstate, every other pair has the
# same answer on each case both hold: a swap there shows no wrong ground truth and cannot be caught this way
# (the case check of lawma_checks.py catches those but sc_caseoriginstate <-> sc_casesourcestate).
# The share and its test are shared with the harness logs' check: baselines/evaluation/ground_truth.py.


def read_lawma_responses(path: Path, records: list[ChoiceItem], known_tasks: Iterable[str] | None = None,
                         known_cases: Iterable[str] | None = None) -> tuple[list[dict], dict]:
    """Predictions rows for the records joined from `path` (a model folder of <task>.json files, or one
    task file), and the join report. Files of tasks in `known_tasks` (default: the records' tasks) but
    without records are skipped and reported; files of other tasks are errors. `known_cases` are the CAP ids of
    every case of the split (default: the records' cases): a row on one of them that is no example of its task
    is counted apart from rows of cases without text here."""
    path = Path(path)
    files = _task_files(path)
    by_task: dict[str, dict[str, ChoiceItem]] = {}
    for item in records:
        cap = item.meta.get("cap_case_id")
        if cap is not None:
            by_task.setdefault(item.group, {})[str(cap)] = item
    if records and not by_task:
        raise BaselinesError("these CaselawQA references carry no Caselaw Access Project ids (cap_case_id), by "
                             "which Lawma's responses are keyed: use the normalized layout (opinions.jsonl.gz)")
    selected = {item.group for item in records}
    known = set(known_tasks) if known_tasks is not None else selected
    known_cases = ({str(case) for case in known_cases} if known_cases is not None
                   else {cap for items in by_task.values() for cap in items})
    report = _empty_report(path)
    predictions: list[dict] = []
    compared: dict[str, int] = {}
    for task, file in files.items():
        if task not in known:
            raise DataError(f"file of unknown task {task!r} (not a CaselawQA task here; expected "
                            "<task>.json named after a task of tasks.json)", file)
        rows = read_json(file)
        if not isinstance(rows, list):
            raise DataError(f"expected a JSON list of responses, got a JSON {type(rows).__name__}", file)
        if task not in selected:
            report["skipped_files"][task] = len(rows)
            continue
        before = report["ground_truth_compared"]
        predictions.extend(_task_predictions(rows, file, task, by_task.get(task, {}), known_cases, report))
        compared[task] = report["ground_truth_compared"] - before
    _refuse_disagreeing_files(report["ground_truth_disagreements"], compared, files)
    report["without_ground_truth"] = check_task_files(report["per_task"], files)
    if not predictions:
        raise BaselinesError(f"no response in {path} joins a reference of the selected tasks and split: "
                             + join_summary(report))
    return predictions, report


def lawma_predictions(path: Path, records: list[ChoiceItem], load_whole=None) -> tuple[list[dict], dict, str]:
    """`--format lawma` (the task record's hook): predictions rows, join report and default system name (the
    model folder's name, or '<folder>-<task>' for one file). `load_whole` gives the records of the whole split
    when `records` are some of its tasks: files of the others are then skipped, not refused."""
    known_tasks = known_cases = None
    if load_whole is not None:
        whole = load_whole()
        known_tasks = {record.group for record in whole}
        known_cases = {str(record.meta["cap_case_id"]) for record in whole
                       if record.meta.get("cap_case_id") is not None}
    predictions, report = read_lawma_responses(path, records, known_tasks, known_cases)
    folder = path.resolve() if path.is_dir() else path.resolve().parent
    return predictions, report, folder.name if path.is_dir() else f"{folder.name}-{path.stem}"


def _task_files(path: Path) -> dict[str, Path]:
    """Task name -> response file: every <task>.json of a folder, or the one file given."""
    if path.is_file():
        return {path.stem: path}
    if not path.is_dir():
        raise DataError("no such file or folder", path)
    files = {file.stem: file for file in sorted(path.glob("*.json")) if file.is_file()}
    if not files:
        raise DataError("no <task>.json response files in this folder", path)
    return files


def _empty_report(path: Path) -> dict:
    return {"source": path.name, "files": 0, "rows": 0, "joined": 0, "no_case": 0, "no_example": 0,
            "mapped": {"label": 0, "logprobs": 0, "raw": 0}, "ground_truth_compared": 0,
            "ground_truth_disagreements": {}, "without_ground_truth": {}, "skipped_files": {}, "per_task": {}}


def _task_predictions(rows: list, file: Path, task: str, items: dict[str, ChoiceItem], known_cases: set[str],
                      report: dict) -> list[dict]:
    """Predictions rows of one task file, counting joins, mappings and ground-truth checks in `report`, and
    what lawma_checks needs in its per_task counts."""
    out, seen, counts = [], {}, task_counts(len(rows))
    for index, row in enumerate(rows):
        case = _checked_id(row, index, file, seen)
        counts["without_ground_truth"] += "ground_truth" not in row
        item = items.get(case)
        if item is None:
            report["no_example" if case in known_cases else "no_case"] += 1
            counts["other_examples"] += case in known_cases
            continue
        where = (file, index)
        logprobs = _Logprobs(row.get("logprobs"), item, where)
        label, via = _mapped(row["model_response"], item, logprobs)
        report["mapped"][via] += 1
        counts["off_labels"] += via == "raw"
        out.append({"id": item.id, "raw": row["model_response"]} if label is None
                   else {"id": item.id, "prediction": label})
        if "ground_truth" in row:
            _compare_ground_truth(row["ground_truth"], item, logprobs, task, where, report)
    report["files"] += 1
    report["rows"] += len(rows)
    report["joined"] += len(out)
    report["per_task"][task] = {**counts, "joined": len(out)}
    return out


def _checked_id(row, index: int, file: Path, seen: dict[str, int]) -> str:
    """The row's case id as a string; a row that is not a response, or repeats a case, names the file and row."""
    if not isinstance(row, dict):
        raise DataError(f"item [{index}]: expected a JSON object, got {type(row).__name__}", file)
    for key in ("id", "model_response"):
        if row.get(key) is None:
            raise DataError(f"item [{index}]: no {key!r}", file)
    if isinstance(row["id"], (dict, list, bool)):
        raise DataError(f"item [{index}]: 'id' must be a string or number, got {row['id']!r}", file)
    if not isinstance(row["model_response"], str):
        raise DataError(f"item [{index}]: 'model_response' must be a string, got {row['model_response']!r}", file)
    case = str(row["id"])
    if case in seen:
        raise DataError(f"item [{index}]: duplicate id {shown_id(case)} (first at item [{seen[case]}])", file)
    seen[case] = index
    return case


class _Logprobs:
    """A row's `logprobs` keys in choice order, parsed only when a one-character answer needs them."""

    def __init__(self, value, item: ChoiceItem, where: tuple[Path, int]):
        self.value, self.item, self.where = value, item, where
        self._keys: list[str] | None = None

    def keys(self) -> list[str]:
        if self._keys is None:
            self._keys = self._parse()
        return self._keys

    def _parse(self) -> list[str]:
        file, index = self.where
        value = self.value
        if value is None:
            raise DataError(f"item [{index}]: a one-character answer needs 'logprobs' to say which choice it "
                            "stands for, and this row has none", file)
        if isinstance(value, str):
            try:
                value = ast.literal_eval(value)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                raise DataError(f"item [{index}]: 'logprobs' is a string but not a dict literal", file) from None
        if not isinstance(value, dict):
            raise DataError(f"item [{index}]: 'logprobs' must be a dict, got {type(value).__name__}", file)
        if len(value) < len(self.item.labels):
            raise DataError(f"item [{index}]: 'logprobs' has {len(value)} keys for the {len(self.item.labels)} "
                            f"choices of {self.item.group}", file)
        return [str(key).strip() for key in value]


def is_choice_character(token: str) -> bool:
    """One letter of a non-Latin script (a CJK character standing for a choice)."""
    return (len(token) == 1 and token.isalpha() and not token.isascii()
            and "LATIN" not in unicodedata.name(token, ""))


def _mapped(text: str, item: ChoiceItem, logprobs: _Logprobs) -> tuple[str | None, str]:
    """The item's label that a response (or ground truth) stands for, or None (left to the raw-text extractor),
    and how it was found: "label" | "logprobs" | "raw" (rules in the module docstring)."""
    token = text.strip()
    if token in item.labels:
        return token, "label"
    if not is_choice_character(token):
        return None, "raw"
    keys = logprobs.keys()
    position = keys.index(token) if token in keys else len(keys)
    return (item.labels[position], "logprobs") if position < len(item.labels) else (None, "raw")


def _compare_ground_truth(truth, item: ChoiceItem, logprobs: _Logprobs, task: str,
                          where: tuple[Path, int], report: dict) -> None:
    """Count a disagreement when the row's ground truth is not exactly our gold answer(s)."""
    values = truth if isinstance(truth, list) else [truth]
    if not values or not all(isinstance(value, str) for value in values):
        raise DataError(f"item [{where[1]}]: 'ground_truth' must be a string or a list of strings", where[0])
    theirs = {_mapped(value, item, logprobs)[0] for value in values}
    ours = {item.labels[k] for k in item.answer}
    report["ground_truth_compared"] += 1
    if theirs != ours:
        disagreements = report["ground_truth_disagreements"]
        disagreements[task] = disagreements.get(task, 0) + 1


def _refuse_disagreeing_files(disagreements: dict[str, int], compared: dict[str, int],
                              files: dict[str, Path]) -> None:
    """Refuse the task files whose ground truth differs from ours on more than GROUND_TRUTH_TOLERANCE of their
    compared rows, naming each file (with its folder) and its share."""
    over = [(files[task], wrong, compared[task]) for task, wrong in sorted(disagreements.items())
            if wrong > GROUND_TRUTH_TOLERANCE * compared[task]]
    if over:
        shown = ", ".join(f"{file.name} ({wrong:,} of {n:,}, {wrong / n:.1%})" for file, wrong, n in over)
        raise DataError(f"ground truth differs from our gold answers on more than {GROUND_TRUTH_TOLERANCE:.0%} of "
                        f"the compared rows in {shown}: refusing to score (a file of another task under this "
                        "task's name, or references of other data?)", over[0][0].parent)


def join_summary(report: dict) -> str:
    """One line: rows read, joined, left out, ground-truth agreement, files skipped."""
    parts = [f"{_count(report['rows'], 'row')} in {_count(report['files'], 'file')}, {report['joined']:,} joined, "
             f"{report['no_case']:,} for cases without text here"]
    if report["no_example"]:
        parts.append(f"{report['no_example']:,} for (task, case) pairs that are not examples of this split")
    wrong = report["ground_truth_disagreements"]
    if wrong:
        shown = ", ".join(f"{task} {n}" for task, n in sorted(wrong.items()))
        parts.append(f"ground truth differs from ours on {_count(sum(wrong.values()), 'row')} ({shown})")
    elif report["ground_truth_compared"]:
        parts.append(f"ground truth agrees with ours on all {report['ground_truth_compared']:,} compared rows")
    unverified = sorted((report.get("without_ground_truth") or {}).items())
    if unverified:
        shown = ", ".join(f"{task} {n:,}" for task, n in unverified[:5]) + (", ..." if len(unverified) > 5 else "")
        parts.append(f"rows without ground truth in {_count(len(unverified), 'file')} ({shown}), checked only by "
                     "their labels and cases")
    if report["skipped_files"]:
        skipped = sorted(report["skipped_files"])
        shown = ", ".join(skipped[:5]) + (", ..." if len(skipped) > 5 else "")
        parts.append(f"skipped {_count(len(skipped), 'file')} of tasks not selected ({shown})")
    return "; ".join(parts)


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")
