"""Small synthetic CaselawQA data written in the three real layouts (normalized, lawma-tasks, caselawqa-8k)."""
from __future__ import annotations

import gzip
import json
import random
from contextlib import contextmanager
from pathlib import Path

SIGNALS = ["affirmed", "reversed", "vacated"]
FILLER = ("court statute petitioner respondent appeal district circuit judgment evidence claim federal state "
          "law order trial motion jury counsel defendant plaintiff congress section").split() + [
    f"{stem}{k}" for stem in ("term", "fact", "rule") for k in range(100)]  # as many words as a real opinion's
SPLIT_OF = ["train"] * 30 + ["val"] * 10 + ["test"] * 12


def _text(rng: random.Random, signal: str, state: int) -> str:
    words = [rng.choice(FILLER) for _ in range(120)]
    return (f"JUSTICE X delivered the opinion of the Court. {' '.join(words)} state{state} "
            f"{' '.join(words[:40])} state{state} The judgment is {signal}. So {signal}, {signal}, {signal}.")


def toy_tasks() -> dict:
    """Task specs: 3 letters, a multi-label task, 30 numbered choices, and one with a single train class."""
    return {
        "sc_direction": {"instruction": "Decide.", "question": "Which outcome?", "choices": SIGNALS,
                         "labels": ["A", "B", "C"], "court": "sc", "multi_label": False},
        "sc_authority": {"instruction": "Decide.", "question": "Which authority?",
                         "choices": ["one", "two", "three", "four"], "labels": ["A", "B", "C", "D"],
                         "court": "sc", "multi_label": True},
        "sc_state": {"instruction": "Decide.", "question": "Which state?",
                     "choices": [f"state {k}" for k in range(30)], "labels": [f"{k + 1:02d}" for k in range(30)],
                     "court": "sc", "multi_label": False},
        "sc_constant": {"instruction": "Decide.", "question": "Always?", "choices": ["No", "Yes"],
                        "labels": ["A", "B"], "court": "sc", "multi_label": False},
    }


def toy_cases(seed: int = 0) -> tuple[dict[str, str], list[dict]]:
    """(case_id -> opinion text, example rows) with answers readable from the text."""
    rng = random.Random(seed)
    opinions, examples = {}, []
    for k, split in enumerate(SPLIT_OF):
        case_id = f"2000-{k:03d}"
        outcome, state = k % 3, k % 4
        opinions[case_id] = _text(rng, SIGNALS[outcome], state)
        answers = {"sc_direction": [outcome], "sc_authority": [outcome] + ([3] if k % 5 == 0 else []),
                   "sc_state": [state], "sc_constant": [0]}
        for task, answer in answers.items():
            examples.append({"id": f"{task}/{case_id}", "task": task, "case_id": case_id, "answer": answer,
                             "split": split})
    return opinions, examples


def write_normalized(root: Path) -> Path:
    """<root>/caselawqa/{tasks.json, examples.jsonl.gz, opinions.jsonl.gz}; returns <root>."""
    folder = root / "caselawqa"
    folder.mkdir(parents=True, exist_ok=True)
    opinions, examples = toy_cases()
    (folder / "tasks.json").write_text(json.dumps(toy_tasks()))
    with gzip.open(folder / "examples.jsonl.gz", "wt") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in examples)
    with gzip.open(folder / "opinions.jsonl.gz", "wt") as handle:
        handle.writelines(json.dumps({"case_id": c, "text": t}) + "\n" for c, t in opinions.items())
    return root


def _rows(task_filter=None):
    tasks = toy_tasks()
    opinions, examples = toy_cases()
    for row in examples:
        if task_filter and row["task"] not in task_filter:
            continue
        spec = tasks[row["task"]]
        yield row["split"], {"opinion": opinions[row["case_id"]], "instruction": spec["instruction"],
                             "question": spec["question"], "choices": spec["choices"],
                             "answer": row["answer"], "task": row["task"]}


def _write_parquet(path: Path, rows: list[dict], drop: tuple = ()) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    columns = [c for c in ("opinion", "instruction", "question", "choices", "answer", "task")
               if c not in drop and c in rows[0]]
    pq.write_table(pa.table({c: [r[c] for r in rows] for c in columns}), path)


def write_lawma_tasks(root: Path, drop: tuple = ()) -> Path:
    """<root>/caselawqa/lawma-tasks/<task>/<split>.parquet (no 'task' column), like the official dataset."""
    by_file: dict = {}
    for split, row in _rows():
        row = {k: v for k, v in row.items() if k != "task"} | {"_task": row["task"]}
        by_file.setdefault((row.pop("_task"), split), []).append(row)
    for (task, split), rows in by_file.items():
        _write_parquet(root / "caselawqa" / "lawma-tasks" / task / f"{split}.parquet", rows, drop)
    return root


def write_eightk(root: Path) -> Path:
    """<root>/caselawqa/caselawqa-8k/sc/<split>-00000-of-00001.parquet with a 'task' column (config 1k too)."""
    by_split: dict = {}
    for split, row in _rows():
        by_split.setdefault(split, []).append(row)
    for split, rows in by_split.items():
        name = "validation" if split == "val" else split
        _write_parquet(root / "caselawqa" / "caselawqa-8k" / "sc" / f"{name}-00000-of-00001.parquet", rows)
        _write_parquet(root / "caselawqa" / "caselawqa-8k" / "1k" / f"{name}-00000-of-00001.parquet", rows[:5])
    return root


@contextmanager
def dask_scheduler():
    """The address of an in-process Dask cluster (one worker, two threads); skips the test without Dask."""
    import pytest

    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        yield cluster.scheduler_address


@contextmanager
def dask_processes(workers: int = 2):
    """The address of a local Dask cluster of `workers` worker processes with one thread each, as separate
    machines would be; skips the test without Dask."""
    import pytest

    import os

    distributed = pytest.importorskip("dask.distributed")
    environment = dict(os.environ)  # Dask sets its workers' thread variables in this process's environment too
    try:
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster:
            yield cluster.scheduler_address
    finally:
        os.environ.clear()
        os.environ.update(environment)
