"""The documents of one INPUT of `baselines predict`, read one at a time: a text file, a folder of .txt files, a
glob of text files, a JSONL of {"id", "text"}, or that JSONL on standard input ("-"). A document that cannot be
read (not UTF-8, binary, empty, too large, a bad JSONL line) comes with its problem, to be reported and counted."""
from __future__ import annotations

import functools
import glob
import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from baselines.core.io import loads_strict, start_problem
from baselines.core.errors import DataError

MAX_TEXT_BYTES = 64 * 2**20  # a document larger than this is reported, not read
GLOB_CHARACTERS = "*?["


@dataclass(frozen=True)
class CorpusText:
    """One document: its id, where it came from (`name`, as reports give it), its text as given (UTF-8 decoded,
    otherwise unchanged), or the `problem` that keeps it from being labelled."""

    id: str
    name: str
    text: str = ""
    problem: str | None = None

    @functools.cached_property
    def digest(self) -> str:  # read twice per document (resume check, record): hashed once
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


@dataclass
class Corpus:
    """The documents named by one INPUT: iterating reads them one at a time. `paths` are the files read (checked
    against the output), `total` the number of documents when known before reading them."""

    kind: str  # text | folder | glob | jsonl | stdin
    paths: list
    total: int | None
    read: Callable  # () -> Iterator[CorpusText]

    def __iter__(self) -> Iterator[CorpusText]:
        return self.read()


def read_corpus(spec: str | Path, stdin=None, out: str | Path | None = None) -> Corpus:
    """The documents of INPUT: a text file, a folder of .txt files, a glob of text files, a .jsonl file of
    {"id", "text"}, or "-" (JSONL on standard input). What names no document is a DataError. A folder or a glob
    never reads the output `out` (nor a file in it, nor its manifest), so an --out inside INPUT can be resumed."""
    spec = str(spec)
    if spec == "-":
        stream = stdin if stdin is not None else sys.stdin.buffer
        return Corpus("stdin", [], None, lambda: jsonl_texts(stream, "<stdin>"))
    path = Path(spec)
    if path.is_dir():
        return _files_corpus("folder", _inputs(path.glob("*.txt"), out), path)
    if path.is_file() and path.name.endswith(".jsonl"):
        return Corpus("jsonl", [path], _count_lines(path), lambda: _jsonl_file_texts(path))
    if path.is_file():
        return _files_corpus("text", [path], path)
    if any(character in spec for character in GLOB_CHARACTERS):
        return _files_corpus("glob", _inputs(map(Path, glob.glob(spec)), out), spec)
    raise DataError("no such file or folder (INPUT is a text file, a folder of .txt files, a glob, a .jsonl file "
                    "or - for JSONL on standard input)", spec)


def _inputs(paths: Iterable[Path], out: str | Path | None) -> list[Path]:
    """The files among `paths`, sorted, without what belongs to the output `out`: the output itself, what a
    folder output holds, and the hidden files beside it that a run writes (.<name>.*: manifest, temporary)."""
    files = sorted(path for path in paths if path.is_file())
    if out is None or str(out) == "-":
        return files
    real = os.path.realpath(out)
    folder, hidden = os.path.dirname(real), f".{os.path.basename(real)}."

    def belongs(path: Path) -> bool:
        found = os.path.realpath(path)
        return (found == real or found.startswith(real + os.sep)
                or (os.path.dirname(found) == folder and os.path.basename(found).startswith(hidden)))

    return [path for path in files if not belongs(path)]


def _files_corpus(kind: str, paths: list[Path], where) -> Corpus:
    if not paths:
        raise DataError("no .txt files here" if kind == "folder" else "the pattern matches no file", where)
    return Corpus(kind, paths, len(paths), lambda: (file_text(path) for path in paths))


def file_text(path: Path) -> CorpusText:
    """A text file as one document (id: its name without the extension)."""
    name = str(path)
    try:
        if path.stat().st_size > MAX_TEXT_BYTES:
            return CorpusText(path.stem, name, problem=f"larger than {MAX_TEXT_BYTES // 2**20} MiB")
        data = path.read_bytes()
    except OSError as exc:
        return CorpusText(path.stem, name, problem=f"cannot be read ({exc.strerror or exc})")
    return _decoded(path.stem, name, data)


def _decoded(doc_id: str, name: str, data: bytes) -> CorpusText:
    """A document from its bytes: compressed, UTF-16, binary (NUL bytes), not UTF-8 or empty is a problem."""
    problem = start_problem(data[:10])
    if problem:
        return CorpusText(doc_id, name, problem=not_plain_text(problem))
    if b"\x00" in data:
        return CorpusText(doc_id, name, problem="binary (it holds NUL bytes), not text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return CorpusText(doc_id, name, problem=f"not UTF-8 text (byte 0x{data[exc.start:exc.start + 1].hex()} "
                                                f"on line {line})")
    return checked_text(CorpusText(doc_id, name, text))


def not_plain_text(problem: str) -> str:
    """A reader's "is a gzip-compressed file ..." as a document's problem: "binary: a gzip-compressed file ..."."""
    return ("binary: " if "compressed" in problem else "") + problem.removeprefix("is ")


def checked_text(text: CorpusText) -> CorpusText:
    if not text.text.strip().lstrip("\ufeff"):
        return CorpusText(text.id, text.name, problem="empty")
    if "\x00" in text.text:
        return CorpusText(text.id, text.name, problem="binary (it holds NUL characters), not text")
    return text


def _jsonl_file_texts(path: Path) -> Iterator[CorpusText]:
    with open(path, "rb") as handle:
        problem = start_problem(handle.read(10))
        if problem:  # one problem for the file, not one per line of compressed bytes
            yield CorpusText(str(path), str(path), problem=not_plain_text(problem))
            return
        handle.seek(0)
        yield from jsonl_texts(handle, str(path))


def _count_lines(path: Path) -> int:
    """Non-blank lines of a file, read in blocks (the progress bar's total)."""
    with open(path, "rb") as handle:
        return sum(1 for line in handle if line.strip())


def jsonl_texts(handle, name: str) -> Iterator[CorpusText]:
    """One document per non-blank line of {"id", "text"}; a line that is not one is a document with a problem,
    named "<name>:<line>"."""
    for number, raw in enumerate(handle, start=1):
        if not raw.strip():
            continue
        where = f"{name}:{number}"
        if len(raw) > MAX_TEXT_BYTES:
            yield CorpusText(where, where, problem=f"larger than {MAX_TEXT_BYTES // 2**20} MiB")
            continue
        try:
            obj = loads_strict(raw.decode("utf-8"))  # a key named twice is a document with a problem
        except UnicodeDecodeError:
            yield CorpusText(where, where, problem="not UTF-8 text")
            continue
        except (json.JSONDecodeError, RecursionError) as exc:
            yield CorpusText(where, where, problem=f"not JSON ({getattr(exc, 'msg', 'nested too deeply')})")
            continue
        yield _jsonl_document(obj, where)


def _jsonl_document(obj, where: str) -> CorpusText:
    if not isinstance(obj, dict):
        return CorpusText(where, where, problem='expected a JSON object {"id", "text"}')
    doc_id = obj.get("id")
    if isinstance(doc_id, bool) or not isinstance(doc_id, (str, int)) or str(doc_id).strip() == "":
        return CorpusText(where, where, problem='"id" must be a non-empty string or a number')
    named = f"{where} (id {doc_id})"
    if not isinstance(obj.get("text"), str):
        return CorpusText(str(doc_id), named, problem='"text" must be a string')
    return checked_text(CorpusText(str(doc_id), named, obj["text"]))
