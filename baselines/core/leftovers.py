"""The hidden temporaries and backups of the project's writes, and what happens to those a killed writer left.

Every temporary or backup beside a target is named after this tool and its writer
(`.<name>.legal-baselines.<host>.<pid>.<16 hex>.tmp|.old`, `_sibling`); only such names are ever removed. A leftover
of a writer that no longer runs goes at the next write of the same target (`remove_stale`), with one exception: a
folder swap killed between its two renames leaves no folder at the target, its previous copy as `.old` and the new
one unfinished as `.tmp`. The previous copy is then the last complete state: it is moved back (`restore_interrupted`),
never deleted, before anything else is done with the target.
"""
from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import socket
import time
from pathlib import Path

STALE_SECONDS = 60  # a leftover of a dead writer on this host (or of an older release) is removed after this
STALE_REMOTE_SECONDS = 3600  # a leftover written from another host: its writer cannot be checked, so wait longer
WRITER_MARK = "legal-baselines"  # in the name of every temporary or backup this tool writes, and of no other


def sibling(target: Path, kind: str) -> Path:
    """A fresh hidden name beside `target` naming this tool and its writer:
    .<name>.legal-baselines.<host>.<pid>.<16 random hex digits>.<kind>; only such names are ever removed."""
    return target.with_name(f".{target.name}.{WRITER_MARK}.{_host()}.{os.getpid()}.{secrets.token_hex(8)}.{kind}")


def ours_pattern(name: str) -> re.Pattern:
    """The temporaries and backups this tool writes for a target named `name` (see `sibling`)."""
    return re.compile(rf"\.{re.escape(name)}\.{WRITER_MARK}\.(?P<host>[A-Za-z0-9-]*)\.(?P<pid>[0-9]+)\.[0-9a-f]{{16}}"
                      rf"\.(?:tmp|old)")


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9-]", "", socket.gethostname())[:24]


def remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    elif path.exists() or path.is_symlink():
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def interrupted_target(entry: str) -> str | None:
    """The name of the target a `.old` backup of this tool was made for, or None when `entry` is no such backup."""
    match = re.fullmatch(rf"\.(?P<name>.+)\.{WRITER_MARK}\.[A-Za-z0-9-]*\.[0-9]+\.[0-9a-f]{{16}}\.old", entry)
    return match["name"] if match else None


def restore_interrupted(target: Path) -> Path | None:
    """Move back the newest stale `.old` copy of `target` when no target is there (a swap killed between its
    renames); returns it, or None. Stale: its writer no longer runs (see `remove_stale`)."""
    target = Path(target)
    if os.path.lexists(target):
        return None
    pattern = ours_pattern(target.name)
    try:
        entries = list(os.scandir(target.parent))
    except FileNotFoundError:
        return None
    olds = [entry for entry in entries if (match := pattern.fullmatch(entry.name)) and entry.name.endswith(".old")
            and _is_stale(entry, match["host"], match["pid"])]
    if not olds:
        return None
    newest = max(olds, key=lambda entry: entry.stat(follow_symlinks=False).st_mtime)
    os.replace(newest.path, target)
    return Path(newest.path)


def remove_stale(target: Path) -> list[Path]:
    """Remove leftovers of killed writes of `target` (its hidden .tmp / .old siblings that this tool named,
    `ours_pattern`); returns what went. Any other file, whatever its name (`.<name>.old`, `.<name>.lock`, a
    user's `.<name>.backup01.tmp`), is never touched.

    A leftover goes when it is older than STALE_SECONDS and its writer (host and pid in its name) no longer
    runs here; one from another host after STALE_REMOTE_SECONDS. The previous copy of a swap killed between its
    renames is moved back first (`restore_interrupted`), never removed."""
    target = Path(target)
    restore_interrupted(target)
    pattern = ours_pattern(target.name)
    removed = []
    try:
        entries = list(os.scandir(target.parent))
    except FileNotFoundError:
        return removed
    for entry in entries:
        match = pattern.fullmatch(entry.name)
        if match and _is_stale(entry, match["host"], match["pid"]):
            remove(Path(entry.path))
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
