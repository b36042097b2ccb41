"""Every write of the project: whole files and whole folders swapped into place, each target checked first.

Three rules hold for every output, file or folder alike:

- nothing is deleted or written through a symbolic link: a link where an output goes is refused (one line),
  except a file the user named himself (`follow_link`: `--out link.jsonl` writes the file the link names);
  a folder is never replaced through one, so the folder a link names keeps every byte;
- nothing is replaced that the project did not write: a run folder holds results.json, a model folder
  config.json (`marker`), and a folder shared with other files (`compare --out`, an export) has a manifest
  listing the files the project wrote there with their sha256 (manifest.py); anything else there, or a
  listed file edited since, is refused, named;
- every target is checked before the first byte is written: devices, FIFOs, sockets, links and other
  writers' files are refused before any work, and several files are staged beside their targets before the
  first one replaces its target.

Temporaries are hidden siblings named after their writer (`.<name>.<host>_<pid>_<hex>.tmp` / `.old`); those of
killed writers are removed by the next write of the same target.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import secrets
import shutil
import socket
import stat
import time
from pathlib import Path
from typing import Callable, Iterable, Iterator

from baselines.core.errors import DataError
from baselines.core.manifest import changed_names, file_digest, manifest_bytes, owned_names, read_manifest

STALE_SECONDS = 60  # a leftover of a dead writer on this host (or of an older release) is removed after this
STALE_REMOTE_SECONDS = 3600  # a leftover written from another host: its writer cannot be checked, so wait longer


def writable_target(target: Path, inputs: Iterable[Path] = (), *, follow_link: bool = True) -> Path:
    """The path a write of `target` replaces, checked before any work: a symbolic link is followed to the file
    or folder it names when `follow_link` (a path the user gave) and refused otherwise; anything there but a
    regular file or a folder (a device, a FIFO, a socket), or one of the command's own `inputs`, is refused."""
    target = Path(target)
    if os.path.islink(target) and not follow_link:
        raise DataError("is a symbolic link: refusing to write through it (remove the link, or choose another "
                        "name)", target)
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


def check_replaceable_folder(folder: Path, markers: Iterable[str] = ()) -> None:
    """Refuse to replace `folder` when it is a symbolic link, not a folder, or a non-empty folder holding none
    of `markers` (the file each writer of such folders leaves: results.json, config.json) as a regular file."""
    folder = Path(folder)
    if os.path.islink(folder):
        raise DataError("is a symbolic link: refusing to replace the folder it names (remove the link, or "
                        "choose another name)", folder)
    if not os.path.lexists(folder):
        return
    if not folder.is_dir():
        raise DataError("exists and is not a folder: refusing to replace it (choose another name)", folder)
    markers = tuple(markers)
    if markers and any(folder.iterdir()) and not any(_is_regular(folder / name) for name in markers):
        raise DataError(f"holds files and no {' or '.join(markers)}: this program did not write it; refusing "
                        "to replace it (move it away, or choose another name)", folder)


def _is_regular(path: Path) -> bool:
    """Whether `path` is a regular file itself (not a link to one)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


@contextlib.contextmanager
def atomic_path(target: Path, check: Callable[[], None] | None = None, *, follow_link: bool = False,
                marker: str | None = None) -> Iterator[Path]:
    """Yield a temporary path beside `target`; on success it replaces `target` (file or folder).

    A symbolic link at `target` is refused, unless `follow_link` (a file the user named: the file it names is
    replaced); a folder is never replaced through a link. With `marker`, an existing non-empty folder is
    replaced only when it holds that file (its writer's mark). Safe under concurrency: temporary names are
    unique, and a folder is swapped under an exclusive lock (concurrent writers of one target wait for each
    other; the last one wins). `check`, if given, runs under that lock just before the swap, after the
    folder checks: raising there keeps the target as another writer left it.
    """
    given = Path(target)
    if os.path.islink(given) and os.path.isdir(given):
        raise DataError("is a symbolic link to a folder: refusing to replace the folder through it (remove the "
                        "link, or choose another name)", given)
    target = writable_target(given, follow_link=follow_link)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale(target)
    tmp = _sibling(target, "tmp")
    try:
        yield tmp
        if tmp.is_dir():
            with _exclusive_lock(target.parent):
                check_replaceable_folder(given, [marker] if marker else [])
                if check is not None:
                    check()
                _replace_folder(tmp, target)
        else:
            os.replace(tmp, target)
    finally:
        _remove(tmp)


def write_staged(targets: dict[Path, bytes]) -> list[Path]:
    """Write several checked files (in this order), each replaced atomically; every one is staged beside its
    target before the first is replaced, so a failure while staging (a full disk) replaces none. A target
    that became a link meanwhile is replaced itself, never the file it names (a rename does not follow links)."""
    staged: dict[Path, Path] = {}
    try:
        for path, data in targets.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            remove_stale(path)
            staged[path] = _sibling(path, "tmp")
            with open(staged[path], "xb") as handle:
                handle.write(data)
        for path, tmp in staged.items():
            os.replace(tmp, path)
    finally:
        for tmp in staged.values():
            _remove(tmp)
    return list(targets)


def write_output_folder(folder: Path, files: dict[str, bytes], manifest: str, written_by: str, *,
                        earlier: Iterable[str] = (), also: dict[Path, bytes] | None = None) -> list[Path]:
    """Files (plain names -> bytes) into `folder`, a folder that may hold other files: each name must be absent
    or a regular file this program wrote there, as its `manifest` records (name and sha256 of the bytes written;
    without a digest, or without a manifest, only a name in `earlier`: an older release's output known by its
    content); anything else is refused before any write. The manifest is written first (a listed file that is
    absent is harmless), then the files, then `also` (files the user named, already checked). Returns what was
    written, the manifest first."""
    folder = Path(folder)
    listed = read_manifest(folder, manifest)
    ours = owned_names(folder, listed, earlier)
    changed = set(changed_names(folder, listed))
    for name in files:  # a link, a device or a FIFO: named as such, before any other reason
        if os.path.lexists(folder / name) and not _is_regular(folder / name):
            writable_target(folder / name, follow_link=False)
    for name in files:
        path = folder / name
        if os.path.lexists(path) and name not in ours:
            why = ("has changed since this program wrote it (its sha256 is not the one " + manifest + " records)"
                   if name in changed else f"was not written by this program (no {manifest} lists it)")
            raise DataError(f"{why}: refusing to replace it (move it away, or choose another folder)", path)
    kept = {name: file_digest(folder / name) for name in ours
            if "/" not in name and name not in files and _is_regular(folder / name)}
    targets = {folder / manifest: manifest_bytes(written_by, {**kept, **files}),
               **{folder / name: data for name, data in files.items()}, **(also or {})}
    return write_staged(targets)


def _replace_folder(tmp: Path, target: Path) -> None:
    """Move folder `tmp` to `target`, an existing folder first moved aside under a unique name, then removed
    (a folder moved aside that turned into a link meanwhile is not followed: rmtree refuses links)."""
    if not target.is_dir() or target.is_symlink():
        os.replace(tmp, target)
        return
    old = _sibling(target, "old")
    os.replace(target, old)
    os.replace(tmp, target)
    shutil.rmtree(old, ignore_errors=True)


WRITER_MARK = "legal-baselines"  # in the name of every temporary or backup this tool writes, and of no other


def _sibling(target: Path, kind: str) -> Path:
    """A fresh hidden name beside `target` naming this tool and its writer:
    .<name>.legal-baselines.<host>.<pid>.<16 random hex digits>.<kind>; only such names are ever removed."""
    return target.with_name(f".{target.name}.{WRITER_MARK}.{_host()}.{os.getpid()}.{secrets.token_hex(8)}.{kind}")


def ours_pattern(name: str) -> re.Pattern:
    """The temporaries and backups this tool writes for a target named `name` (see `_sibling`)."""
    return re.compile(rf"\.{re.escape(name)}\.{WRITER_MARK}\.(?P<host>[A-Za-z0-9-]*)\.(?P<pid>[0-9]+)\.[0-9a-f]{{16}}"
                      rf"\.(?:tmp|old)")


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9-]", "", socket.gethostname())[:24]


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    elif path.exists() or path.is_symlink():
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


@contextlib.contextmanager
def _exclusive_lock(folder: Path) -> Iterator[None]:
    """Hold an exclusive flock on `folder` itself (no lock file: nothing is created, nothing of a user's
    removed), so concurrent writers of one target swap it in turn."""
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


def remove_stale(target: Path) -> list[Path]:
    """Remove leftovers of killed writes of `target` (its hidden .tmp / .old siblings that this tool named,
    `ours_pattern`); returns what went. Any other file, whatever its name (`.<name>.old`, `.<name>.lock`, a
    user's `.<name>.backup01.tmp`), is never touched.

    A leftover goes when it is older than STALE_SECONDS and its writer (host and pid in its name) no longer
    runs here; one from another host after STALE_REMOTE_SECONDS."""
    target = Path(target)
    pattern = ours_pattern(target.name)
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


def write_jsonl(path: Path, rows: Iterable[dict], *, follow_link: bool = False) -> None:
    """Write rows as JSONL, atomically (`follow_link`: a path the user named may be a link to the file)."""
    with atomic_path(path, follow_link=follow_link) as tmp:
        with open(tmp, "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def write_json(path: Path, obj, *, follow_link: bool = False) -> None:
    """Write one JSON document (indented), atomically (`follow_link`: a path the user named may be a link)."""
    with atomic_path(path, follow_link=follow_link) as tmp:
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(obj, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
