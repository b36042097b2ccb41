"""Finding the installed benchmarks: each entry point of the group loaded on its own, so that one broken plugin
never breaks another benchmark, a command's help or the Python API.

An entry point is skipped, with a one-line reason, when its name is no valid task name (lower-case letters,
digits, "_" and "-": a task name becomes a folder under models/ and results/), when it cannot be loaded (its
import raises) or is not a Benchmark of a task named like it, or when it collides with another: a built-in task
(a benchmark of this package) always keeps its name, and two plugins of one name are both skipped. The reasons
are listed by `baselines ls` and given when that task is asked for.

A plugin is imported only when a command needs it (a task that is no built-in one, `baselines ls`, `compare --all`):
`--help` and the built-ins' commands never import one (`discover_benchmarks(..., built_in_only=True)`). Its import
runs guarded: with an empty argument list (a plugin that parses `sys.argv` sees none), its output held back, and
a `SystemExit` or `KeyboardInterrupt` it raises, like any exception, skips it with the reason.

Benchmarks are also found without packaging, as lm-evaluation-harness finds task folders through its include
path: each folder named in $BASELINES_INCLUDE (separated by the path separator) is put on the import path and
every package in it that declares a BENCHMARK counts as a plugin's entry point of its task's name; a package
name found in two of the folders is skipped in both, with the reason."""
from __future__ import annotations

import contextlib
import importlib
import io
import os
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

from baselines.core.errors import BaselinesError

TASK_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")
BUILT_IN = "baselines.tasks."  # the modules of this package's own benchmarks


def discover_benchmarks(group: str, benchmark_type: type, built_in_only: bool = False) -> tuple[list, dict[str, str]]:
    """(the benchmarks of `benchmark_type` that loaded, in listed order; entry point name -> why it was skipped);
    `built_in_only`: this package's own benchmarks, no plugin imported."""
    from importlib.metadata import entry_points

    by_name: dict[str, dict[str, object]] = defaultdict(dict)
    points = [*entry_points(group=group), *([] if built_in_only else included_points())]
    for point in points:
        if built_in_only and not point.value.startswith(BUILT_IN):
            continue
        by_name[point.name].setdefault(point.value, point)  # one package installed twice declares one value
    found, problems = [], {}
    for name, points in sorted(by_name.items()):
        point, problem = _chosen(name, points)
        if point is not None:
            benchmark, failure = _loaded(point, benchmark_type)
            if benchmark is not None:
                found.append(benchmark)
            problem = failure or problem
        if problem is not None:
            problems[name] = problem
    if not found:
        raise BaselinesError(f"no benchmark is installed (entry points {group}): install this package "
                             "(pip install -e .) rather than running it from a source folder")
    return sorted(found, key=lambda b: (b.listed, b.task.name)), problems


def _chosen(name: str, points: dict[str, object]) -> tuple[object | None, str | None]:
    """The entry point that gets the name, and why the others (or it) are skipped."""
    if not TASK_NAME.fullmatch(name):
        return None, (f"{name!r} is no valid task name (lower-case letters, digits, _ and -; declared by "
                      f"{', '.join(points)})")
    if len(points) == 1:
        return next(iter(points.values())), None
    built_in = [point for value, point in points.items() if value.startswith(BUILT_IN)]
    others = ", ".join(value for value in points if not value.startswith(BUILT_IN))
    if len(built_in) == 1:
        return built_in[0], f"the built-in benchmark keeps the name; {others} skipped"
    return None, f"declared by {', '.join(points)}: both skipped (uninstall one of the packages)"


def _loaded(point, benchmark_type) -> tuple[object | None, str | None]:
    """(the Benchmark of an entry point, None) or (None, why it is not one)."""
    benchmark, failure = guarded(point.load)
    if failure is not None:
        return None, f"{point.value} failed to load: {failure}"
    if not isinstance(benchmark, benchmark_type) or benchmark.task.name != point.name:
        return None, f"{point.value} is not a Benchmark whose task is named {point.name!r}"
    return benchmark, None


def guarded(load):
    """(what `load()` returns, None) or (None, why it failed): run with an empty argument list and its output held
    back, any exception, SystemExit and KeyboardInterrupt included, kept as the plugin's own failure."""
    saved, held = sys.argv, io.StringIO()
    sys.argv = sys.argv[:1]
    try:
        with contextlib.redirect_stdout(held), contextlib.redirect_stderr(held):
            return load(), None
    except (Exception, SystemExit, KeyboardInterrupt) as error:  # a plugin's own failure stays the plugin's
        return None, _reason(error, held.getvalue())
    finally:
        sys.argv = saved


def _reason(error: BaseException, said: str) -> str:
    """One line: what the import raised, and the last line it wrote when it says nothing itself."""
    if isinstance(error, BaselinesError):
        return str(error)
    if isinstance(error, SystemExit):
        kind = f"it exits while importing (SystemExit {error.code!r})"
    elif isinstance(error, KeyboardInterrupt):
        kind = "it was interrupted while importing (KeyboardInterrupt)"
    else:
        kind = type(error).__name__
    text = str(error).strip() if not isinstance(error, SystemExit) else ""
    last = said.strip().splitlines()[-1].strip() if said.strip() else ""
    detail = text.splitlines()[0] if text else last
    return f"{kind}{': ' + detail[:200] if detail else ''}"


INCLUDE_ENV = "BASELINES_INCLUDE"


class IncludedPoint:
    """A package of an include folder that declares a BENCHMARK, seen as an entry point named after its task (a
    package that fails to import is named after itself, so its failure is reported)."""

    def __init__(self, package: str, skipped: str | None = None):
        self.value, self.name, self._benchmark, self._error = f"{package}:BENCHMARK", package, None, skipped
        if skipped is None:
            self._benchmark, self._error = guarded(lambda: importlib.import_module(package).BENCHMARK)
            if self._benchmark is not None:
                self.name = getattr(getattr(self._benchmark, "task", None), "name", package)

    def load(self):
        if self._error is not None:
            raise BaselinesError(self._error)
        return self._benchmark


def included_points() -> list[IncludedPoint]:
    """The benchmark packages of the folders of $BASELINES_INCLUDE (each folder put on the import path)."""
    found: list[tuple[str, Path]] = []
    for folder in [Path(part).resolve() for part in os.environ.get(INCLUDE_ENV, "").split(os.pathsep) if part]:
        if not folder.is_dir():
            continue
        for package in sorted(child.name for child in folder.iterdir() if (child / "__init__.py").is_file()):
            if "BENCHMARK" in (folder / package / "__init__.py").read_text(encoding="utf-8", errors="replace"):
                found.append((package, folder))
    twice = {package for package, count in Counter(package for package, _ in found).items() if count > 1}
    points = []
    for package, folder in found:
        if package in twice:
            folders = " and ".join(str(where) for name, where in found if name == package)
            if not any(point.name == package for point in points):
                points.append(IncludedPoint(package, f"the package {package!r} is in both {folders}: both skipped"))
            continue
        if str(folder) not in sys.path:
            sys.path.append(str(folder))
        points.append(IncludedPoint(package))
    return points
