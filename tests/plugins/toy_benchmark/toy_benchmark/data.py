"""The toy benchmark's items: one JSONL file of {"id", "split", "role", "text"}, kept in the data folder as
toy/toy.jsonl. The package ships the file, and its `Download` capability copies it there (`baselines data download
toy`, or `--download` on a first run), as a real benchmark's hook fetches its files.

Its records are its own type, `RoleSentence`: generic code reads them only through the task's hooks
(`references`, and `Contents` for the in-sample and overlap checks)."""
from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from baselines.core.errors import DataError
from baselines.core.paths import MissingData
from baselines.core.records import Reference

ROLES = ("facts", "argument", "ruling")  # the choices, in the order the prompts letter them
LABELS = ("A", "B", "C")  # the answer label of each role
FILE = "toy.jsonl"


def data_file(root: Path) -> Path:
    """Where the benchmark's file sits in the data folder."""
    return Path(root) / "toy" / FILE


@dataclass(frozen=True)
class RoleSentence:
    """One sentence of a judgment and the role it plays (None: unlabelled)."""

    id: str
    text: str
    role: str | None = None
    split: str = ""


def load_toy(data_dir: Path | None, split: str, path: Path | None = None) -> list[RoleSentence]:
    """The task record's `load` hook: the items of `split` from the data folder, or every item of `path`
    (--train-file / --test-file). An absent data file is MissingData, which `--download` answers."""
    if path is not None:
        return [sentence(row, path) for row in read_rows(Path(path))]
    source = data_file(data_dir)
    if not source.is_file():
        raise MissingData(f"the toy benchmark is not in the data folder ({source} does not exist)", data_dir)
    return [sentence(row, source) for row in read_rows(source) if row.get("split") == split]


def read_rows(path: Path) -> list[dict]:
    """The JSON objects of a JSONL file, one per non-empty line."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise DataError(f"not JSON ({exc.msg})", path, number) from None
    return rows


def sentence(row: dict, where: Path) -> RoleSentence:
    """One line of the file as a record."""
    role = row.get("role")
    if role not in ROLES or not isinstance(row.get("text"), str) or "id" not in row:
        raise DataError(f"item {row.get('id')!r} needs an id, a text and a role among {', '.join(ROLES)}", where)
    return RoleSentence(id=str(row["id"]), text=row["text"], role=role, split=str(row.get("split", "")))


def references(records: list[RoleSentence]) -> list[Reference]:
    """The task's `references` hook: the gold letter of each sentence among the roles' letters."""
    return [Reference(id=r.id, gold=(LABELS[ROLES.index(r.role)],) if r.role else (), labels=LABELS, choices=ROLES)
            for r in records]


def units(record: RoleSentence) -> list[str]:
    """Contents: a sentence is its own unit and its own document."""
    return [record.text]


def document(record: RoleSentence) -> str:
    return record.text


def identities(records: list[RoleSentence]) -> list[str]:
    return [" ".join(record.text.split()) for record in records]


def contract_sentences() -> list[RoleSentence]:
    """The fixture of the public contract: the shipped training sentences."""
    with resources.as_file(resources.files(__package__).joinpath(FILE)) as shipped:
        return [sentence(row, shipped) for row in read_rows(shipped) if row.get("split") == "train"]


def download_toy(dest: Path) -> Path:
    """The task's `Download` fetch: the shipped file copied into the data folder `dest`; its folder."""
    target = data_file(dest)
    target.parent.mkdir(parents=True, exist_ok=True)
    with resources.as_file(resources.files(__package__).joinpath(FILE)) as shipped:
        shutil.copyfile(shipped, target)
    return target.parent
