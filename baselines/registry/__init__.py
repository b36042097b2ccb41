"""The one registry: each benchmark described as data (loader, references, labels, metrics, and hooks for what
differs between benchmarks), and the methods of each.

Benchmarks are discovered, not listed: every installed package declares its benchmarks as entry points of the
group ENTRY_POINT_GROUP (`baselines/tasks/<name>/__init__.py` holds each built-in one's `BENCHMARK`), so a
new benchmark is one folder (or one package) and nothing here changes. No benchmark is named in this module."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from baselines.core.errors import BaselinesError, unknown_name
from baselines.core.paths import register_task_configs
from baselines.registry.capabilities import (  # noqa: F401 (re-exported: benchmarks declare themselves with these)
    CAPABILITIES, Answers, Contents, Diagnostics, Documents, Download, ExternalFormat, Formats, ItemsFromPredictions,
    LmEvalExport, Options, PlainClasses, PublishedFigures, RawText, ReferencesOnly, ScaleData, SpeedTexts, Subtasks)
from baselines.registry.choices import choice_contents, choice_references  # noqa: F401 (re-exported)
from baselines.registry.discovery import discover_benchmarks
from baselines.registry.task import Task  # benchmarks declare themselves with it, imported from here


@dataclass(frozen=True)
class Registered:
    """One method of one task: its name, its class ('module:Class') and its earlier names."""

    task: str
    name: str
    target: str
    aliases: tuple[str, ...] = ()

    def spellings(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


@dataclass(frozen=True)
class Benchmark:
    """What a benchmark package declares of itself, found through the ENTRY_POINT_GROUP entry point named after
    its task: the task record, its methods (name -> 'module:Class', with earlier names in `aliases`), the
    modules its classes lived in in earlier releases (old -> new, for saved model folders), where it stands
    in lists and pages (`listed`, then the name), and what the public contract (baselines.testing) runs its
    methods on: `fixture`, a few records of its own shape (a callable, e.g. lazy_function('pkg.fixture:items')),
    and `quick`, per method the settings that make a fit take seconds."""

    task: Task
    methods: dict[str, str]
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    former_modules: dict[str, str] = field(default_factory=dict)
    listed: int = 100
    fixture: Callable[[], list] | None = None
    quick: dict[str, dict] = field(default_factory=dict)
    configs: str | None = None  # 'package:folder' of the named configs its package ships (configs/<task>/ wins)
    docs: str | None = None  # 'package:file.md', its documentation page (shown by `baselines ls`)

    def resource(self, target: str | None) -> Path | None:
        """The file or folder that a 'package:relative/path' of this benchmark names (None: none declared)."""
        if target is None:
            return None
        from importlib import resources

        package, _, relative = target.partition(":")
        return Path(str(resources.files(package).joinpath(relative)))

    def __post_init__(self):
        if self.task.default_method not in self.methods:
            raise BaselinesError(f"task {self.task.name!r}: default_method {self.task.default_method!r} is not one "
                                 f"of its methods ({', '.join(self.methods)})")

    def registered(self) -> tuple[Registered, ...]:
        return tuple(Registered(self.task.name, name, target, tuple(self.aliases.get(name, ())))
                     for name, target in self.methods.items())


ENTRY_POINT_GROUP = "legal_baselines.benchmarks"  # name = the task; value = 'package:BENCHMARK'


class _Discovered:
    """The benchmarks of every installed package (entry points of ENTRY_POINT_GROUP), loaded on first use, and the
    entry points skipped with the reason for each (`problems`). This package's own benchmarks load apart
    (`built_in`): a command of a built-in task, and every `--help`, imports no plugin."""

    def __init__(self):
        self._benchmarks: list[Benchmark] | None = None
        self._built_in: list[Benchmark] | None = None
        self._problems: dict[str, str] = {}

    @property
    def benchmarks(self) -> list[Benchmark]:
        """Every benchmark: the built-in ones and the plugins (imported now, each guarded)."""
        if self._benchmarks is None:
            self._benchmarks, self._problems = discover_benchmarks(ENTRY_POINT_GROUP, Benchmark)
            self._register(self._benchmarks)
        return self._benchmarks

    @property
    def built_in(self) -> list[Benchmark]:
        """This package's own benchmarks, no plugin imported."""
        if self._benchmarks is not None:
            return [b for b in self._benchmarks if b.task.name in {x.task.name for x in self._load_built_in()}]
        return self._load_built_in()

    def _load_built_in(self) -> list[Benchmark]:
        if self._built_in is None:
            self._built_in, _ = discover_benchmarks(ENTRY_POINT_GROUP, Benchmark, built_in_only=True)
            self._register(self._built_in)
        return self._built_in

    def known(self) -> list[Benchmark]:
        """The benchmarks loaded so far: every one once the plugins were needed, else the built-in ones."""
        return self._benchmarks if self._benchmarks is not None else self.built_in

    @staticmethod
    def _register(benchmarks: list[Benchmark]) -> None:
        for benchmark in benchmarks:
            if benchmark.configs is not None:
                register_task_configs(benchmark.task.name, benchmark.resource(benchmark.configs))

    @property
    def problems(self) -> dict[str, str]:
        """Entry point name -> why it was skipped (it failed to load, collides with another, or is no valid name)."""
        self.benchmarks
        return dict(self._problems)

    def reset(self) -> None:
        """Forget what was found: the next use looks again (after a plugin is installed, in tests)."""
        self._benchmarks, self._built_in, self._problems = None, None, {}


DISCOVERED = _Discovered()


class _Tasks(Mapping):
    """Task name -> Task of the benchmarks `source` gives, in their listed order (a read-only mapping)."""

    def __init__(self, source):
        self._source = source

    def __getitem__(self, name: str) -> Task:
        for benchmark in self._source():
            if benchmark.task.name == name:
                return benchmark.task
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter([benchmark.task.name for benchmark in self._source()])

    def __len__(self) -> int:
        return len(self._source())


TASKS: Mapping[str, Task] = _Tasks(lambda: DISCOVERED.benchmarks)  # every task: plugins imported on first use
KNOWN_TASKS: Mapping[str, Task] = _Tasks(lambda: DISCOVERED.known())  # the tasks loaded so far (help texts)


def _benchmarks_of(task: str | None) -> list[Benchmark]:
    """The benchmark of a built-in `task` alone (no plugin imported), else every benchmark."""
    built_in = [b for b in DISCOVERED.built_in if b.task.name == task] if task is not None else []
    return built_in or DISCOVERED.benchmarks


def method_entries(task: str | None = None) -> tuple[Registered, ...]:
    """The methods of `task` (None: of every discovered benchmark), looked up through baselines.methods."""
    return tuple(entry for benchmark in _benchmarks_of(task) for entry in benchmark.registered()
                 if task is None or entry.task == task)


def former_modules() -> dict[str, str]:
    """Where the method classes of model folders saved by earlier releases live now (old module -> new), of the
    benchmarks loaded so far."""
    return {old: new for benchmark in DISCOVERED.known() for old, new in benchmark.former_modules.items()}


def get_task(name: str) -> Task:
    """The registered task called `name` (a built-in one without importing any plugin); a skipped plugin of that
    name says why, and an unknown name lists the valid ones."""
    built_in = next((b.task for b in DISCOVERED.built_in if b.task.name == name), None)
    if built_in is not None:
        return built_in
    try:
        return TASKS[name]
    except KeyError:
        problem = DISCOVERED.problems.get(name) if isinstance(name, str) else None
        if problem is not None:
            raise BaselinesError(f"benchmark {name!r} cannot be used: {problem}") from None
        raise unknown_name("task", name, TASKS) from None


def tasks_with(kind: type, hook: str | None = None) -> list[str]:
    """The names of the tasks loaded so far that have the capability `kind` (e.g. RawText), and set its `hook` when
    one is named (e.g. "end_to_end"): help texts and messages, never a reason to import a plugin."""
    return [name for name, task in KNOWN_TASKS.items()
            if task.capability(kind) is not None and (hook is None or getattr(task.capability(kind), hook))]


def check_options(task: Task, given: dict) -> None:
    """Refuse an option that only some tasks take (CLI flag -> value; None: not given) when `task` is not one of
    them, naming the tasks that take it."""
    for flag, value in given.items():
        if value is not None and flag not in task.options:
            takers = [name for name, other in TASKS.items() if flag in other.options]
            where = f"applies to {', '.join(takers)} only" if takers else "is not an option of this command"
            raise BaselinesError(f"{flag} {where} ({task.name} takes no {flag} option)")


def default_speed_texts() -> str | None:
    """The task whose texts `baselines speed encoders` times by default (its SpeedTexts.default), else the first
    that offers any."""
    offering = [name for name, task in KNOWN_TASKS.items() if task.capability(SpeedTexts)]
    return next((name for name in offering if KNOWN_TASKS[name].capability(SpeedTexts).default),
                offering[0] if offering else None)


def option_help(flag: str) -> str:
    """What an option that only some tasks take does, task by task, from the records of the tasks loaded so far."""
    return "; ".join(f"{name}: {task.options[flag]}" for name, task in KNOWN_TASKS.items()
                     if flag in task.options) + "."


def current_target(target: str) -> str:
    """A 'module:Class' that a saved model folder names, with a former module replaced by its current one."""
    module, _, name = target.partition(":")
    return f"{former_modules().get(module, module)}:{name}" if name else target
