"""Reading and writing JSONL/JSON files with line-numbered errors and atomic replacement."""
from __future__ import annotations

import contextlib
import gzip
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterable, Iterator

from .errors import DataError


def open_text(path: Path):
    """Open a text file (gzip when the name ends in .gz) as UTF-8, failing clearly on bad bytes."""
    path = Path(path)
    if not path.is_file():
        raise DataError("file not found", path)
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def read_jsonl(path: Path) -> Iterator[tuple[int, dict]]:
    """Yield (line number, object) for each non-blank line; bad JSON names the line."""
    try:
        with open_text(path) as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DataError(f"invalid JSON ({exc.msg})", path, number) from None
                if not isinstance(obj, dict):
                    raise DataError("expected a JSON object", path, number)
                yield number, obj
    except UnicodeDecodeError as exc:
        raise DataError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", path) from None


def read_json(path: Path):
    """Load one JSON document, naming the file and line on error."""
    try:
        with open_text(path) as handle:
            return json.load(handle)
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON ({exc.msg})", path, exc.lineno) from None
    except UnicodeDecodeError as exc:
        raise DataError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", path) from None


@contextlib.contextmanager
def atomic_path(target: Path) -> Iterator[Path]:
    """Yield a temporary path beside `target`; on success it replaces `target` (file or folder)."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    os.unlink(tmp_name)
    tmp = Path(tmp_name)
    try:
        yield tmp
        if target.is_dir() and tmp.is_dir():
            old = target.with_name(f".{target.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(target, old)
            os.replace(tmp, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, target)
    finally:
        if tmp.is_dir():
            shutil.rmtree(tmp, ignore_errors=True)
        elif tmp.exists():
            tmp.unlink()


def write_jsonl(path: Path, rows: Iterable[dict]) -> None:
    """Write rows as JSONL, atomically."""
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def write_json(path: Path, obj) -> None:
    """Write one JSON document (indented), atomically."""
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(obj, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
