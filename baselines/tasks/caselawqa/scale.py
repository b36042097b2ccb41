"""CaselawQA at a chosen size: Lawma's lawma-tasks parquet layout written from the local data, for the scale
benchmark (baselines.runs.scale).

- Copies of the cases: copy 1 is the local data as it is; copy c > 1 gives every case a new id ("<case id>.c<c>")
  and a new text (the opinion opened by "(copy c)"), so no cache keyed on ids or texts serves a copy.
- Copies of the tasks: each task again under a courts-of-appeals name of Lawma's (songer_tasks.txt), sharing the
  cases of its original, up to Lawma's 260 tasks. A copy's question is opened by "(courts-of-appeals copy)", so
  that, like Lawma's own courts-of-appeals tasks, no method recognises it as a Supreme Court task (recognise.py):
  it takes the generic path.
- Splits: cases move from train to test (each whole, the same in every task and every copy) until test holds
  Lawma's share of the examples (143,635 of 718,971); None keeps the local splits.

Files: <out>/caselawqa/lawma-tasks/<task>/<split>-<copy>-of-<copies>.parquet with the columns of Lawma's files
(opinion, instruction, question, choices, answer) and case_id."""
from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path

from baselines.core.errors import BaselinesError
from baselines.tasks.caselawqa.lawma_layout import lawma_table, write_parquet

LAWMA_EXAMPLES, LAWMA_TEST, LAWMA_TASKS = 718_971, 143_635, 260
LAWMA_TEST_SHARE = LAWMA_TEST / LAWMA_EXAMPLES
SPLITS = ("train", "val", "test")
TASK_COPY_MARK = "(courts-of-appeals copy)"


def songer_names() -> list[str]:
    """Lawma's courts-of-appeals task names, in its generator's order."""
    text = resources.files(__package__).joinpath("songer_tasks.txt").read_text("utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def task_names(tasks: list[str], task_copies: int) -> dict[str, list[str]]:
    """Each local task -> its own name and the names of its `task_copies` courts-of-appeals copies, the copies
    taking Lawma's names in turn, at most LAWMA_TASKS tasks in all."""
    if task_copies < 0:
        raise BaselinesError(f"--task-copies {task_copies}: give 0 or more")
    free = [name for name in songer_names() if name not in tasks]
    names = {task: [task] for task in tasks}
    for round_ in range(task_copies):
        for task in tasks:
            if not free or sum(map(len, names.values())) >= LAWMA_TASKS:
                return names
            names[task].append(free.pop(0))
    return names


def case_splits(items: list, test_share: float | None) -> dict[str, str]:
    """case id -> split, the same in every copy (a copy of a training case in test would be scored in sample):
    the local one, with train cases moved to test (in an order drawn from the case id) until test holds
    `test_share` of the examples."""
    split_of, size = {}, {}
    for item in items:
        case = item.meta["case_id"]
        split_of.setdefault(case, item.split)
        size[case] = size.get(case, 0) + 1
    if test_share is None:
        return split_of
    wanted = test_share * len(items) - sum(n for case, n in size.items() if split_of[case] == "test")
    movable = sorted((case for case in split_of if split_of[case] == "train"),
                     key=lambda case: hashlib.sha1(f"1/{case}".encode()).hexdigest())
    for case in movable:
        if wanted < size[case] / 2:
            break
        split_of[case] = "test"
        wanted -= size[case]
    return split_of


def copy_of(case_id: str, text: str, copy: int) -> tuple[str, str]:
    """(case id, opinion) of a case in copy `copy` (1: as it is)."""
    return (case_id, text) if copy == 1 else (f"{case_id}.c{copy}", f"(copy {copy}) {text}")


def write_scaled(items: list, out: Path, *, copies: int = 1, task_copies: int = 0,
                 test_share: float | None = LAWMA_TEST_SHARE, splits: tuple[str, ...] = SPLITS) -> dict:
    """Write `items` (the local examples of every split) in the lawma-tasks layout under `out`/caselawqa/ at the
    size asked; returns what was written: examples per split, tasks, distinct cases, bytes."""
    if copies < 1:
        raise BaselinesError(f"--copies {copies}: give 1 or more")
    root = Path(out) / "caselawqa" / "lawma-tasks"
    by_task: dict[str, list] = {}
    for item in items:
        by_task.setdefault(item.group, []).append(item)
    names = task_names(sorted(by_task), task_copies)
    counts = dict.fromkeys(splits, 0)
    split_of = case_splits(items, test_share)
    for copy in range(1, copies + 1):
        texts = {}  # case id -> this copy's (id, text): one string per case, shared by its tasks
        for task, task_items in by_task.items():
            for split in splits:
                chosen = [item for item in task_items if split_of[item.meta["case_id"]] == split]
                if not chosen:
                    continue
                table = parquet_table(chosen, texts, copy)
                for name in names[task]:
                    write_parquet(table if name == task else as_task_copy(table),
                                  root / name / f"{split}-{copy:05d}-of-{copies:05d}.parquet")
                counts[split] += len(chosen) * len(names[task])
    cases = len({item.meta["case_id"] for item in items})
    return {"examples": sum(counts.values()), "splits": counts, "tasks": sum(map(len, names.values())),
            "cases": cases * copies, "copies": copies, "task_copies": task_copies, "folder": str(root),
            "bytes": sum(path.stat().st_size for path in root.rglob("*.parquet"))}


def as_task_copy(table):
    """A task copy's rows: its question opened by TASK_COPY_MARK (the cases and answers its original's)."""
    import pyarrow as pa

    column = table.schema.get_field_index("question")
    marked = [f"{TASK_COPY_MARK} {question}" for question in table.column(column).to_pylist()]
    return table.set_column(column, "question", pa.array(marked, pa.string()))


def parquet_table(items: list, texts: dict, copy: int):
    """One file's rows in Lawma's columns (each case's text made once per copy)."""
    def copied(item) -> tuple[str, str]:
        case = item.meta["case_id"]
        if case not in texts:
            texts[case] = copy_of(case, item.context, copy)
        return texts[case]

    return lawma_table(items, case_of=copied)


def write_scaled_caselawqa(data_dir: Path, out: Path, *, copies: int = 1, task_copies: int = 0,
                           test_share: float | None = LAWMA_TEST_SHARE, splits: tuple[str, ...] = SPLITS,
                           subtasks: list[str] | None = None) -> dict:
    """The scale layout of the CaselawQA data under `data_dir` (any layout the loader reads) written into `out`."""
    from baselines.tasks.caselawqa.data import load_caselawqa

    items = [item for split in SPLITS for item in load_caselawqa(data_dir, split, subtasks=subtasks)]
    return write_scaled(items, out, copies=copies, task_copies=task_copies, test_share=test_share, splits=splits)
