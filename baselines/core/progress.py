"""Progress of the steps that take more than a few seconds, on standard error: named stages, and bars with the
count and the time left where the total is known.

On a terminal, stages say when they start and end, and bars are drawn and redrawn in place. Anywhere else (a log
file, a pipe, CI, a cluster job's output), so that a long job's log is never silent: each stage writes a line
when it starts and one when it ends, with the time it took; a bar writes a line when it starts, then one at least
every LOG_INTERVAL (30 s) with the count, the share done and the time left from the rate measured so far, and
one when it ends; a stage with no bar writes "still running" at least every LOG_INTERVAL. Nothing is redrawn,
so every line of the log reads on its own. BASELINES_PROGRESS=1 draws tqdm bars even off a terminal (redrawn
every 30 s), BASELINES_PROGRESS=0 shows nothing. Inside `silenced()` (the commands' --quiet, the Python API's
quiet=True) nothing shows, whatever the environment: the switch holds for the whole process while it lasts,
worker threads included; worker processes do not see it, so work sent to them reports from the caller (as
run_parallel of CaselawQA counts finished jobs). Progress never goes to standard output, which holds the results.

Bars are tqdm bars (or, off a terminal, `LogBar`, which takes the same calls), so code that already drives a
tqdm bar (`bar.update(n)`, iteration, `set_postfix_str`) takes one of these unchanged. Either way the time left
comes from the mean rate since the bar started, and shows only once that rate is measured (`measured`): a slow
first item is no estimate of the rest.
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
    """Whether progress shows now: never when silenced or when BASELINES_PROGRESS says 0, else always (drawn on a
    terminal, as log lines elsewhere)."""
    if _silencing["depth"]:
        return False
    return os.environ.get(ENV, "").strip().lower() not in FORCED_OFF


def drawn() -> bool:
    """Whether bars are drawn in place (tqdm): on a terminal, or off one when BASELINES_PROGRESS=1."""
    return on_terminal() or os.environ.get(ENV, "").strip().lower() in FORCED_ON


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


_last_line = {"at": 0.0}  # when progress last wrote a line (a stage's heartbeat waits for a quiet LOG_INTERVAL)


def say(line: str) -> None:
    """One line of progress on standard error (above any bar being drawn), when progress shows."""
    if shown():
        from tqdm import tqdm

        tqdm.write(line, file=sys.stderr)
        _last_line["at"] = time.monotonic()


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
    stop = _heartbeat(name, started) if shown() and not drawn() else None
    try:
        yield step
    finally:
        if stop is not None:
            stop.set()
    note = f" ({step.note})" if step.note else ""
    say(f"{name}: done in {duration(time.perf_counter() - started)}{note}")


def _heartbeat(name: str, started: float) -> threading.Event:
    """Off a terminal: "NAME: still running (1 min 30 s)" whenever LOG_INTERVAL passes with no progress line;
    set the returned event to stop it."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(LOG_INTERVAL / 4):
            if time.monotonic() - _last_line["at"] >= LOG_INTERVAL and shown():
                say(f"{name}: still running ({duration(time.perf_counter() - started)})")

    threading.Thread(target=beat, name=f"progress: {name}", daemon=True).start()
    return stop


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

    terminal = on_terminal()
    if enabled and shown() and not drawn():
        return LogBar(iterable, desc=desc, total=total if total is not None else _length(iterable), unit=unit)
    options = {} if terminal else {"mininterval": LOG_INTERVAL, "maxinterval": LOG_INTERVAL}
    options["bar_format"] = MEASURED if total is not None or hasattr(iterable, "__len__") else UNKNOWN_TOTAL
    return _measured_bar()(iterable, desc=desc, total=total, unit=unit, file=sys.stderr, smoothing=0,
                           disable=not (enabled and shown()), dynamic_ncols=terminal, **options)


MEASURED = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}{postfix}]"  # tqdm's own layout
SETTLE_SECONDS, SETTLE_SHARE, SETTLE_ITEMS = 5.0, 0.02, 3  # no time left before this much time, share and count


def measured(spent: float, done: int, total: int | None) -> bool:
    """Whether the rate so far is measured well enough to tell the time left: SETTLE_SECONDS spent, and
    SETTLE_SHARE of the work and SETTLE_ITEMS items done (the first items, with loading and warm-up, are no guide
    to the rest)."""
    return bool(total) and spent >= SETTLE_SECONDS and done >= max(SETTLE_ITEMS, SETTLE_SHARE * total)


def _measured_bar():
    """tqdm with the time left from the mean rate since the start (smoothing=0), shown as '?' until `measured`."""
    from tqdm import tqdm

    class MeasuredBar(tqdm):
        @property
        def format_dict(self):
            values = super().format_dict
            done, total = values.get("n") or 0, values.get("total")
            if total and done < total and not measured(values.get("elapsed") or 0, done, total):
                values["remaining"] = "?"
            return values

    return MeasuredBar


def _length(iterable) -> int | None:
    try:
        return len(iterable)
    except TypeError:
        return None


class LogBar:
    """A bar as log lines (off a terminal): 'DESC ...' when it starts, 'DESC: 1,204 of 5,000 sentences (24%),
    2 min 10 s, about 6 min 50 s left' at most every LOG_INTERVAL (the time left from the rate measured so far),
    'DESC: 5,000 sentences in 9 min 01 s' when it ends. It takes tqdm's calls: iteration, update(n),
    set_postfix_str, set_description, close, and use as a context manager."""

    def __init__(self, iterable=None, *, desc: str, total: int | None, unit: str):
        self.iterable, self.desc, self.total, self.unit, self.n, self.postfix = iterable, desc, total, unit, 0, ""
        self.started = self.logged = time.perf_counter()
        self.closed = False
        say(f"{desc} ...")

    def __iter__(self):
        try:
            for item in self.iterable:
                yield item
                self.update(1)
        finally:
            self.close()

    def __enter__(self) -> "LogBar":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def update(self, n: int = 1) -> None:
        self.n += n
        now = time.perf_counter()
        if now - self.logged >= LOG_INTERVAL:
            self.logged = now
            say(self._line(now))

    def set_postfix_str(self, text: str = "", refresh: bool = True) -> None:
        self.postfix = f" [{text}]" if text else ""

    def set_description(self, desc: str, refresh: bool = True) -> None:
        self.desc = desc

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            say(f"{self.desc}: {self.n:,} {self.unit}{'s' if self.n != 1 else ''} in "
                f"{duration(time.perf_counter() - self.started)}{self.postfix}")

    def _line(self, now: float) -> str:
        spent = now - self.started
        count = f"{self.n:,} of {self.total:,} {self.unit}s ({100 * self.n / self.total:.0f}%)" if self.total \
            else f"{self.n:,} {self.unit}s"
        left = ""
        if self.n < (self.total or 0) and measured(spent, self.n, self.total):
            left = f", about {duration(spent / self.n * (self.total - self.n))} left"
        return f"{self.desc}: {count}, {duration(spent)}{left}{self.postfix}"


def library_bars_off() -> None:
    """Where our bars are not drawn (a log file, --quiet), third-party libraries' own bars (transformers'
    "Loading weights") are switched off too, so a log holds no redrawn lines."""
    if shown() and drawn():
        return
    try:
        from transformers.utils import logging as transformers_logging
    except ImportError:  # an optional dependency: nothing to switch off
        return
    transformers_logging.disable_progress_bar()
