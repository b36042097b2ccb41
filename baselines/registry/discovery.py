"""Finding the installed benchmarks: each entry point of the group loaded on its own, so that one broken plugin
never breaks another benchmark, a command's help or the Python API.

An entry point is skipped, with a one-line reason, when its name is no valid task name (lower-case letters,
digits, "_" and "-": a task name becomes a folder under models/ and results/), when it cannot be loaded (its
import raises) or is not a Benchmark of a task named like it, or when it collides with another: a built-in task
(a benchmark of this package) always keeps its name, and two plugins of one name are both skipped. The reasons
are listed by `baselines ls` and given when that task is asked for.

Benchmarks are also found without packaging, as lm-evaluation-harness finds task folders through its include
path: each folder named in $BASELINES_INCLUDE (separated by the path separator) is put on the import path and
every package in it that declares a BENCHMARK counts as a plugin's entry point of its task's name."""
from __future__ import annotations

import importlib
import os
import re
import sys
from collections import defaultdict
from pathlib import Path

from baselines.core.errors import BaselinesError

TASK_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")
BUILT_IN = "baselines.tasks."  # the modules of this package's own benchmarks


def discover_benchmarks(group: str, benchmark_type: type) -> tuple[list, dict[str, str]]:
    """(the benchmarks of `benchmark_type` that loaded, in listed order; entry point name -> why it was skipped)."""
    from importlib.metadata import entry_points

    by_name: dict[str, dict[str, object]] = defaultdict(dict)
    for point in [*entry_points(group=group), *included_points()]:
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
    try:
        benchmark = point.load()
    except Exception as error:  # a plugin's own failure, whatever it is, stays the plugin's
        reason = str(error).strip().splitlines()[0] if str(error).strip() else ""
        return None, f"{point.value} failed to load: {type(error).__name__}{': ' + reason if reason else ''}"
    if not isinstance(benchmark, benchmark_type) or benchmark.task.name != point.name:
        return None, f"{point.value} is not a Benchmark whose task is named {point.name!r}"
    return benchmark, None


INCLUDE_ENV = "BASELINES_INCLUDE"


class IncludedPoint:
    """A package of an include folder that declares a BENCHMARK, seen as an entry point named after its task (a
    package that fails to import is named after itself, so its failure is reported)."""

    def __init__(self, package: str):
        self.value = f"{package}:BENCHMARK"
        try:
            self._benchmark, self._error = importlib.import_module(package).BENCHMARK, None
            self.name = self._benchmark.task.name
        except Exception as error:  # a plugin's own failure stays the plugin's
            self._benchmark, self._error, self.name = None, error, package

    def load(self):
        if self._error is not None:
            raise self._error
        return self._benchmark


def included_points() -> list[IncludedPoint]:
    """The benchmark packages of the folders of $BASELINES_INCLUDE (each folder put on the import path)."""
    points = []
    for folder in [Path(part).resolve() for part in os.environ.get(INCLUDE_ENV, "").split(os.pathsep) if part]:
        if not folder.is_dir():
            continue
        if str(folder) not in sys.path:
            sys.path.append(str(folder))
        for package in sorted(child.name for child in folder.iterdir() if (child / "__init__.py").is_file()):
            if "BENCHMARK" in (folder / package / "__init__.py").read_text(encoding="utf-8", errors="replace"):
                points.append(IncludedPoint(package))
    return points
