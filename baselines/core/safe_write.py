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

Temporaries are hidden siblings named after their writer (`.<name>.legal-baselines.<host>.<pid>.<hex>.tmp` /
`.old`); those of killed writers are removed by the next write of the same target. A folder whose only copy is the
`.old` of a swap killed between its two renames is put back first; while its writer cannot be known to be gone
(leftovers.py), nothing is written over that name (`check_no_pending`).
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import stat
from pathlib import Path
from typing import Callable, Iterable, Iterator

from baselines.core.errors import DataError
from baselines.core.leftovers import pending_backup, remove, remove_stale, restore_interrupted, sibling
from baselines.core.manifest import changed_names, file_digest, manifest_bytes, owned_names, read_manifest


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
    check_file_target(real)
    for source in inputs:
        if os.path.realpath(source) == str(real):
            raise DataError("is also an input of this command: refusing to overwrite it (choose another --out)",
                            target)
    return real


def check_output(target: Path, *, folder: bool, option: str = "--out", example: str = "out.json") -> Path:
    """An output the user named (`option`, a file or a `folder`), checked before any work: besides what
    `writable_target` refuses, a folder named by a symbolic link to nothing, a file where a folder goes or a folder
    where a file goes (`example`: a file name to suggest inside it), and a place whose nearest existing folder this
    user cannot write in. Returns the path written."""
    target = Path(target)
    if folder and os.path.islink(target) and not os.path.exists(target):
        raise DataError(f"is a symbolic link to {os.readlink(target)}, which does not exist: create that folder, or "
                        f"choose another {option}", target)
    real = writable_target(target)
    if folder and real.exists() and not real.is_dir():
        raise DataError(f"exists and is not a folder: {option} names a folder here (choose another)", target)
    if not folder and real.is_dir():
        raise DataError(f"is a folder: {option} names the file to write (e.g. {target / example})", target)
    if folder and real.is_dir() and not os.stat(real).st_mode & stat.S_IWUSR:  # as a read-only file is, root or not
        raise DataError(f"is read-only: refusing to write into it (make it writable, or choose another {option})",
                        target)
    existing = real if folder and real.is_dir() else real.parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise DataError(f"cannot be written: {existing} is not a folder this user can write in (choose another "
                        f"{option})", target)
    return real


def check_file_target(path: Path) -> None:
    """A file about to be replaced keeps what its user set on it: one with other hard links (they would keep the old
    text) or one made read-only is refused, in one line; its mode is kept (`_keep_mode`)."""
    try:
        status = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return
    if not stat.S_ISREG(status.st_mode):
        return
    if status.st_nlink > 1:
        raise DataError(f"has {status.st_nlink} hard links: replacing it would leave the others with the old text; "
                        "refusing (break the links, or choose another name)", path)
    if not status.st_mode & stat.S_IWUSR:
        raise DataError("is read-only: refusing to replace it (make it writable, or choose another name)", path)


def _keep_mode(tmp: Path, target: Path) -> None:
    """Give the file about to replace `target` the mode `target` has (a 0600 README stays 0600)."""
    with contextlib.suppress(FileNotFoundError):
        os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))


def check_replaceable_folder(folder: Path, markers: Iterable[str] = ()) -> None:
    """Refuse to replace `folder` when it is a symbolic link, not a folder, a non-empty folder holding none of
    `markers` (the file each writer of such folders leaves: results.json, config.json) as a regular file, or one
    made read-only (the folder itself, or its marker file)."""
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
    for path in (folder, *(folder / name for name in markers if _is_regular(folder / name))):
        if not os.lstat(path).st_mode & stat.S_IWUSR:  # as a file is (check_file_target), whoever runs this
            raise DataError("is read-only: refusing to replace its folder (make it writable, or choose another "
                            "name)", path)


def _is_regular(path: Path) -> bool:
    """Whether `path` is a regular file itself (not a link to one)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


@contextlib.contextmanager
def atomic_path(target: Path, check: Callable[[], None] | None = None, *, follow_link: bool = False,
                marker: str | tuple[str, ...] | None = None) -> Iterator[Path]:
    """Yield a temporary path beside `target`; on success it replaces `target` (file or folder).

    A symbolic link at `target` is refused, unless `follow_link` (a file the user named: the file it names is
    replaced); a folder is never replaced through a link. With `marker`, an existing non-empty folder is
    replaced only when it holds that file (its writer's mark), or one of them when several are given. Safe under concurrency: temporary names are
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
    tmp = sibling(target, "tmp")
    try:
        yield tmp
        if tmp.is_dir():
            with _exclusive_lock(target.parent):
                check_no_pending(target)
                check_replaceable_folder(given, [marker] if isinstance(marker, str) else marker or [])
                if check is not None:
                    check()
                _replace_folder(tmp, target)
        else:
            check_file_target(target)
            _keep_mode(tmp, target)
            os.replace(tmp, target)
    finally:
        remove(tmp)


def check_no_pending(target: Path) -> None:
    """Put back the previous copy of a folder swap of `target` killed between its renames (its writer gone), and
    refuse to write when no `target` is there but such a copy whose writer may still run: writing then would leave
    the last complete state only as a hidden backup, which a later write would delete."""
    restore_interrupted(target)
    pending = pending_backup(target)
    if pending is not None:
        backup, host, pid = pending
        raise DataError(f"is not there: its last complete copy is the hidden backup {backup.name}, left by process "
                        f"{pid} on host {host}, which may still be writing it; refusing to write over that name (if "
                        f"that process was killed, rename the backup to {Path(target).name}; else wait for it)", target)


def settled(target: Path) -> None:
    """`check_no_pending`, under the lock a folder swap beside `target` holds (no swap is half done meanwhile):
    run before any work by the commands that replace a folder."""
    target = Path(target)
    if not target.parent.is_dir():
        return
    with _exclusive_lock(target.parent):
        check_no_pending(target)


def write_staged(targets: dict[Path, bytes]) -> list[Path]:
    """Write several checked files (in this order), each replaced atomically; every one is staged beside its
    target before the first is replaced, so a failure while staging (a full disk) replaces none. A target
    that became a link meanwhile is replaced itself, never the file it names (a rename does not follow links)."""
    staged: dict[Path, Path] = {}
    for path in targets:
        check_file_target(path)
    try:
        for path, data in targets.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            remove_stale(path)
            staged[path] = sibling(path, "tmp")
            with open(staged[path], "xb") as handle:
                handle.write(data)
            _keep_mode(staged[path], path)
        for path, tmp in staged.items():
            os.replace(tmp, path)
    finally:
        for tmp in staged.values():
            remove(tmp)
    return list(targets)


def write_output_folder(folder: Path, files: dict[str, bytes], manifest: str, written_by: str, *,
                        earlier: Iterable[str] = (), also: dict[Path, bytes] | None = None) -> list[Path]:
    """Files (plain names -> bytes) into `folder`, a folder that may hold other files: each name must be absent
    or a regular file this program wrote there, as its `manifest` records (name and sha256 of the bytes written;
    without a digest, or without a manifest, only a name in `earlier`: an older release's output known by its
    content); anything else is refused before any write. The manifest is written first, accepting each file's
    new bytes and, for a file being replaced, its earlier ones (a listed file that is absent is harmless); then the
    files and `also` (files the user named, already checked); then the manifest of the new bytes alone: a kill at
    any point leaves a folder the next write accepts (manifest.py). Returns what was written, the manifest first."""
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
    replacing = {name: digest for name in files if name in ours and (digest := file_digest(folder / name))}
    first = write_staged({folder / manifest: manifest_bytes(written_by, {**kept, **files}, replacing)})
    written = write_staged({**{folder / name: data for name, data in files.items()}, **(also or {})})
    if replacing:  # every file now holds its new bytes: the manifest accepts those alone
        write_staged({folder / manifest: manifest_bytes(written_by, {**kept, **files})})
    return first + written


def _replace_folder(tmp: Path, target: Path) -> None:
    """Move folder `tmp` to `target`, an existing folder first moved aside under a unique name, then removed
    (a folder moved aside that turned into a link meanwhile is not followed: rmtree refuses links)."""
    if not target.is_dir() or target.is_symlink():
        os.replace(tmp, target)
        return
    old = sibling(target, "old")
    os.replace(target, old)
    os.replace(tmp, target)
    shutil.rmtree(old, ignore_errors=True)


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
