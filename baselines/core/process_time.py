"""CPU seconds of live processes, read from /proc: a process tree's time so far, where its parent cannot yet ask
the operating system for it (a child is counted in its parent's rusage only once waited for)."""
from __future__ import annotations

import contextlib
import os
from pathlib import Path


def process_seconds(pid: int) -> float:
    """User + system seconds so far of the running process `pid` and of its descendants; 0 where /proc has none."""
    return _own_seconds(pid) + running_children_seconds(pid)


def _own_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0  # it ended meanwhile, or this system has no /proc
    return sum(int(value) for value in fields[11:15]) / _ticks()  # utime, stime, cutime, cstime


def _ticks() -> int:
    return os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def running_children_seconds(pid: int | None = None) -> float:
    """CPU seconds of the live descendants of `pid` (default: this process), with their own finished children; 0
    where /proc lists no children (not Linux)."""
    total, stack = 0.0, [os.getpid() if pid is None else pid]
    while stack:
        for child in _children(stack.pop()):
            total += _own_seconds(child)  # one that ended meanwhile counts 0: its parent's rusage holds it
            stack.append(child)
    return total


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*") if Path(f"/proc/{pid}/task").is_dir() else []:
        with contextlib.suppress(OSError, ValueError):
            found += [int(child) for child in (task / "children").read_text().split()]
    return found
