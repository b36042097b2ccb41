"""The machine a speed figure was measured on: its CPU, and whether other work shared its cores.

A throughput measured while other processes run is slower than the machine can go, so every speed report
records the CPU and the 1-minute load average read before and after the measurement, and names what disturbed
it. The rule (`load_disturbances`):

- before: a 1-minute load above QUIET_LOAD (0.5) means other work was running when the measurement started;
- after: a 1-minute load above the cores the measurement uses (torch and ONNX Runtime spread over every core
  this process may run on) plus QUIET_LOAD means other work joined while it ran, as this process alone cannot
  raise the load past its own cores.

The load average is a mean over the last minute, so it says more about a measurement of a minute or more than
about one of a few seconds. A disturbed measurement's figures are a lower bound of the machine's speed."""
from __future__ import annotations

import contextlib
import os
import platform
import subprocess
from pathlib import Path

QUIET_LOAD = 0.5  # a 1-minute load average above this, beyond the measurement's own cores, is other work


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


def machine_record(load_before: float | None, load_after: float | None) -> dict:
    """What a speed report records of the machine: CPU model, its cores, the cores the measurement used, and the
    1-minute load average before and after it."""
    return {"cpu": cpu_model(), "cores": os.cpu_count() or 1, "cores_used": usable_cores(),
            "load_average_1min": {"before": load_before, "after": load_after}}


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
    """Why the machine was loaded when a measurement ran, or None: a 1-minute load average above half its cores
    before it, or after it beyond the `threads` the measurement itself ran (other work shared the cores)."""
    load, half = machine.get("load_average_1min") or {}, (machine.get("cores") or 1) / 2
    before, after = load.get("before"), load.get("after")
    if before is not None and before > half:
        return f"1-minute load {before:.2f} before it, above half of the {machine.get('cores')} cores"
    if after is not None and after - threads > half:
        return (f"1-minute load {after:.2f} after it, above its own {threads} thread(s) plus half of the "
                f"{machine.get('cores')} cores")
    return None
