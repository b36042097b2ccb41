"""SCALR loader: LegalBench's scalr files as distributed (TSV) or the same fields as JSONL."""
from __future__ import annotations

import csv
import logging
from io import StringIO
from pathlib import Path

from baselines.core.errors import DataError
from baselines.core.io import read_jsonl, read_text
from baselines.core.paths import MissingData
from baselines.core.records import ChoiceItem

logger = logging.getLogger(__name__)

FIELDS = ("index", "question", "choice_0", "choice_1", "choice_2", "choice_3", "choice_4", "answer")
LABELS = ["0", "1", "2", "3", "4"]
SHOWN_IDS = 5  # ids named in a warning before "..."


def scalr_file(data_dir: Path, split: str) -> Path:
    """The split's file under <data_dir>/scalr/ (JSONL preferred over TSV)."""
    folder = Path(data_dir) / "scalr"
    for suffix in (".jsonl", ".tsv"):
        candidate = folder / f"{split}{suffix}"
        if candidate.is_file():
            return candidate
    raise MissingData(f"no SCALR split {split!r}: expected {folder}/{split}.jsonl or {split}.tsv", data_dir)


class Questions(list):
    """SCALR items with loader notes: `notes` (one line per kind of suspicious item, with a count and the
    first ids) and `flagged` (kind -> ids of the items concerned: empty_question, duplicate_choices)."""

    notes: list[str]
    flagged: dict[str, list[str]]

    def __init__(self, items=(), flagged=None):
        super().__init__(items)
        self.flagged = {kind: list(ids) for kind, ids in (flagged or {}).items() if ids}
        self.notes = [flag_note(kind, ids, len(self)) for kind, ids in self.flagged.items()]


def load_scalr(data_dir: Path | None, split: str = "test", path: Path | None = None, **options) -> Questions:
    """SCALR questions from `path`, or from the split's file under data_dir; suspicious items are warned
    about once and recorded in the result's `notes` and `flagged`."""
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
    questions = Questions(items, flag_items(items))
    if questions.notes:
        logger.warning(f"{path}: {'; '.join(questions.notes)}")
    return questions


def flag_items(items: list[ChoiceItem]) -> dict[str, list[str]]:
    """Ids of items with an empty question, and of items with two choices of the same text (whitespace
    and case ignored): they are scored as given, but the figures should say how many there were."""
    def plain(text: str) -> str:
        return " ".join(text.split()).casefold()

    return {"empty_question": [item.id for item in items if not item.question.strip()],
            "duplicate_choices": [item.id for item in items
                                  if len({plain(choice) for choice in item.choices}) < len(item.choices)]}


def flag_note(kind: str, ids: list[str], total: int) -> str:
    """One line: how many items have this problem, and the first few of their ids."""
    what = {"empty_question": "an empty question", "duplicate_choices": "duplicate choices"}.get(kind, kind)
    shown = ", ".join(ids[:SHOWN_IDS]) + (", ..." if len(ids) > SHOWN_IDS else "")
    return f"{len(ids)} of {total} questions have {what} (scored as given): index {shown}"


def _tsv_rows(path: Path):
    """(line, row) of a LegalBench TSV, read strictly: a quote that does not close where a field ends, a row
    with too few or too many fields, or a tab inside a field (what an unclosed quote leaves when it swallows
    the rows after it; LegalBench fields hold none) is an error naming the line where the row starts."""
    text = read_text(path)  # bad bytes: a DataError naming the line and the byte within it
    reader = csv.reader(StringIO(text), delimiter="\t", quoting=csv.QUOTE_MINIMAL, strict=True)
    start = 1
    try:
        header = next(reader, None)
        if header is None:
            return
        start = reader.line_num + 1
        for fields in reader:
            if fields:
                yield start, _tsv_row(header, fields, path, start)
            start = reader.line_num + 1
    except csv.Error as exc:
        raise DataError(f"malformed TSV in the row starting here ({exc}; an unclosed quote?)", path, start) from None


def _tsv_row(header: list[str], fields: list[str], path: Path, line: int) -> dict:
    if len(fields) != len(header):
        raise DataError(f"{len(fields)} fields where the header has {len(header)} (a stray tab, or an unclosed "
                        "quote?)", path, line)
    tabbed = [name for name, value in zip(header, fields) if "\t" in value]
    if tabbed:
        raise DataError(f"field {tabbed[0]} holds a tab: an unclosed quote in this row swallows the rows after it",
                        path, line)
    return dict(zip(header, fields))


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
