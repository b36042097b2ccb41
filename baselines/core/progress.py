"""Progress of the steps that take more than a few seconds, on standard error: named stages, and bars with the
count and the time left where the total is known.

When it shows: only when standard error is a terminal, so that log files, pipes and CI output stay clean;
BASELINES_PROGRESS=1 shows it anyway (to follow a job in its log: bars are then redrawn every 30 s at most, not
ten times a second), BASELINES_PROGRESS=0 never. Inside `silenced()` (the commands' --quiet, the Python API's
quiet=True) nothing shows, whatever the environment: the switch holds for the whole process while it lasts,
worker threads included; worker processes do not see it, so work sent to them reports from the caller (as
run_parallel of CaselawQA counts finished jobs). Progress never goes to standard output, which holds the results.

Bars are tqdm bars, so code that already drives a tqdm bar (`bar.update(n)`) takes one of these unchanged.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

ENV = "BASELINES_PROGRESS"
FORCED_ON, FORCED_OFF = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
LOG_INTERVAL = 30.0  # seconds between two redraws of a bar outside a terminal
UNKNOWN_TOTAL = "{desc}: {n_fmt} done [{elapsed}, {rate_fmt}{postfix}]"  # a bar whose total is not known
_silencing = {"depth": 0}  # silenced() blocks open now, in any thread
_lock = threading.Lock()


def shown() -> bool:
    """Whether progress shows now: never when silenced, else as BASELINES_PROGRESS says, else when standard error
    is a terminal."""
    if _silencing["depth"]:
        return False
    forced = os.environ.get(ENV, "").strip().lower()
    if forced in FORCED_ON:
        return True
    if forced in FORCED_OFF:
        return False
    return on_terminal()


def on_terminal() -> bool:
    """Whether standard error (as it is now: a test runner may have replaced it) is a terminal."""
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):  # no stream, or a closed one
        return False


@contextlib.contextmanager
def silenced(quiet: bool = True) -> Iterator[None]:
    """Inside, no progress shows; `quiet` False changes nothing (`with silenced(quiet): ...` for a --quiet flag)."""
    if not quiet:
        yield
        return
    with _lock:
        _silencing["depth"] += 1
    try:
        yield
    finally:
        with _lock:
            _silencing["depth"] -= 1


def say(line: str) -> None:
    """One line of progress on standard error (above any bar being drawn), when progress shows."""
    if shown():
        from tqdm import tqdm

        tqdm.write(line, file=sys.stderr)


@dataclass
class Step:
    """A stage being run; `note` (e.g. '1,204 items') is added to the line that says it is done."""

    name: str
    note: str = ""


@contextlib.contextmanager
def stage(name: str) -> Iterator[Step]:
    """A named step: 'NAME ...' on standard error when it starts, 'NAME: done in 12.3 s (NOTE)' when it ends (a
    step that fails says nothing more: its error follows)."""
    step = Step(name)
    say(f"{name} ...")
    started = time.perf_counter()
    yield step
    note = f" ({step.note})" if step.note else ""
    say(f"{name}: done in {duration(time.perf_counter() - started)}{note}")


def duration(seconds: float) -> str:
    """'0.4 s', '12.3 s', '3 min 05 s', '1 h 02 min'."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def bar(iterable: Iterable | None = None, *, desc: str, total: int | None = None, unit: str = "it",
        enabled: bool = True):
    """A tqdm bar named `desc` on standard error: the count, the time spent and, when `total` is given or
    `iterable` has a length, the time left. It draws nothing when progress does not show, or when `enabled` (the
    caller's own switch, e.g. a method's `progress` argument) is False; iterate it, or `with bar(...) as b:
    b.update(n)`, as any tqdm bar."""
    from tqdm import tqdm

    terminal = on_terminal()
    options = {} if terminal else {"mininterval": LOG_INTERVAL, "maxinterval": LOG_INTERVAL}
    if total is None and not hasattr(iterable, "__len__"):  # tqdm's own would read '4task'
        options["bar_format"] = UNKNOWN_TOTAL
    return tqdm(iterable, desc=desc, total=total, unit=unit, file=sys.stderr, disable=not (enabled and shown()),
                dynamic_ncols=terminal, **options)
