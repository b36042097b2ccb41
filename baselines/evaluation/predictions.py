"""What every predictions reader shares: rows {"id", "prediction"} (our methods), {"id", "raw"} (an LLM's text)
or {"id", "spans"} (a segmenter's) checked line by line, ids as errors show them, and a file's name without its
suffix. The formats themselves are the entries of formats.py."""
from __future__ import annotations

from pathlib import Path

from baselines.core.errors import DataError

SHOWN_ID_CHARS = 60  # of an id in an error; the rest is counted, not shown


def shown_id(value) -> str:
    """An id as an error shows it: quoted and escaped as Python writes a string ('0\\n', not 0 and a line
    break), cut after SHOWN_ID_CHARS characters with its length said ('abc...'... (1,000,000 characters)), so
    the error stays one short line whatever the id holds."""
    text = value if isinstance(value, str) else str(value)
    if len(text) <= SHOWN_ID_CHARS:
        return repr(text)
    return f"{text[:SHOWN_ID_CHARS]!r}... ({len(text):,} characters)"


def validated_rows(rows: list[tuple[int, dict]], path: Path) -> list[dict]:
    seen: dict[str, int] = {}
    kind = None
    out = []
    for line, row in rows:
        if "id" not in row or row["id"] is None or isinstance(row["id"], (dict, list)):
            raise DataError("row has no 'id'", path, line)
        has = [key for key in ("prediction", "raw", "spans") if key in row]
        if len(has) != 1:
            raise DataError("row needs exactly one of 'prediction' (a label), 'raw' (generated text) or 'spans' "
                            "(a segmenter's [[start, end], ...])", path, line)
        if kind is None:
            kind = has[0]
        elif has[0] != kind:
            raise DataError(f"mixed formats: earlier rows have '{kind}', this one '{has[0]}'", path, line)
        key = str(row["id"])
        if key in seen:
            raise DataError(f"duplicate id {shown_id(key)} (first on line {seen[key]})", path, line)
        seen[key] = line
        out.append({**row, "id": key})
    return out


def file_stem(path: Path) -> str:
    """A file's name without its .jsonl / .jsonl.gz / .json suffix ('gpt-4.5.jsonl' -> 'gpt-4.5')."""
    for suffix in (".jsonl.gz", ".jsonl", ".json"):
        if path.name.endswith(suffix):
            return path.name[: -len(suffix)]
    return path.name
