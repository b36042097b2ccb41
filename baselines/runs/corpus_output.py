"""Where `baselines predict` writes: a JSONL file (one record per line), a folder (one <id>.json per document) or
standard output. A rerun with the same output resumes it.

Safe at any moment: a JSONL record is appended as one whole line, flushed and synced to disk before the next
document, and a last line without its newline (a run killed while writing it) is cut off when the file is
opened again; a folder's records are each written beside and renamed into place. A document whose text changed
since it was written replaces its record (the JSONL file is rewritten beside and renamed), so an id is never
written twice. One run writes an output at a time (a lock, refused at once)."""
from __future__ import annotations

import fcntl
import json
import os
import re
import sys
from pathlib import Path
from urllib.parse import quote

from baselines.core.errors import BaselinesError, DataError
from baselines.core.io import writable_target

RECORD_FIELDS = ("id", "digest")
FOLDER_TMP = re.compile(r"\..+\.json\.[0-9]+\.tmp")


def open_output(out: str | Path | None, inputs=()):
    """The sink for --out: "-" or None is standard output, a name ending in .jsonl a JSONL file, anything else a
    folder; a device, a FIFO or one of the inputs is refused before any work."""
    if out is None or str(out) == "-":
        return StreamSink(sys.stdout)
    target = writable_target(Path(out), inputs=inputs)
    if Path(out).name.endswith(".jsonl"):
        return JsonlSink(target)
    if target.exists() and not target.is_dir():
        raise DataError("is a file but not a .jsonl one: --out takes a .jsonl file or a folder", out)
    return FolderSink(target)


def _line(record: dict) -> bytes:
    return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")


def _locked(handle, path: Path) -> None:
    """Hold an exclusive lock on `handle` (a file object or descriptor), or refuse at once."""
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        if isinstance(handle, int):
            os.close(handle)
        else:
            handle.close()
        raise BaselinesError(f"{path}: another `baselines predict` is writing this output; wait for it to "
                             "finish or choose another --out") from None


class StreamSink:
    """Records as JSONL on a text stream (standard output): nothing to resume."""

    def __init__(self, stream):
        self.stream = stream
        self.notes: list[str] = []

    def state(self, doc_id: str, digest: str) -> str:
        return "new"

    def write(self, record: dict) -> None:
        self.stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.stream.flush()

    def close(self) -> None:
        pass


class JsonlSink:
    """One record per line, appended; resumed from the records already there."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.handle = open(self.path, "ab")
        _locked(self.handle, self.path)
        self.notes: list[str] = []
        leftover = re.compile(rf"\.{re.escape(self.path.name)}\.[0-9]+\.tmp")  # of a run killed while replacing
        for path in self.path.parent.iterdir():
            if leftover.fullmatch(path.name):
                path.unlink()
        try:
            self.digests = self._read()
        except BaselinesError:
            self.handle.close()
            raise

    def _read(self) -> dict[str, str]:
        """id -> digest of every whole record; a trailing partial line is cut off."""
        digests, whole = {}, 0
        with open(self.path, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.endswith(b"\n"):
                    break
                whole += len(raw)
                if raw.strip():
                    record = _record(raw, self.path, number)
                    digests[record["id"]] = record["digest"]
        size = self.path.stat().st_size
        if size > whole:
            os.truncate(self.path, whole)
            self.notes.append(f"{self.path}: cut off a partial last line ({size - whole} bytes) that an interrupted "
                              "run left; its document is labelled again")
        return digests

    def state(self, doc_id: str, digest: str) -> str:
        known = self.digests.get(doc_id)
        return "new" if known is None else "done" if known == digest else "changed"

    def write(self, record: dict) -> None:
        if record["id"] in self.digests:
            self._replace(record)
        else:
            self.handle.write(_line(record))
            self.handle.flush()
            os.fsync(self.handle.fileno())
        self.digests[record["id"]] = record["digest"]

    def _replace(self, record: dict) -> None:
        """The file rewritten beside with the document's earlier record replaced by `record`, then renamed."""
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        with open(self.path, "rb") as old, open(tmp, "wb") as new:
            for raw in old:
                if raw.strip() and json.loads(raw)["id"] == record["id"]:
                    continue
                new.write(raw)
            new.write(_line(record))
            new.flush()
            os.fsync(new.fileno())
        handle = open(tmp, "ab")
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a fresh file: nobody else holds it
        os.replace(tmp, self.path)
        self.handle.close()
        self.handle = handle

    def close(self) -> None:
        self.handle.close()


def _record(raw: bytes, path: Path, number: int) -> dict:
    """A line of an earlier run's output; anything else there is refused (it is not ours to extend)."""
    try:
        record = json.loads(raw)
    except (ValueError, RecursionError):
        record = None
    if not isinstance(record, dict) or not all(isinstance(record.get(key), str) for key in RECORD_FIELDS):
        raise DataError("is not a record of `baselines predict` (a JSON object with id and digest): this file is "
                        "not an output of it; choose another --out", path, number)
    return record


class FolderSink:
    """One <id>.json per document (its record on one line); resumed from the files already there."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.lock = os.open(self.folder, os.O_RDONLY)  # the folder itself is locked
        _locked(self.lock, self.folder)
        self.notes: list[str] = []
        for leftover in self.folder.iterdir():  # half-written records of a killed run: nobody else writes here
            if FOLDER_TMP.fullmatch(leftover.name):
                leftover.unlink()

    def file_of(self, doc_id: str) -> Path:
        name = quote(doc_id, safe="")
        if name.startswith("."):
            name = "%2E" + name[1:]
        if len(name) > 200:
            raise DataError(f"id {doc_id[:40]!r}... is too long to name a file; write a .jsonl --out instead")
        return self.folder / f"{name}.json"

    def state(self, doc_id: str, digest: str) -> str:
        path = self.file_of(doc_id)
        if not path.is_file():
            return "new"
        try:
            known = json.loads(path.read_bytes()).get("digest")
        except (ValueError, AttributeError):
            return "changed"
        return "done" if known == digest else "changed"

    def write(self, record: dict) -> None:
        path = self.file_of(record["id"])
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as handle:
            handle.write(_line(record))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)

    def close(self) -> None:
        os.close(self.lock)
