"""Checks and small helpers shared by the CaselawQA loaders (normalized files and parquet layouts)."""
from __future__ import annotations

import re
from pathlib import Path

from baselines.core.errors import BaselinesError, DataError

TASK_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
TASK_NAME_MAX = 100  # characters; the longest Supreme Court task name, sc_lcdispositiondirection, has 25


def check_task_name(name, where) -> str:
    """A task name taken from data that is one plain file name (letters, digits, . _ -), else a DataError
    naming the file: names become export file names and item ids, so they may not climb out of a folder."""
    if not isinstance(name, str) or len(name) > TASK_NAME_MAX or not TASK_NAME.fullmatch(name):
        shown = repr(name) if len(repr(name)) <= 120 else repr(name)[:117] + "..."
        raise DataError(f"task name {shown} is not a plain name: use letters, digits and . _ - (starting with a "
                        f"letter or digit, at most {TASK_NAME_MAX} characters)", where)
    return name


def parquet_folders(root: Path) -> dict[str, Path]:
    """Folder name -> folder of every folder under `root` holding parquet files (task or config folders)."""
    return {p.parent.name: p.parent for p in sorted(root.rglob("*.parquet"))}


def check_tasks(wanted: list[str] | None, known, where) -> list[str]:
    """The requested task names (all when none), or an error listing the valid ones."""
    known = sorted(known)
    if not wanted:
        return known
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise BaselinesError(f"{where}: unknown CaselawQA task(s) {', '.join(unknown)}; valid: {', '.join(known)}")
    return list(dict.fromkeys(wanted))


def check_answer(answer, n_choices: int, where, example_id: str) -> list[int]:
    """Answer indexes as a list of ints within the choices, or a DataError naming the example."""
    if isinstance(answer, (int,)) and not isinstance(answer, bool):
        answer = [answer]
    try:
        indexes = [int(a) for a in answer]
    except (TypeError, ValueError):
        raise DataError(f"example {example_id}: answer {answer!r} is not a list of choice indexes", where) from None
    bad = [a for a in indexes if not 0 <= a < n_choices]
    if bad:
        raise DataError(f"example {example_id}: answer index {bad[0]} is outside the {n_choices} choices", where)
    return indexes


def court_of(task: str) -> str:
    """The court whose opinions a task is about: 'songer' (courts of appeals) or 'sc' (Supreme Court).

    The task registry groups per-task results by this function too (Task.supergroup)."""
    return "songer" if task.startswith("songer") else "sc"
