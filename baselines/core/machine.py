"""The machine a speed figure was measured on: its CPU, and whether other work shared its cores.

A throughput measured while other processes run is slower than the machine can go, so every speed report
records the CPU and the 1-minute load average read before and after the measurement, and names what disturbed
it. The rule (`load_disturbances`):

- before: a 1-minute load above QUIET_LOAD (0.5) means other work was running when the measurement started;
- after: a 1-minute load above the cores the measurement uses (torch and ONNX Runtime spread over every core
  this process may run on) plus QUIET_LOAD means other work joined while it ran, as this process alone cannot
  raise the load past its own cores.

The load average is a mean over the last minute, so it says more about a measurement of a minute or more than
about one of a few seconds. A disturbed measurement's figures are a lower bound of the machine's speed.

Measured costs (our runs' prediction step, `baselines llm run`) record what other work took during the step
itself (`others_cores`): the whole machine's busy CPU-seconds over the step (user, nice, system, irq, softirq and
steal of /proc/stat's "cpu" line), less this process tree's own CPU-seconds, per wall second, i.e. the mean
number of cores other work kept busy. Unlike the load average it does not lag: a short command run just after
another is not charged with the load the previous one left. `busy_load` reads it first (loaded above
OTHERS_BUSY, a quarter of a core) and falls back on the load average only for records without it (older runs,
systems without /proc/stat)."""
from __future__ import annotations

import contextlib
import os
import platform
import resource
import subprocess
import time
from pathlib import Path

QUIET_LOAD = 0.5  # a 1-minute load average above this, beyond the measurement's own cores, is other work
OTHERS_BUSY = 0.25  # other work keeping more than this many cores busy, on average over a measured step, loads it
BUSY_FIELDS = (0, 1, 2, 5, 6, 7)  # user, nice, system, irq, softirq, steal: the busy jiffies of /proc/stat's "cpu"


def cpu_model() -> str:
    """The processor's model name as `lscpu` shows it (read from /proc/cpuinfo, else asked of `lscpu`), else
    what the platform says."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        shown = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=5).stdout
        for line in shown.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine() or "unknown CPU"


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one), which a measurement's
    torch and ONNX Runtime threads spread over."""
    with contextlib.suppress(AttributeError, OSError):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def load_1min() -> float | None:
    """The 1-minute load average, or None where the system has none (Windows)."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def machine_record(load_before: float | None, load_after: float | None, others_cores: float | None = None) -> dict:
    """What a speed report records of the machine: CPU model, its cores, the cores the measurement used, the
    1-minute load average before and after it, and the mean cores other work kept busy during it (`others_cores`,
    None where it was not measured)."""
    return {"cpu": cpu_model(), "cores": os.cpu_count() or 1, "cores_used": usable_cores(),
            "load_average_1min": {"before": load_before, "after": load_after}, "others_cores": others_cores}


def busy_jiffies(stat: str) -> int | None:
    """The busy jiffies of every core so far (BUSY_FIELDS of the aggregate "cpu" line of /proc/stat's text `stat`;
    guest time is within user already), or None when the text has no such line."""
    for line in stat.splitlines():
        fields = line.split()
        if fields and fields[0] == "cpu":
            return sum(int(fields[1 + k]) for k in BUSY_FIELDS if 1 + k < len(fields))
    return None


def _ticks() -> int:
    return os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def busy_cpu_seconds() -> float | None:
    """The CPU-seconds every core of the machine has been busy so far, or None where there is no /proc/stat."""
    try:
        jiffies = busy_jiffies(Path("/proc/stat").read_text())
    except (OSError, ValueError):
        return None
    return None if jiffies is None else jiffies / _ticks()


def busy_since(started: float | None) -> float | None:
    """The machine's busy CPU-seconds since the reading `started` (busy_cpu_seconds), None if either is missing."""
    now = busy_cpu_seconds()
    return None if started is None or now is None else now - started


def others_cores(machine_busy: float | None, own_seconds: float, wall_seconds: float) -> float | None:
    """The mean number of cores other work kept busy over a step of `wall_seconds`: the machine's busy CPU-seconds
    over it less this process tree's own, per wall second. /proc/stat counts in jiffies: two readings of every core
    may each be off by one, so that much is not charged to other work. None when the machine's were not read."""
    if machine_busy is None or wall_seconds <= 0:
        return None
    resolution = 2 * (os.cpu_count() or 1) / _ticks()
    return round(max(0.0, machine_busy - own_seconds - resolution) / wall_seconds, 2)


def others_cores_now(seconds: float = 0.5) -> float | None:
    """The cores other work keeps busy now: the machine's busy CPU-seconds over a short wait in which this process
    sleeps (others_cores); None where there is no /proc/stat."""
    started, own = busy_cpu_seconds(), _self_seconds()
    time.sleep(seconds)
    return others_cores(busy_since(started), _self_seconds() - own, seconds)


def _self_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def load_disturbances(machine: dict) -> list[str]:
    """Why the load average says other work shared the cores (the module's rule), in words; empty if it does not."""
    load, cores = machine["load_average_1min"], machine["cores_used"]
    reasons = []
    if load["before"] is not None and load["before"] > QUIET_LOAD:
        reasons.append(f"1-minute load average {load['before']:.2f} before the run (above {QUIET_LOAD}): "
                       "other work was running")
    if load["after"] is not None and load["after"] > cores + QUIET_LOAD:
        reasons.append(f"1-minute load average {load['after']:.2f} after the run (above the {cores} cores it "
                       f"used + {QUIET_LOAD}): other work ran beside it")
    return reasons


def describe_machine(machine: dict) -> str:
    """The machine in one phrase, to print beside the figures measured on it."""
    load = machine["load_average_1min"]
    shown = "unavailable" if load["before"] is None or load["after"] is None else \
        f"{load['before']:.2f} before, {load['after']:.2f} after"
    return f"CPU {machine['cpu']}, {machine['cores']} cores ({machine['cores_used']} used); 1-minute load average " \
           f"{shown}"


def disturbance_warning(reasons: list[str]) -> str | None:
    """One line for standard error when the measurement was disturbed, else None."""
    if not reasons:
        return None
    return f"warning: the measurement was disturbed: {'; '.join(reasons)}; so these figures are a lower bound of " \
           "this machine's speed"


def disturbance_lines(reasons: list[str]) -> list[str]:
    """The lines a printed report ends with when its measurement was disturbed: each reason, and what that makes
    of the figures."""
    if not reasons:
        return []
    return [f"measurement disturbed: {reason}" for reason in reasons] + \
        ["  so these figures are a lower bound of this machine's speed"]


THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "TORCH_NUM_THREADS")


def thread_settings(environ=None) -> dict:
    """The thread variables set in the environment (`environ`, default this process's), as they are set."""
    environ = os.environ if environ is None else environ
    return {name: environ[name] for name in THREAD_VARIABLES if name in environ}


def thread_count(machine: dict, threads: dict | None) -> int | None:
    """The threads a measurement computed with: OMP_NUM_THREADS when it set a whole number, else every core it
    could use (torch, ONNX Runtime and BLAS spread over them); None when it recorded no thread settings."""
    if threads is None:
        return None
    value = str(threads.get("OMP_NUM_THREADS", "")).strip()
    return int(value) if value.isdigit() and int(value) > 0 else int(machine.get("cores_used") or 1)


def busy_load(machine: dict, threads: int = 0) -> str | None:
    """Why the machine was loaded when a measurement ran, or None. Where the record has `others_cores` (the cores
    other work kept busy during the measured step): more than OTHERS_BUSY. Else (older records, no /proc/stat)
    by the 1-minute load average, which lags: a load above half its cores before it, or after it beyond the
    `threads` the measurement itself ran (other work shared the cores)."""
    others = machine.get("others_cores")
    if others is not None:
        return (f"other work kept {others:.2f} cores busy during it, above {OTHERS_BUSY}" if others > OTHERS_BUSY
                else None)
    load, half = machine.get("load_average_1min") or {}, (machine.get("cores") or 1) / 2
    before, after = load.get("before"), load.get("after")
    if before is not None and before > half:
        return f"1-minute load {before:.2f} before it, above half of the {machine.get('cores')} cores"
    if after is not None and after - threads > half:
        return (f"1-minute load {after:.2f} after it, above its own {threads} thread(s) plus half of the "
                f"{machine.get('cores')} cores")
    return None
