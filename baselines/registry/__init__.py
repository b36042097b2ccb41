"""The one registry: each benchmark described as data (loader, references, labels, metrics, and hooks for what
differs between benchmarks), and the methods of each.

Benchmarks are discovered, not listed: every installed package declares its benchmarks as entry points of the
group ENTRY_POINT_GROUP (`baselines/tasks/<name>/__init__.py` holds each built-in one's `BENCHMARK`), so a
new benchmark is one folder (or one package) and nothing here changes. No benchmark is named in this module."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, TypeVar

from baselines.core.errors import BaselinesError, unknown_name
from baselines.core.paths import register_task_configs
from baselines.registry.capabilities import (  # noqa: F401 (re-exported: benchmarks declare themselves with these)
    CAPABILITIES, Answers, Contents, Diagnostics, Documents, Download, ExternalFormat, Formats, ItemsFromPredictions,
    LmEvalExport, Options, PlainClasses, PublishedFigures, RawText, ReferencesOnly, ScaleData, SpeedTexts, Subtasks)
from baselines.registry.choices import choice_contents, choice_references  # noqa: F401 (re-exported)
from baselines.registry.discovery import discover_benchmarks

C = TypeVar("C")


@dataclass(frozen=True)
class Task:
    """One benchmark: how to load it, how its items become references, how it is scored, and what else it offers
    (its capabilities, baselines.registry.capabilities: at most one of each kind)."""

    name: str
    answer_type: str  # "multiple-choice" | "sequence-labelling" | "classification" | "segmentation"
    description: str
    load: Callable  # (data_dir: Path, split: str, path: Path | None, **load options) -> list of records
    references: Callable  # (records) -> list[Reference]
    splits: tuple[str, ...]
    eval_split: str
    train_split: str | None
    metrics: tuple[str, ...]
    main_metric: str
    default_method: str
    confusion: bool = False  # results carry a confusion matrix
    per_label: bool = True  # results carry precision, recall and F1 per label
    breakdowns: tuple[str, ...] = ()  # tables `compare` shows per system: per_supergroup, per_group, per_label
    capabilities: tuple = ()  # Answers, Subtasks, Documents, RawText, LmEvalExport, Formats, Download, ...

    def __post_init__(self):
        kinds = [type(capability) for capability in self.capabilities]
        unknown = [kind.__name__ for kind in kinds if kind not in CAPABILITIES]
        if unknown:
            raise BaselinesError(f"task {self.name!r}: {', '.join(unknown)} is not a capability "
                                 f"({', '.join(kind.__name__ for kind in CAPABILITIES)})")
        twice = sorted({kind.__name__ for kind in kinds if kinds.count(kind) > 1})
        if twice:
            raise BaselinesError(f"task {self.name!r} declares {', '.join(twice)} more than once")
        problem = task_problem(self)
        if problem:
            raise BaselinesError(f"task {self.name!r}: {problem}")

    def capability(self, kind: type[C]) -> C | None:
        """The task's capability of this kind, or None when the task lacks it."""
        return next((capability for capability in self.capabilities if type(capability) is kind), None)

    def with_capability(self, capability) -> Task:
        """A copy of the task with `capability` in place of the one of its kind (added when it has none)."""
        kept = tuple(other for other in self.capabilities if type(other) is not type(capability))
        return replace(self, capabilities=(*kept, capability))

    @property
    def contents(self) -> Contents:
        """What generic code reads of the task's records (its Contents): required where a model is fit or checked."""
        found = self.capability(Contents)
        if found is None:
            raise BaselinesError(f"task {self.name!r} declares no Contents (what the in-sample and overlap checks "
                                 "read of its records): add one to its Task's capabilities")
        return found

    @property
    def grouped(self) -> bool:
        """Results are also aggregated per group (CaselawQA: mean over its tasks)."""
        return self.capability(Subtasks) is not None

    @property
    def subtasks(self) -> Subtasks:
        """The task's Subtasks, or the defaults of one (a task without subtasks: its groups are plain groups)."""
        return self.capability(Subtasks) or Subtasks()

    @property
    def formats(self) -> dict[str, ExternalFormat]:
        """The task's own predictions formats by name (none when it has no Formats)."""
        return (self.capability(Formats) or Formats()).by_name

    @property
    def published(self) -> PublishedFigures:
        """The task's PublishedFigures, or the defaults of one (no figures, no plain method for the headline)."""
        return self.capability(PublishedFigures) or PublishedFigures()

    @property
    def aliases(self) -> dict[str, str]:
        """Answer aliases read in raw text (none when the task has no Answers)."""
        answers = self.capability(Answers)
        return answers.aliases if answers else {}

    @property
    def options(self) -> dict[str, str]:
        """The options only some tasks take that this task takes -> what each does here."""
        options = self.capability(Options)
        return options.flags if options else {}

    @property
    def bootstrap_unit(self) -> str:
        """What the bootstrap resamples, as `compare` states it."""
        documents, subtasks = self.capability(Documents), self.capability(Subtasks)
        return documents.unit if documents else subtasks.bootstrap_unit if subtasks else "items"


ANSWER_TYPES = ("multiple-choice", "classification", "sequence-labelling", "segmentation")


def task_problem(task: Task) -> str | None:
    """What makes a task record unusable (None: nothing): an unknown answer type, an evaluation or training split
    that is not one of its splits, a main metric that is not one of its metrics, a task that is trained without
    saying what its records hold (Contents)."""
    if task.answer_type not in ANSWER_TYPES:
        return f"answer_type {task.answer_type!r} is not one of {', '.join(ANSWER_TYPES)}"
    for role, split in (("eval_split", task.eval_split), ("train_split", task.train_split)):
        if split is not None and split not in task.splits:
            return f"{role} {split!r} is not one of its splits ({', '.join(task.splits)})"
    if task.main_metric not in task.metrics:
        return f"main_metric {task.main_metric!r} is not one of its metrics ({', '.join(task.metrics)})"
    if task.train_split is not None and task.capability(Contents) is None:
        return ("it has a training split, so it declares Contents (what the in-sample and overlap checks read of "
                "its records)")
    return None


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
