"""Reading and writing JSONL/JSON files with line-numbered errors and atomic replacement."""
from __future__ import annotations

import contextlib
import fcntl
import gzip
import json
import os
import re
import secrets
import shutil
import socket
import stat
import time
import zlib
from pathlib import Path
from typing import Callable, Iterable, Iterator

from baselines.core.errors import DataError


STALE_SECONDS = 60  # a leftover of a dead writer on this host (or of an older release) is removed after this
STALE_REMOTE_SECONDS = 3600  # a leftover written from another host: its writer cannot be checked, so wait longer


def _open_binary(path: Path):
    """Open a file (gzip when the name ends in .gz) for reading bytes."""
    path = Path(path)
    if not path.is_file():
        raise DataError("file not found", path)
    return gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")


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


def _loads(text: str, path: Path, line: int | None = None):
    """JSON text parsed; invalid or too deeply nested JSON is a DataError naming the file and line."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON ({exc.msg})", path, line or exc.lineno) from None
    except RecursionError:
        raise DataError("JSON nested too deeply to read", path, line) from None


@contextlib.contextmanager
def atomic_path(target: Path, check: Callable[[], None] | None = None) -> Iterator[Path]:
    """Yield a temporary path beside `target`; on success it replaces `target` (file or folder).

    Safe under concurrency: temporary names are unique, and a folder is swapped under an exclusive lock
    (concurrent writers of one target wait for each other; the last one wins). `check`, if given, runs
    under that lock just before the swap: raising there keeps the target as another writer left it.
    Leftovers of killed writers (`.<name>.<host>_<pid>_<hex>.tmp` / `.old`) are removed by the next
    write of the same target.
    """
    target = writable_target(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale(target)
    tmp = _sibling(target, "tmp")
    try:
        yield tmp
        if tmp.is_dir():
            with _exclusive_lock(target.with_name(f".{target.name}.lock")):
                if check is not None:
                    check()
                _replace_folder(tmp, target)
        else:
            os.replace(tmp, target)
    finally:
        _remove(tmp)


def writable_target(target: Path, inputs: Iterable[Path] = ()) -> Path:
    """The path a write of `target` replaces: a symbolic link is followed to the file or folder it names, and
    anything there but a regular file or a folder (a device, a FIFO, a socket), or one of the command's own
    `inputs`, is refused before any work."""
    target = Path(target)
    real = Path(os.path.realpath(target))
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise DataError(f"cannot write here ({exc.strerror})", target) from None
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise DataError("is not a regular file or folder (a device, FIFO or socket): refusing to replace it", target)
    for source in inputs:
        if os.path.realpath(source) == str(real):
            raise DataError("is also an input of this command: refusing to overwrite it (choose another --out)",
                            target)
    return real


def _replace_folder(tmp: Path, target: Path) -> None:
    """Move folder `tmp` to `target`, an existing folder first moved aside under a unique name, then removed."""
    if not target.is_dir() or target.is_symlink():
        os.replace(tmp, target)
        return
    old = _sibling(target, "old")
    os.replace(target, old)
    os.replace(tmp, target)
    shutil.rmtree(old, ignore_errors=True)


def _sibling(target: Path, kind: str) -> Path:
    """A fresh hidden name beside `target` naming its writer: .<name>.<host>_<pid>_<random hex>.<kind>."""
    return target.with_name(f".{target.name}.{_host()}_{os.getpid()}_{secrets.token_hex(4)}.{kind}")


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9-]", "", socket.gethostname())[:24]


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    elif path.exists() or path.is_symlink():
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


@contextlib.contextmanager
def _exclusive_lock(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive flock on `lock_path`, removed on release (retrying if it was replaced meanwhile)."""
    while True:
        handle = open(lock_path, "a")
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            same = os.path.samestat(os.fstat(handle.fileno()), os.stat(lock_path))
        except FileNotFoundError:
            same = False
        if same:
            break
        handle.close()  # another writer removed this lock file after we opened it: lock the new one
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(lock_path)
        handle.close()


def remove_stale(target: Path) -> list[Path]:
    """Remove leftovers of killed writes of `target` (its hidden .tmp / .old siblings); returns what went.

    A leftover goes when it is older than STALE_SECONDS and its writer (host and pid in its name) no longer
    runs here; one from another host after STALE_REMOTE_SECONDS; one without a writer's name (an older
    release's `.<name>.old` or `.<name>.<8 characters>.tmp`) after STALE_SECONDS."""
    target = Path(target)
    pattern = re.compile(rf"\.{re.escape(target.name)}\.(?:(?P<host>[A-Za-z0-9-]*)_(?P<pid>[0-9]+)_[0-9a-f]{{8}}"
                         rf"\.(?:tmp|old)|old|[a-z0-9_]{{8}}\.tmp)")
    removed = []
    try:
        entries = list(os.scandir(target.parent))
    except FileNotFoundError:
        return removed
    for entry in entries:
        match = pattern.fullmatch(entry.name)
        if match and _is_stale(entry, match["host"], match["pid"]):
            _remove(Path(entry.path))
            removed.append(Path(entry.path))
    return removed


def _is_stale(entry: os.DirEntry, host: str | None, pid: str | None) -> bool:
    try:
        age = time.time() - entry.stat(follow_symlinks=False).st_mtime
    except FileNotFoundError:
        return False
    if pid is None:  # an older release's leftover: no writer named
        return age > STALE_SECONDS
    if host != _host():
        return age > STALE_REMOTE_SECONDS
    return age > STALE_SECONDS and not _running(int(pid))


def _running(pid: int) -> bool:
    """Whether a process with this id runs on this host."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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
