"""SCALR loader: LegalBench's scalr files as distributed (TSV) or the same fields as JSONL."""
from __future__ import annotations

import csv
from pathlib import Path

from ..errors import DataError
from ..io import open_text, read_jsonl
from ..records import ChoiceItem

FIELDS = ("index", "question", "choice_0", "choice_1", "choice_2", "choice_3", "choice_4", "answer")
LABELS = ["0", "1", "2", "3", "4"]


def scalr_file(data_dir: Path, split: str) -> Path:
    """The split's file under <data_dir>/scalr/ (JSONL preferred over TSV)."""
    folder = Path(data_dir) / "scalr"
    for suffix in (".jsonl", ".tsv"):
        candidate = folder / f"{split}{suffix}"
        if candidate.is_file():
            return candidate
    raise DataError(f"no SCALR split {split!r}: expected {folder}/{split}.jsonl or {split}.tsv "
                    "(get it with `baselines data download scalr`)")


def load_scalr(data_dir: Path | None, split: str = "test", path: Path | None = None, **options) -> list[ChoiceItem]:
    """SCALR questions from `path`, or from the split's file under data_dir."""
    if options:
        raise DataError(f"scalr takes no {', '.join('--' + name for name in sorted(options))} option")
    path = Path(path) if path else scalr_file(data_dir, split)
    rows = _tsv_rows(path) if path.suffix == ".tsv" else read_jsonl(path)
    items, seen = [], {}
    for line, row in rows:
        item = _item(row, path, line, split)
        if item.id in seen:
            raise DataError(f"duplicate index {item.id!r} (first on line {seen[item.id]})", path, line)
        seen[item.id] = line
        items.append(item)
    if not items:
        raise DataError("no questions in file", path)
    return items


def _tsv_rows(path: Path):
    try:
        with open_text(path) as handle:
            reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_MINIMAL)
            for row in reader:
                yield reader.line_num, row
    except UnicodeDecodeError as exc:
        raise DataError(f"not UTF-8 text ({exc.reason})", path) from None
    except csv.Error as exc:
        raise DataError(f"malformed TSV ({exc})", path) from None


def _item(row: dict, path: Path, line: int, split: str) -> ChoiceItem:
    absent = [name for name in FIELDS if name not in row or row[name] is None]
    if absent:
        raise DataError(f"missing column(s) {', '.join(absent)}", path, line)
    answer = str(row["answer"]).strip()
    if answer not in LABELS:
        raise DataError(f"answer {answer!r} is not one of the choices 0-4 (index {row['index']})", path, line)
    return ChoiceItem(
        id=str(row["index"]).strip(),
        question=str(row["question"]),
        choices=[str(row[f"choice_{k}"]) for k in range(5)],
        labels=list(LABELS),
        answer=[int(answer)],
        split=split,
    )
