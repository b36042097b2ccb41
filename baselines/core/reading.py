"""Reading text, JSON and JSONL files with errors naming the file and line; strict JSON (each key once).
io.py gives these and the writers of safe_write.py as one place to read and write through."""
from __future__ import annotations

import gzip
import json
import re
import zlib
from pathlib import Path
from typing import Iterator

from baselines.core.errors import DataError


COMPRESSED = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"), (b"\x28\xb5\x2f\xfd", "zstd"),
              (b"PK\x03\x04", "zip"))  # the first bytes of compressed files; bzip2 also needs its block magic
BZIP2 = re.compile(rb"BZh[1-9]1AY&SY")
WIDE_TEXT = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe", "UTF-16"),
             (b"\xfe\xff", "UTF-16"))  # byte-order marks of text that is not UTF-8


def _open_binary(path: Path):
    """Open a file (gzip when the name ends in .gz) for reading bytes; a compressed file with another name, or
    UTF-16/32 text, is refused by its first bytes (`check_start`)."""
    path = Path(path)
    if not path.is_file():
        raise DataError("file not found", path)
    if path.suffix == ".gz":
        return gzip.open(path, "rb")
    handle = open(path, "rb")
    try:
        check_start(handle.read(10), path)
    except BaseException:
        handle.close()
        raise
    handle.seek(0)
    return handle


def check_start(head: bytes, path: Path) -> None:
    """Refuse a file that its first bytes show to be compressed (gzip, bzip2, xz, zstd, zip) or UTF-16/32 text,
    saying so, instead of calling its second byte not UTF-8."""
    problem = start_problem(head, path.name)
    if problem:
        raise DataError(problem, path)


def start_problem(head: bytes, gzip_name: str | None = None) -> str | None:
    """What the first bytes of a file show it to be when it is not plain text: compressed, or UTF-16/32 (None:
    neither). `gzip_name`: the file's name, for a reader that reads gzip named .gz (the hint says so)."""
    for magic, kind in COMPRESSED:
        if head.startswith(magic) and (kind != "bzip2" or BZIP2.match(head)):
            hint = (f"name it {gzip_name}.gz (this tool reads files named .gz), or decompress it"
                    if kind == "gzip" and gzip_name else "decompress it first")
            return f"is a {kind}-compressed file (it begins with the bytes {magic.hex(' ')}), not text: {hint}"
    for mark, kind in WIDE_TEXT:
        if head.startswith(mark):
            return f"is {kind} text (it begins with the byte-order mark {mark.hex(' ')}), not UTF-8: save it as UTF-8"
    return None


def open_text(path: Path):
    """Open a text file (gzip when the name ends in .gz) as UTF-8 (bad bytes raise UnicodeDecodeError)."""
    path = Path(path)
    if not path.is_file():
        raise DataError("file not found", path)
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def not_utf8(path: Path, line: int, exc: UnicodeDecodeError, line_start: int = 0) -> DataError:
    """The error for bytes that are not UTF-8: file, line, and the byte's position within that line (from 1)."""
    bad = exc.object[exc.start:exc.start + 1].hex()
    column = exc.start - line_start + 1
    return DataError(f"not UTF-8 text (byte 0x{bad} at byte {column} of the line: {exc.reason})", path, line)


def decode_utf8(data: bytes, path: Path) -> str:
    """`data` decoded as UTF-8; bad bytes raise a DataError naming the file, line and byte within the line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        raise not_utf8(path, data.count(b"\n", 0, exc.start) + 1, exc, line_start) from None


def _read_bytes(path: Path) -> bytes:
    try:
        with _open_binary(path) as handle:
            return handle.read()
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise DataError(f"not a readable gzip file ({exc})", path) from None


def read_text(path: Path) -> str:
    """A whole UTF-8 text file (gzip when .gz), line endings read as \\n like open(); bad bytes name line and byte."""
    return read_text_as_given(path).replace("\r\n", "\n").replace("\r", "\n")


def read_text_as_given(path: Path) -> str:
    """A whole UTF-8 text file (gzip when .gz) decoded and otherwise unchanged: a BOM and CR characters kept."""
    return decode_utf8(_read_bytes(path), path)


def read_jsonl(path: Path) -> Iterator[tuple[int, dict]]:
    """Yield (line number, object) for each non-blank line; bad JSON or bad bytes name the line."""
    try:
        with _open_binary(path) as handle:
            for number, raw in enumerate(handle, start=1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise not_utf8(path, number, exc) from None
                if not line.strip():
                    continue
                obj = _loads(line, path, number)
                if not isinstance(obj, dict):
                    raise DataError("expected a JSON object", path, number)
                yield number, obj
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise DataError(f"not a readable gzip file ({exc})", path) from None


def read_json(path: Path):
    """Load one JSON document, naming the file and line on error (bad bytes: line and byte within it)."""
    return _loads(decode_utf8(_read_bytes(path), path), path)


class DuplicateKey(json.JSONDecodeError):
    """A JSON object naming one key twice (json would silently keep the last value)."""

    def __init__(self, key: str):
        super().__init__(f"duplicate key {key!r} in one object (each key may appear once)", "", 0)
        self.key = key

    def __reduce__(self):  # pickled (by a worker process) with its own argument
        return DuplicateKey, (self.key,)


def unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """object_pairs_hook for json.loads: the object as a dict, or DuplicateKey when a key repeats (a
    JSONDecodeError, so code catching bad JSON catches it too; its .msg names the key)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return obj


def loads_strict(text: str | bytes):
    """json.loads refusing an object that names a key twice (raises DuplicateKey, a JSONDecodeError)."""
    return json.loads(text, object_pairs_hook=unique_keys)


def _loads(text: str, path: Path, line: int | None = None):
    """JSON text parsed; invalid or too deeply nested JSON, or an object naming a key twice, is a DataError
    naming the file and line."""
    try:
        return loads_strict(text)
    except DuplicateKey as exc:
        raise DataError(exc.msg, path, line or _duplicate_line(text)) from None
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON ({exc.msg})", path, line or exc.lineno) from None
    except RecursionError:
        raise DataError("JSON nested too deeply to read", path, line) from None


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[][{},:]')


def _duplicate_line(text: str) -> int | None:
    """The line of the first key that repeats within one object of `text` (valid JSON up to there)."""
    frames: list[set | None] = []  # per open container: the keys of an object seen so far, None for an array
    expect_key = False
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token in "{[":
            frames.append(set() if token == "{" else None)
            expect_key = token == "{"
        elif token in "}]":
            if not frames:
                return None
            frames.pop()
            expect_key = False
        elif token == ",":
            expect_key = bool(frames) and frames[-1] is not None
        elif token == ":":
            expect_key = False
        elif expect_key:
            key = json.loads(token)
            if key in frames[-1]:
                return text.count("\n", 0, match.start()) + 1
            frames[-1].add(key)
            expect_key = False
    return None
