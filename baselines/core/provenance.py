"""What every model and results file records about the run that wrote it: versions, commit, time, memory."""
from __future__ import annotations

from contextvars import ContextVar

import datetime as dt
import os
import resource
import sys
import time

from baselines.core.versions import git_commit, library_versions


def _process_start() -> float:
    """When this process started (from /proc), so wall times include interpreter start and imports."""
    try:
        with open("/proc/self/stat") as handle:
            ticks = int(handle.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/stat") as handle:
            boot = next(float(line.split()[1]) for line in handle if line.startswith("btime"))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, StopIteration, IndexError):
        return time.time()


PROCESS_START = _process_start()


def peak_memory_mib() -> float:
    """Peak resident memory of this process and of its finished children, in MiB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return round(max(own, children) / 1024, 1)


CALLED_AS: ContextVar[str | None] = ContextVar("called_as", default=None)  # a Python API call, as written


def run_meta(started: float, **extra) -> dict:
    """Provenance of a run: versions, commit, time, memory, command line."""
    now = time.time()
    return {
        **extra,
        "versions": library_versions(),
        "git_commit": git_commit(),
        "timestamp": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "wall_seconds": round(now - started, 3),
        "process_wall_seconds": round(now - PROCESS_START, 3),
        "peak_memory_mib": peak_memory_mib(),
        "command": CALLED_AS.get() or (" ".join(["baselines", *sys.argv[1:]]) if sys.argv else None),
    }
