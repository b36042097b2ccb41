"""CaselawQA from the official Hugging Face parquet files (lawma-tasks, caselawqa-8k), streamed by batch."""
from __future__ import annotations

import hashlib
from pathlib import Path

from baselines.core.errors import BaselinesError, DataError
from baselines.core.records import ChoiceItem, letter_labels
from baselines.tasks.caselawqa.checks import check_answer, check_task_name, check_tasks, court_of, parquet_folders

COLUMNS = ("opinion", "instruction", "question", "choices", "answer")
ID_COLUMNS = ("case_id", "id", "caseId")
SPLIT_STEMS = {"train": ("train",), "val": ("val", "validation", "dev"), "test": ("test",)}


def split_files(folder: Path, split: str) -> list[Path]:
    """The parquet files of `split` in one task/config folder (train.parquet or train-00000-of-00001.parquet)."""
    if split not in SPLIT_STEMS:
        raise BaselinesError(f"CaselawQA has no split {split!r}; valid: {', '.join(SPLIT_STEMS)}")
    stems = SPLIT_STEMS[split]
    return sorted(p for p in folder.glob("*.parquet") if p.stem.split("-")[0] in stems)


def load_lawma_tasks(root: Path, split: str, tasks: list[str] | None, contexts: bool = True,
                     ids: set[str] | None = None) -> list[ChoiceItem]:
    """lawma-tasks layout: one folder per task holding train/val/test parquet files."""
    folders = parquet_folders(root)
    chosen = check_tasks(tasks, folders, root)
    reader = _Reader(split, contexts=contexts, ids=ids)
    for name in chosen:
        for path in split_files(folders[name], split):
            reader.read(path, task=name)
    return reader.items


def load_eightk(root: Path, split: str, tasks: list[str] | None, contexts: bool = True,
                ids: set[str] | None = None) -> list[ChoiceItem]:
    """caselawqa-8k layout: configs sc / songer (or only 1k when alone), with a 'task' column."""
    configs = parquet_folders(root)
    used = [c for c in sorted(configs) if c != "1k"] or sorted(configs)
    reader = _Reader(split, tasks=set(tasks) if tasks else None, contexts=contexts, ids=ids)
    for config in used:
        for path in split_files(configs[config], split):
            reader.read(path, task=None)
    if tasks:
        check_tasks(tasks, reader.seen_tasks, root)
    return reader.items


def load_parquet_file(path: Path, split: str, tasks: list[str] | None, contexts: bool = True,
                      ids: set[str] | None = None) -> list[ChoiceItem]:
    """One parquet file: task from its 'task' column, else its folder name (lawma-tasks)."""
    import pyarrow.parquet as pq

    has_task = "task" in pq.ParquetFile(path).schema_arrow.names
    reader = _Reader(split, tasks=set(tasks) if tasks else None, contexts=contexts, ids=ids)
    reader.read(path, task=None if has_task else path.parent.name)
    if tasks:
        check_tasks(tasks, reader.seen_tasks, path)
    return reader.items


class _Reader:
    """Accumulates items from parquet files, sharing one string per distinct opinion and instruction; without
    `contexts`, items have no opinion text, and the opinion column is read only to name cases that no id column
    names (by the text's digest), never kept."""

    def __init__(self, split: str, tasks: set[str] | None = None, contexts: bool = True,
                 ids: set[str] | None = None):
        self.split, self.tasks, self.contexts = split, tasks, contexts
        self.wanted = None if ids is None else set(ids)  # only these items: a task's files stop when it has them
        self.items: list[ChoiceItem] = []
        self.texts: dict[str, str] = {}  # opinion digest -> the shared string
        self.shared: dict = {}  # question/choices/labels interned per task
        self.ids: set[str] = set()
        self.seen_tasks: set[str] = set()

    def read(self, path: Path, task: str | None) -> None:
        import pyarrow.parquet as pq

        if self.wanted is not None and task is not None and not self._wants(task):
            return
        handle = pq.ParquetFile(path)
        names = handle.schema_arrow.names
        needed = list(COLUMNS) + (["task"] if task is None else [])
        absent = [c for c in needed if c not in names]
        if absent:
            raise DataError(f"missing column(s) {', '.join(absent)}; has {', '.join(names)}", path)
        id_column = next((c for c in ID_COLUMNS if c in names), None)
        if id_column and not self.contexts:
            needed.remove("opinion")
        row_number = 0
        size = 16 if self.wanted is not None else 512 if "opinion" in needed else 8192
        for batch in handle.iter_batches(batch_size=size, columns=needed + ([id_column] if id_column else [])):
            if self.wanted is not None and task is not None and not self._wants(task):
                break
            columns = {name: batch.column(name).to_pylist() for name in batch.schema.names}  # faster than rows
            for row in (dict(zip(columns, values)) for values in zip(*columns.values())):
                row_number += 1
                name = task or row["task"]
                if not isinstance(name, str) or name not in self.seen_tasks:
                    self.seen_tasks.add(check_task_name(name, f"{path} (row {row_number})"))
                if self.tasks is None or name in self.tasks:
                    self._add(row, name, path, row_number, id_column)

    def _add(self, row: dict, task: str, path: Path, number: int, id_column: str | None) -> None:
        where = f"{path} (row {number}, task {task})"
        opinion, digest = self._opinion(row, task, number, where)
        case_id = str(row[id_column]) if id_column and row[id_column] is not None else digest
        if case_id is None:
            raise DataError(f"example {task}/row{number}: its {id_column} is empty (the case is then named by its "
                            "opinion's digest, which scoring does not read)", where)
        item_id = self._unique(f"{task}/{case_id}")
        if self.wanted is not None:
            if item_id not in self.wanted:
                return
            self.wanted.discard(item_id)
        choices = [str(c) for c in (row["choices"] or [])]
        if not choices:
            raise DataError(f"example {item_id}: no choices", where)
        question, choices, labels = self._intern(task, str(row["question"]), choices)
        self.items.append(ChoiceItem(
            id=item_id, question=question, choices=choices, labels=labels,
            answer=check_answer(row["answer"], len(choices), where, item_id), group=task, context=opinion,
            split=self.split, meta={"case_id": case_id, "court": court_of(task),
                                    "instruction": self.shared.setdefault(("instruction", row["instruction"]),
                                                                          row["instruction"])}))

    def _opinion(self, row: dict, task: str, number: int, where: str) -> tuple[str, str | None]:
        """(the row's opinion as one shared string, or "" without contexts; its digest, None when not read)."""
        opinion = row.get("opinion")
        if opinion is None and "opinion" not in row:  # not read: an id column names the case
            return "", None
        if not isinstance(opinion, str) or not opinion.strip():
            raise DataError(f"example {task}/row{number}: opinion is missing or empty", where)
        digest = hashlib.sha1(opinion.encode("utf-8")).hexdigest()[:16]
        return (self.texts.setdefault(digest, opinion) if self.contexts else ""), digest

    def _wants(self, task: str) -> bool:
        return any(item_id.startswith(f"{task}/") for item_id in self.wanted)

    def _unique(self, item_id: str) -> str:
        base, k = item_id, 1
        while item_id in self.ids:
            k += 1
            item_id = f"{base}~{k}"
        self.ids.add(item_id)
        return item_id

    def _intern(self, task: str, question: str, choices: list[str]):
        key = (task, question, tuple(choices))
        if key not in self.shared:
            self.shared[key] = (question, choices, letter_labels(len(choices)))
        return self.shared[key]
