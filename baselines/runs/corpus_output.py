"""Where `baselines predict` writes: a JSONL file (one record per line), a folder (one <id>.json per document) or
standard output. A rerun with the same output resumes it.

Safe at any moment: a JSONL record is appended as one whole line, flushed and synced to disk before the next
document, and a last line without its newline (a run killed while writing it) is cut off when the file is
opened again; a folder's records are each written beside and renamed into place. A document whose text changed
since it was written replaces its record (the JSONL file is rewritten beside and renamed), so an id is never
written twice. One run writes an output at a time (a lock, refused at once).

An output is resumed only by the job that wrote it: its manifest (`.predict_manifest.json` in a folder output,
`.<name>.predict_manifest.json` beside a JSONL one) records the task, the model's digest and the options that
change the records, and another job is refused in one line naming the difference, before any work. A folder
output holds records only where records go: any other `<id>.json` entry in it is refused, never replaced."""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import sys
from pathlib import Path
from urllib.parse import quote

from baselines.core.errors import BaselinesError, DataError
from baselines.core.io import writable_target
from baselines.core.leftovers import WRITER_MARK
from baselines.runs.corpus import StreamSink
from baselines.runs.corpus_job import MANIFEST, Resumable

RECORD_FIELDS = ("id", "digest")
FOLDER_TMP = re.compile(rf"\..+\.json\.{WRITER_MARK}\.[0-9]+\.tmp")  # ours only: see `_tmp_name`


def open_output(out: str | Path | None, inputs=(), job: dict | None = None):
    """The sink for --out: "-" or None is standard output, a name ending in .jsonl a JSONL file, anything else a
    folder; a device, a FIFO or one of the inputs is refused before any work, and so is an output that another
    job wrote (`job`: what predict_job in baselines.cli.corpus returns)."""
    if out is None or str(out) == "-":
        return StreamSink(sys.stdout)
    target = writable_target(Path(out), inputs=inputs)
    if Path(out).name.endswith(".jsonl"):
        return JsonlSink(target, job)
    if target.exists() and not target.is_dir():
        raise DataError("is a file but not a .jsonl one: --out takes a .jsonl file or a folder", out)
    return FolderSink(target, job)


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


class JsonlSink(Resumable):
    """One record per line, appended; resumed from the records already there, by the job that wrote them."""

    def __init__(self, path: Path, job: dict | None = None):
        self.path = Path(path)
        self.created = not self.path.exists()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.handle = open(self.path, "ab")
        _locked(self.handle, self.path)
        self.notes: list[str] = []
        try:
            self.digests, whole = self._read()
            self.check_job(self.path.with_name(f".{self.path.name}.{MANIFEST}"), job, self.path)
        except BaseException:
            self.handle.close()
            raise
        self._cut(whole)
        leftover = re.compile(rf"\.{re.escape(self.path.name)}\.{WRITER_MARK}\.[0-9]+\.tmp")  # a killed run's
        for path in self.path.parent.iterdir():
            if leftover.fullmatch(path.name):
                path.unlink()

    def _read(self) -> tuple[dict[str, str], int]:
        """(id -> digest of every whole record, the bytes they take): a trailing partial line is not one."""
        digests, whole = {}, 0
        with open(self.path, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.endswith(b"\n"):
                    break
                whole += len(raw)
                if raw.strip():
                    record = _record(raw, self.path, number)
                    digests[record["id"]] = record["digest"]
        return digests, whole

    def _cut(self, whole: int) -> None:
        """Cut off a partial last line (of a run killed while writing it)."""
        size = self.path.stat().st_size
        if size > whole:
            os.truncate(self.path, whole)
            self.notes.append(f"{self.path}: cut off a partial last line ({size - whole} bytes) that an interrupted "
                              "run left; its document is labelled again")

    def write(self, record: dict) -> None:
        self.mark()
        if record["id"] in self.digests:
            self._replace(record)
        else:
            self.handle.write(_line(record))
            self.handle.flush()
            os.fsync(self.handle.fileno())
        self.digests[record["id"]] = record["digest"]

    def _replace(self, record: dict) -> None:
        """The file rewritten beside with the document's earlier record replaced by `record`, then renamed."""
        tmp = _tmp_name(self.path)
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

    def discard(self) -> None:
        """Close, removing the file if this run created it and wrote nothing (the model could not load)."""
        if self.created and not self.digests:
            self.path.unlink(missing_ok=True)
        self.close()


def _record(raw: bytes, path: Path, number: int) -> dict:
    """A line of an earlier run's output; anything else there is refused (it is not ours to extend)."""
    try:
        record = json.loads(raw)
    except (ValueError, RecursionError):
        record = None
    if not _is_record(record):
        raise DataError("is not a record of `baselines predict` (a JSON object with id and digest): this file is "
                        "not an output of it; choose another --out", path, number)
    return record


def _is_record(obj) -> bool:
    return isinstance(obj, dict) and all(isinstance(obj.get(key), str) for key in RECORD_FIELDS)


class FolderSink(Resumable):
    """One <id>.json per document (its record on one line); resumed from the records already there, by the job
    that wrote them. Any other <id>.json entry (a file predict did not write, a folder) is refused on opening:
    what is not a record is never replaced. Other files (no .json name, hidden) are left alone."""

    def __init__(self, folder: Path, job: dict | None = None):
        self.folder = Path(folder)
        self.created = not self.folder.exists()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.lock = os.open(self.folder, os.O_RDONLY)  # the folder itself is locked
        _locked(self.lock, self.folder)
        self.notes: list[str] = []
        try:
            self.digests = self._read()
            self.check_job(self.folder / f".{MANIFEST}", job, self.folder)
        except BaseException:
            os.close(self.lock)
            raise
        for leftover in self.folder.iterdir():  # half-written records of a killed run: nobody else writes here
            if FOLDER_TMP.fullmatch(leftover.name) and leftover.is_file():
                leftover.unlink()

    def _read(self) -> dict[str, str]:
        """id -> digest of the records here; an entry where a record would go that is not one is refused."""
        digests, strangers = {}, []
        for path in sorted(self.folder.iterdir()):
            if path.name.startswith(".") or not path.name.endswith(".json"):
                continue  # never the name of a record
            record = self._record_in(path)
            if record is None:
                strangers.append(path)
            else:
                digests[record["id"]] = record["digest"]
        if strangers:
            what = ("is a folder where a record of `baselines predict` would go" if strangers[0].is_dir() else
                    "not a record of `baselines predict` (a folder --out holds only its <id>.json records)")
            more = f" ({len(strangers) - 1} more here: {', '.join(p.name for p in strangers[1:])})"
            raise DataError(f"{what}: refusing to replace it{more if strangers[1:] else ''}; move it or use another "
                            "--out", strangers[0])
        return digests

    def _record_in(self, path: Path) -> dict | None:
        """The record a file holds when it is the one of the id its name gives, else None."""
        if not path.is_file():
            return None
        try:
            record = json.loads(path.read_bytes())
        except (ValueError, RecursionError):
            return None
        try:
            return record if _is_record(record) and self.file_of(record["id"]).name == path.name else None
        except DataError:  # an id too long to name a file
            return None

    def file_of(self, doc_id: str) -> Path:
        name = quote(doc_id, safe="")
        if name.startswith("."):
            name = "%2E" + name[1:]
        if len(name) > 200:
            raise DataError(f"id {doc_id[:40]!r}... is too long to name a file; write a .jsonl --out instead")
        return self.folder / f"{name}.json"

    def state(self, doc_id: str, digest: str) -> str:
        self.file_of(doc_id)  # an id that cannot name a file is refused here, as a bad document
        return super().state(doc_id, digest)

    def write(self, record: dict) -> None:
        self.mark()
        path = self.file_of(record["id"])
        tmp = _tmp_name(path)
        try:
            with open(tmp, "wb") as handle:
                handle.write(_line(record))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)  # nothing half-written is left behind
            raise
        self.digests[record["id"]] = record["digest"]

    def close(self) -> None:
        os.close(self.lock)

    def discard(self) -> None:
        """Close, removing the folder if this run created it and wrote nothing (the model could not load)."""
        self.close()
        if self.created and not self.digests:
            with contextlib.suppress(OSError):
                self.folder.rmdir()


def _tmp_name(path: Path) -> Path:
    """The hidden temporary beside `path` that this tool writes (and alone removes): .<name>.legal-baselines.<pid>.tmp"""
    return path.with_name(f".{path.name}.{WRITER_MARK}.{os.getpid()}.tmp")
