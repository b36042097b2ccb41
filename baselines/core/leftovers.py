"""The hidden temporaries and backups of the project's writes, and what happens to those a killed writer left.

Every temporary or backup beside a target is named after this tool and its writer
(`.<name>.legal-baselines.<host>.<pid>.<16 hex>.tmp|.old`, `_sibling`); only such names are ever removed. A leftover
of a writer that no longer runs goes at the next write of the same target (`remove_stale`), with one exception: a
folder swap killed between its two renames leaves no folder at the target, its previous copy as `.old` and the new
one unfinished as `.tmp`. The previous copy is then the last complete state: it is moved back (`restore_interrupted`),
never deleted, by the next command that reads or writes the target, whatever its age, as soon as its writer is known
to be gone: a process of this host that no longer runs (or a process with its id that started after the backup was
made). Until then (a writer of another host, for STALE_REMOTE_SECONDS, or one that still runs) it is `pending`: no
write goes over the target, and `compare` names the run.
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


def temporary_target(path: str) -> str | None:
    """The path a temporary or backup of this tool stands beside (what the user named), or None for any other
    path: errors name the user's path, never a hidden temporary one."""
    match = re.fullmatch(rf"\.(?P<name>.+?)\.{WRITER_MARK}\..*\.(?:tmp|old)", os.path.basename(str(path)))
    return os.path.join(os.path.dirname(str(path)), match["name"]) if match else None


def interrupted_target(entry: str) -> str | None:
    """The name of the target a `.old` backup of this tool was made for, or None when `entry` is no such backup."""
    match = re.fullmatch(rf"\.(?P<name>.+)\.{WRITER_MARK}\.[A-Za-z0-9-]*\.[0-9]+\.[0-9a-f]{{16}}\.old", entry)
    return match["name"] if match else None


def restore_interrupted(target: Path) -> Path | None:
    """Move back the newest `.old` copy of `target` whose writer is gone (`_writer_gone`, whatever its age) when no
    target is there (a swap killed between its renames); returns it, or None. Several commands may try at once:
    the first one puts it back, the others find the target there."""
    target = Path(target)
    if os.path.lexists(target):
        return None
    olds = [entry for entry, match in _backups(target) if _writer_gone(entry, match["host"], match["pid"])]
    if not olds:
        return None
    newest = max(olds, key=lambda entry: entry.stat(follow_symlinks=False).st_ctime)
    try:
        os.replace(newest.path, target)
    except OSError:  # another command put it (or another copy) back first
        return None
    return Path(newest.path)


def pending_backup(target: Path) -> tuple[Path, str, str] | None:
    """(the backup, its writer's host, its writer's pid) when no `target` is there and its only copy is a hidden
    `.old` backup whose writer may still run (another host, or a process that runs): a swap under way, or killed
    where this host cannot tell; None otherwise."""
    target = Path(target)
    if os.path.lexists(target):
        return None
    found = _backups(target)
    if not found:
        return None
    entry, match = max(found, key=lambda pair: pair[0].stat(follow_symlinks=False).st_ctime)
    return Path(entry.path), match["host"], match["pid"]


def _backups(target: Path) -> list[tuple[os.DirEntry, re.Match]]:
    """The `.old` backups of `target` this tool made, with the match of their names (host, pid)."""
    pattern = ours_pattern(target.name)
    try:
        entries = list(os.scandir(target.parent))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [(entry, match) for entry in entries if (match := pattern.fullmatch(entry.name))
            and entry.name.endswith(".old")]


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


def _writer_gone(entry: os.DirEntry, host: str, pid: str) -> bool:
    """Whether the writer of a backup is known to be gone: a process of this host that no longer runs, or whose id
    now belongs to a process started after the backup was made; one of another host after STALE_REMOTE_SECONDS."""
    try:
        made = entry.stat(follow_symlinks=False).st_ctime  # a rename sets it: when the copy was moved aside
    except FileNotFoundError:
        return False
    if host != _host():
        return time.time() - made > STALE_REMOTE_SECONDS
    started = _started(int(pid))
    return not _running(int(pid)) or (started is not None and started > made + 1)


def _started(pid: int) -> float | None:
    """When process `pid` of this host started (seconds since the epoch), or None where that cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            ticks = int(handle.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/stat", encoding="ascii") as handle:
            boot = next(int(line.split()[1]) for line in handle if line.startswith("btime "))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def _running(pid: int) -> bool:
    """Whether a process with this id runs on this host."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
