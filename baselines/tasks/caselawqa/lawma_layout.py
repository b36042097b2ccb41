"""Lawma's `lawma-tasks` parquet layout written from loaded CaselawQA examples (any layout).

One folder per task, one parquet file per split (<out_dir>/<task>/<split>.parquet) with Lawma's columns
opinion, instruction, question, choices, answer, in the order the examples come in. Lawma's files carry no
case id; `case_ids=True` adds a `case_id` column (the loader reads it, so item ids stay "<task>/<case_id>"
and predictions join with those of the files the examples came from). `rename` maps a task name to the
name it is written under (None skips the task), so the same cases can be written as more tasks.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable

from baselines.core.records import ChoiceItem
from baselines.tasks.caselawqa.checks import check_task_name

COLUMNS = ("opinion", "instruction", "question", "choices", "answer")


def write_lawma_tasks(examples: Iterable[ChoiceItem], out_dir: Path, *, case_ids: bool = True,
                      rename: Callable[[str], str | None] | None = None) -> dict[str, int]:
    """Write `examples` (each with its split) as <out_dir>/<task>/<split>.parquet; task -> examples written."""
    files: dict[tuple[str, str], list[ChoiceItem]] = {}
    for item in examples:
        task = rename(item.group) if rename else item.group
        if task is not None:
            files.setdefault((check_task_name(task, out_dir), item.split), []).append(item)
    counts: dict[str, int] = {}
    for (task, split), items in files.items():
        _write_file(Path(out_dir) / task / f"{split}.parquet", items, case_ids)
        counts[task] = counts.get(task, 0) + len(items)
    return counts


def _write_file(path: Path, items: list[ChoiceItem], case_ids: bool) -> None:
    write_parquet(lawma_table(items, case_ids), path)


def lawma_table(items: list[ChoiceItem], case_ids: bool = True,
                case_of: Callable[[ChoiceItem], tuple[str, str]] | None = None):
    """The items as one parquet table in Lawma's columns (opinion, instruction, question, choices, answer), with a
    `case_id` column unless `case_ids` is False; `case_of(item)` gives another (case id, opinion) for an item
    (a scaled copy of its case), else its own."""
    import pyarrow as pa

    cases = [case_of(item) if case_of else (_case_id(item), item.context) for item in items]
    columns = {
        "opinion": [opinion for _, opinion in cases],
        "instruction": [(item.meta or {}).get("instruction") or "" for item in items],
        "question": [item.question for item in items],
        "choices": [list(item.choices) for item in items],
        "answer": [list(item.answer) for item in items],
    }
    if case_ids:
        columns["case_id"] = [case_id for case_id, _ in cases]
    return pa.table(columns)


def write_parquet(table, path: Path) -> None:
    """One parquet file of Lawma's layout, its folder made."""
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression="zstd")


def _case_id(item: ChoiceItem) -> str:
    return str((item.meta or {}).get("case_id") or item.id.split("/", 1)[-1])


def write_lawma_from(data_path: Path, out_dir: Path, *, tasks: list[str] | None = None,
                     splits: tuple[str, ...] = ("train", "val", "test"), **options) -> dict[str, int]:
    """Read CaselawQA from `data_path` (a layout folder, e.g. the normalized files) and write it in Lawma's
    layout under `out_dir`; task -> examples written (`options`: those of write_lawma_tasks)."""
    from baselines.tasks.caselawqa.data import load_caselawqa

    counts: dict[str, int] = {}
    for split in splits:
        for task, n in write_lawma_tasks(load_caselawqa(None, split, path=data_path, subtasks=tasks), out_dir,
                                         **options).items():
            counts[task] = counts.get(task, 0) + n
    return counts
