"""Which CaselawQA tasks are the Supreme Court tasks the codebook readers were written for, told by content.

A task's name says nothing reliable: the files users download name 260 tasks, and a copy of a task can come
under any name. A task is recognised as a known Supreme Court task when its question and choices (whitespace
collapsed, case folded) have the fingerprint of one of the definitions in tables/sc_tasks.csv (Lawma's
generate_scdb_tasks.py, as our tasks.json holds them). The instruction is left out of the fingerprint: Lawma's
own commits differ in it (a stray quote and spaces in sc_authoritydecision's). A recognised task reads the
codebook readers of the task it is (the mention models of the entity tasks, the stacked heads' sources);
any other task, whatever its name, takes the generic path: the per-task heads and the readers every task reads.
The twelve sc_issue_k tasks share one definition (they differ by their cases): a task with that content keeps
its own name if it is one of them, else is read as the first; none of them has a reader of its own.
"""
from __future__ import annotations

import csv
import hashlib
from functools import cache
from pathlib import Path

TABLE = Path(__file__).parent / "tables" / "sc_tasks.csv"
SHOWN_NAMES = 12  # task names a printed summary lists per path (config.json lists them all)


def fingerprint(question: str, choices) -> str:
    """16 hex digits of the SHA-1 of the question and the choices, whitespace collapsed and case folded."""
    text = "\x1e".join(" ".join(str(part).split()).casefold() for part in (question, *choices))
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


@cache
def known_tasks() -> dict[str, tuple[str, ...]]:
    """Fingerprint -> the Supreme Court task names defined with it (table order)."""
    lines = [line for line in TABLE.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    out: dict[str, tuple[str, ...]] = {}
    for row in csv.DictReader(lines):
        out[row["fingerprint"]] = out.get(row["fingerprint"], ()) + (row["task"],)
    return out


def known_names() -> set[str]:
    return {name for names in known_tasks().values() for name in names}


def recognise(records) -> dict[str, str | None]:
    """Task -> the known Supreme Court task its content is (None: the generic path), from each task's first
    record's question and choices."""
    roles: dict[str, str | None] = {}
    for item in records:
        if item.group not in roles:
            names = known_tasks().get(fingerprint(item.question, item.choices), ())
            roles[item.group] = item.group if item.group in names else (names[0] if names else None)
    return roles


def by_name(tasks) -> dict[str, str | None]:
    """The roles of a model saved before roles were kept: a task is the known task of its name, if any."""
    known = known_names()
    return {task: task if task in known else None for task in tasks}


def task_paths(roles: dict[str, str | None]) -> dict:
    """Which tasks took the codebook path and which the generic one (counts and sorted names), and the tasks
    recognised under another name than the known task they are."""
    codebook = sorted(task for task, role in roles.items() if role)
    generic = sorted(task for task, role in roles.items() if not role)
    renamed = {task: roles[task] for task in codebook if roles[task] != task}
    return {"codebook": {"n": len(codebook), "tasks": codebook}, "generic": {"n": len(generic), "tasks": generic},
            "recognised_as": renamed}


def paths_line(paths: dict) -> str:
    """One line of a training summary: the tasks of each path, counted, the first names shown."""
    parts = []
    for path in ("codebook", "generic"):
        names = paths[path]["tasks"]
        shown = ", ".join(names[:SHOWN_NAMES]) + (f", and {len(names) - SHOWN_NAMES} more"
                                                   if len(names) > SHOWN_NAMES else "")
        parts.append(f"{path} path: {len(names)} task(s)" + (f" ({shown})" if names else ""))
    renamed = paths.get("recognised_as") or {}
    if renamed:
        parts.append(f"{len(renamed)} recognised under another name")
    return "; ".join(parts)


class TaskPaths:
    """Mixin of the CaselawQA methods: `roles_` (task -> the known task it is, set by fit) said after a fit."""

    def fit_notes(self) -> dict:
        roles = getattr(self, "roles_", None)
        if roles is None:
            return {}
        paths = task_paths(roles)
        return {"task_paths": {**paths, "summary": paths_line(paths)}}
