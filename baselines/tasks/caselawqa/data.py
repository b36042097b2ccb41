"""CaselawQA loader: the normalized layout (opinions, tasks, examples) or the official parquet layouts.

Layouts under <data_dir>/caselawqa/ (detected in this order):
  normalized   tasks.json + examples.jsonl[.gz] + opinions.jsonl[.gz]
  lawma-tasks  .../<task>/<split>[-*].parquet, preferably under a lawma-tasks/ subfolder
  caselawqa-8k .../<config>/<split>[-*].parquet with configs sc, songer, 1k (under caselawqa-8k/)
Every layout yields the same ChoiceItem records, in the same order (tasks by name, each task's examples in the
order of its file): id "<task>/<case_id>", group = task, context = opinion text (one string object per
opinion), labels as the Lawma paper defines them.
"""
from __future__ import annotations

from pathlib import Path

from baselines.core.errors import BaselinesError, DataError
from baselines.core.io import read_json, read_jsonl
from baselines.core.paths import MissingData
from baselines.core.records import ChoiceItem, letter_labels
from baselines.tasks.caselawqa.checks import (check_answer, check_task_name, check_tasks, court_of,  # noqa: F401  (re-exported)
                               parquet_folders)

SPLITS = ("train", "val", "test")
EIGHTK_CONFIGS = ("sc", "songer", "1k")


def load_caselawqa(data_dir: Path | None, split: str = "test", path: Path | None = None,
                   subtasks: list[str] | None = None, contexts: bool = True,
                   ids: set[str] | None = None) -> list[ChoiceItem]:
    """CaselawQA examples of one split (of the tasks in `subtasks`, default all), from `path` (a layout folder or
    a parquet file) or data_dir. `contexts=False`: what scoring reads, with no opinion text (context "") and
    nothing read of the opinions that the ids do not need (load_caselawqa_references); `ids`: only these items
    (load_caselawqa_ids)."""
    from baselines.tasks.caselawqa import parquet as pq

    root = Path(path) if path else Path(data_dir) / "caselawqa"
    if path is None and not root.exists():
        raise MissingData(f"{root}: CaselawQA folder not found", data_dir)
    if root.is_file() and root.suffix == ".parquet":
        items = pq.load_parquet_file(root, split, subtasks, contexts, ids)
    else:
        layout, folder = detect_layout(root)
        if layout == "normalized":
            items = load_normalized(folder, split, subtasks, contexts, ids)
        elif layout == "lawma-tasks":
            items = pq.load_lawma_tasks(folder, split, subtasks, contexts, ids)
        else:
            items = pq.load_eightk(folder, split, subtasks, contexts, ids)
    if not items and not ids:
        raise DataError(f"no CaselawQA examples for split {split!r}" + (f" and tasks {subtasks}" if subtasks else ""),
                        root)
    items.sort(key=lambda item: item.group)  # tasks by name, each in its file's order, whatever the layout: what
    return items  # is fit across tasks (the pooled mention models, the val means) sums in one order


def load_caselawqa_references(data_dir: Path | None, split: str = "test", path: Path | None = None,
                              subtasks: list[str] | None = None) -> list[ChoiceItem]:
    """The examples as scoring reads them (the task's ReferencesOnly loader): ids, choices, labels, answers and
    tasks, without the opinions: the normalized layout's opinions file is not opened, and of the parquet files
    the opinion column is read only where no id column names the cases."""
    return load_caselawqa(data_dir, split, path, subtasks, contexts=False)


def load_caselawqa_ids(data_dir: Path | None, split: str, path: Path | None, ids: set[str],
                       subtasks: list[str] | None = None) -> list[ChoiceItem]:
    """Whole examples (with their opinions) of these ids: of the normalized layout, the opinions of their cases
    only are kept; of the lawma-tasks layout, a task's files are read only while some of its ids are missing
    (the first examples of each task are found in the first rows of its first file)."""
    return load_caselawqa(data_dir, split, path, subtasks, ids=set(ids))


def detect_layout(root: Path) -> tuple[str, Path]:
    """(layout name, folder) of the CaselawQA files under `root`; none found says what is expected."""
    if not root.is_dir():
        raise DataError("CaselawQA folder not found (get the official files with `baselines data download "
                        "caselawqa`, or point --data-dir at a folder holding caselawqa/)", root)
    if (root / "tasks.json").is_file():
        return "normalized", root
    for folder in (root / "lawma-tasks", root / "caselawqa-8k", root):
        names = set(parquet_folders(folder)) if folder.is_dir() else set()
        if names and names <= set(EIGHTK_CONFIGS):
            return "caselawqa-8k", folder
        if names:
            return "lawma-tasks", folder
    raise DataError("no CaselawQA layout recognised: expected tasks.json + examples.jsonl.gz + "
                    "opinions.jsonl.gz, or lawma-tasks / caselawqa-8k parquet folders", root)


def _first(folder: Path, stem: str) -> Path:
    for candidate in (folder / f"{stem}.jsonl.gz", folder / f"{stem}.jsonl"):
        if candidate.is_file():
            return candidate
    raise DataError(f"missing {stem}.jsonl.gz (normalized CaselawQA layout)", folder)


def load_normalized(folder: Path, split: str, tasks: list[str] | None, contexts: bool = True,
                    ids: set[str] | None = None) -> list[ChoiceItem]:
    """Examples of `split` from tasks.json, examples.jsonl.gz and opinions.jsonl.gz (not read without
    `contexts`: the items then have no text and no Caselaw Access Project id)."""
    if split not in SPLITS:
        raise BaselinesError(f"CaselawQA has no split {split!r}; valid: {', '.join(SPLITS)}")
    specs = _task_specs(folder / "tasks.json")
    chosen = set(check_tasks(tasks, specs, folder / "tasks.json"))
    examples_path = _first(folder, "examples")
    rows = [(line, row) for line, row in read_jsonl(examples_path)
            if row.get("split") == split and row.get("task") in chosen
            and (ids is None or f"{row.get('task')}/{row.get('case_id')}" in ids)]
    needed = {str(row.get("case_id")) for _, row in rows}
    texts, cap_ids = _opinions(_first(folder, "opinions"), needed) if contexts else (dict.fromkeys(needed, ""), {})
    prepared = {name: _task_fields(name, specs[name], folder / "tasks.json") for name in chosen}
    items = []
    for line, row in rows:
        task, case_id = row["task"], str(row.get("case_id"))
        where = f"{examples_path}:{line}"
        if case_id not in texts:
            raise DataError(f"example {row.get('id')}: no opinion for case id {case_id!r} in opinions file", where)
        question, choices, labels, meta = prepared[task]
        items.append(ChoiceItem(id=f"{task}/{case_id}", question=question, choices=choices, labels=labels,
                                answer=check_answer(row.get("answer"), len(choices), where, row.get("id")),
                                group=task, context=texts[case_id], split=split,
                                meta={"case_id": case_id, "court": meta, "cap_case_id": cap_ids.get(case_id),
                                      "instruction": specs[task].get("instruction")}))
    return items


def _task_specs(path: Path) -> dict[str, dict]:
    """tasks.json as {task name: spec}, every name a plain name (it becomes file names and item ids)."""
    specs = read_json(path)
    if not isinstance(specs, dict):
        raise DataError(f"expected a JSON object of tasks by name, got a JSON {type(specs).__name__}", path)
    for name in specs:
        check_task_name(name, path)
    return specs


def _task_fields(name: str, spec: dict, where) -> tuple[str, list[str], list[str], str]:
    """(question, choices, labels, court) of one task spec; labels default to the paper's scheme."""
    try:
        choices = [str(c) for c in spec["choices"]]
        question = str(spec["question"])
    except (KeyError, TypeError):
        raise DataError(f"task {name}: needs 'question' and 'choices'", where) from None
    labels = [str(label) for label in spec.get("labels") or letter_labels(len(choices))]
    if len(labels) != len(choices):
        raise DataError(f"task {name}: {len(labels)} labels for {len(choices)} choices", where)
    return question, choices, labels, spec.get("court") or court_of(name)


def _opinions(path: Path, needed: set[str]) -> tuple[dict[str, str], dict[str, str | None]]:
    """case_id -> opinion text (each text one shared string) and case_id -> Caselaw Access Project id
    (null where unknown) for the needed cases."""
    texts, cap_ids = {}, {}
    for line, row in read_jsonl(path):
        case_id = str(row.get("case_id"))
        if case_id in needed:
            text = row.get("text")
            if not isinstance(text, str) or not text.strip():
                raise DataError(f"case {case_id}: opinion text is missing or empty", path, line)
            texts[case_id] = text
            cap = row.get("cap_case_id")
            cap_ids[case_id] = None if cap is None else str(cap)
    return texts, cap_ids
