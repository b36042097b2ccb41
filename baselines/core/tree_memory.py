"""The memory a command takes with all its processes: the resident sets of a process and of every process below it
(workers of joblib, loky, Dask, torch) added, sampled while it runs, from /proc (Linux). The largest single
process's peak, which the operating system keeps (ru_maxrss), is a floor of it: a training that spreads its tasks
over worker processes holds their memory too."""
from __future__ import annotations

import os
import threading
from pathlib import Path

PROC = Path("/proc")
SAMPLE_SECONDS = 0.5


def parent_pids(proc: Path = PROC) -> dict[int, int]:
    """pid -> parent pid of every process /proc lists now (one that ends while read is left out)."""
    parents = {}
    for entry in proc.iterdir() if proc.is_dir() else ():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            parents[int(entry.name)] = int(fields[1])
    return parents


def tree_pids(root: int, parents: dict[int, int]) -> list[int]:
    """`root` and every process below it."""
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def resident_kib(pid: int, proc: Path = PROC) -> int:
    """The resident set of a process in KiB (VmRSS), 0 when it has ended or has none (a kernel thread)."""
    try:
        for line in (proc / str(pid) / "status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return 0
    return 0


def tree_kib(root: int, proc: Path = PROC) -> int:
    """The resident sets of `root` and every process below it, added, in KiB."""
    return sum(resident_kib(pid, proc) for pid in tree_pids(root, parent_pids(proc)))


class TreePeak:
    """Samples the memory of a process tree every SAMPLE_SECONDS in a thread until stopped: `peak_mib` is the
    largest sum seen (None where there is no /proc: the caller keeps the largest single process's peak)."""

    def __init__(self, root: int, proc: Path = PROC):
        self.root, self.proc, self.peak_kib = root, proc, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "TreePeak":
        if self.proc.is_dir() and os.name == "posix":
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak_kib = max(self.peak_kib, tree_kib(self.root, self.proc))
            self._stop.wait(SAMPLE_SECONDS)

    @property
    def peak_mib(self) -> float | None:
        return round(self.peak_kib / 1024, 1) if self.peak_kib else None
