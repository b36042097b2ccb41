"""The one registry: each benchmark described as data (loader, references, labels, metrics, and hooks for what
differs between benchmarks), and the methods of each.

Benchmarks are discovered, not listed: every installed package declares its benchmarks as entry points of the
group ENTRY_POINT_GROUP (`baselines/tasks/<name>/__init__.py` holds each built-in one's `BENCHMARK`), so a
new benchmark is one folder (or one package) and nothing here changes. No benchmark is named in this module."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Callable

from baselines.core.errors import BaselinesError, unknown_name


@dataclass(frozen=True)
class ExternalFormat:
    """A predictions format of one task's own (e.g. a paper's released responses), read through the references."""

    read: Callable  # (path, records, load_whole: () -> records of the whole split, or None) -> (rows, report, name)
    help: str  # what `--format NAME` reads
    producer: str = "llm"  # who produced predictions in this format
    summary: Callable | None = None  # the reader's report -> one line for the terminal


@dataclass(frozen=True)
class ItemsFromPredictions:
    """Scored items made from each reference and its prediction together (segmenter: boundary items): two systems
    are paired on the union of their items, and an item that one of them lacks takes `absent(id)`."""

    expand: Callable  # [(reference, row or None)] -> [(item reference, item row or None)]
    absent: Callable  # item id -> the outcome of an item absent from a system's samples
    name: str  # what the items are called ("boundary items")


@dataclass(frozen=True)
class SpeedTexts:
    """Texts a task offers for the encoder speed test (`baselines speed encoders --texts TASK`)."""

    read: Callable  # (data_dir, n) -> the first n texts
    label: str  # what they are, in the report ("RR sentences")
    help: str  # what they are, in the option's help
    max_seq_length: int | None = None  # tokens kept per text (None: the encoder's own limit)
    default: bool = False  # the texts `baselines speed encoders` times when --texts is not given


@dataclass(frozen=True)
class Task:
    """One benchmark: how to load it, how its items become references, how it is scored, and its hooks."""

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
    grouped: bool = False  # also aggregate per group (CaselawQA: mean over tasks)
    confusion: bool = False  # results carry a confusion matrix
    per_label: bool = True  # results carry precision, recall and F1 per label
    aliases: dict = field(default_factory=dict)  # answer aliases for raw text, e.g. "A" -> "0"
    numbering: str = ""  # how generations may name a choice, in the evaluator's words (errors, docs)
    continuation: Callable | None = None  # () -> line openers of the task's prompts: a generation's text from
    #   one of them on continues the prompt and is not read (baselines.evaluation.continuation)
    download: Callable | None = None  # (dest: Path) -> Path
    supergroup: Callable | None = None  # group -> wider group (CaselawQA task -> court)
    group_name: str = "group"  # what a group is called in tables
    supergroup_name: str = "supergroup"  # what a supergroup is called in tables
    breakdowns: tuple[str, ...] = ()  # tables `compare` shows per system: per_supergroup, per_group, per_label
    resample_groups: bool = False  # the bootstrap resamples whole groups (RR, segmenter: documents)
    bootstrap_unit: str = "items"  # what the bootstrap resamples, as `compare` states it
    items_from_predictions: ItemsFromPredictions | None = None  # scored items made from references and predictions
    predict: Callable | None = None  # (*, model, method_name, models_dir, data_dir, **the task's own options) ->
    #   baselines.runs.corpus.Labeller: the saved model loaded once, labelling raw texts in batches (`baselines predict`)
    diagnostics: Callable | None = None  # (records) -> dict recorded with every run (what the data allows)
    end_to_end: Callable | None = None  # (records, method, segmenter, models_dir) -> predictions from raw text
    segmenter_in_effect: Callable | None = None  # (--segmenter or None, models_dir) -> (name, saved folder or None):
    #   what a --segmenter value stands for, without loading it (with end_to_end)
    export: Callable | None = None  # (**export options) -> writer (records, tmp, final folder) -> lm_eval.Export
    formats: dict[str, ExternalFormat] = field(default_factory=dict)  # `--format NAME` of this task's own
    speed_texts: SpeedTexts | None = None  # texts for `baselines speed encoders`
    plain_classes: dict[str, str] = field(default_factory=dict)  # class name -> 'module:Class' a fitted state may hold
    options: dict[str, str] = field(default_factory=dict)  # CLI options only some tasks take -> what each does here
    published: str | None = None  # 'package:file' of a YAML of figures published elsewhere (shown, never run here)
    headline_versus: str | None = None  # our plain method the best of ours is set against per group in the headline


def choice_references(records) -> list:
    """References of multiple-choice records (`record.reference()` each): the usual `Task.references`."""
    return [record.reference() for record in records]


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
    modules its classes lived in in earlier releases (old -> new, for saved model folders), and where it stands
    in lists and pages (`listed`, then the name)."""

    task: Task
    methods: dict[str, str]
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    former_modules: dict[str, str] = field(default_factory=dict)
    listed: int = 100

    def registered(self) -> tuple[Registered, ...]:
        return tuple(Registered(self.task.name, name, target, tuple(self.aliases.get(name, ())))
                     for name, target in self.methods.items())


ENTRY_POINT_GROUP = "legal_baselines.benchmarks"  # name = the task; value = 'package:BENCHMARK'


class _Discovered:
    """The benchmarks of every installed package (entry points of ENTRY_POINT_GROUP), loaded on first use."""

    def __init__(self):
        self._benchmarks: list[Benchmark] | None = None

    @property
    def benchmarks(self) -> list[Benchmark]:
        if self._benchmarks is None:
            self._benchmarks = discover_benchmarks()
        return self._benchmarks

    def reset(self) -> None:
        """Forget what was found: the next use looks again (after a plugin is installed, in tests)."""
        self._benchmarks = None


def discover_benchmarks() -> list[Benchmark]:
    """Each entry point of ENTRY_POINT_GROUP loaded and checked: a Benchmark whose task is named as its entry point;
    one name declared twice with two values is an error naming both; none at all says how to install."""
    from importlib.metadata import entry_points

    found: dict[str, tuple[str, Benchmark]] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name in found:
            if found[point.name][0] != point.value:
                raise BaselinesError(f"benchmark {point.name!r} is declared twice: {found[point.name][0]} and "
                                     f"{point.value} (uninstall one of the packages)")
            continue
        benchmark = point.load()
        if not isinstance(benchmark, Benchmark) or benchmark.task.name != point.name:
            raise BaselinesError(f"entry point {point.name} = {point.value} of group {ENTRY_POINT_GROUP} is not a "
                                 f"Benchmark whose task is named {point.name!r}")
        found[point.name] = (point.value, benchmark)
    if not found:
        raise BaselinesError(f"no benchmark is installed (entry points {ENTRY_POINT_GROUP}): install this package "
                             "(pip install -e .) rather than running it from a source folder")
    return sorted((benchmark for _, benchmark in found.values()), key=lambda b: (b.listed, b.task.name))


DISCOVERED = _Discovered()


class _Tasks(Mapping):
    """Task name -> Task of every discovered benchmark, in their listed order (a read-only mapping)."""

    def __getitem__(self, name: str) -> Task:
        for benchmark in DISCOVERED.benchmarks:
            if benchmark.task.name == name:
                return benchmark.task
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter([benchmark.task.name for benchmark in DISCOVERED.benchmarks])

    def __len__(self) -> int:
        return len(DISCOVERED.benchmarks)


TASKS: Mapping[str, Task] = _Tasks()


def method_entries() -> tuple[Registered, ...]:
    """Every method of every discovered benchmark (looked up through baselines.methods)."""
    return tuple(entry for benchmark in DISCOVERED.benchmarks for entry in benchmark.registered())


def former_modules() -> dict[str, str]:
    """Where the method classes of model folders saved by earlier releases live now (old module -> new)."""
    return {old: new for benchmark in DISCOVERED.benchmarks for old, new in benchmark.former_modules.items()}


def get_task(name: str) -> Task:
    """The registered task called `name`; an unknown name lists the valid ones."""
    try:
        return TASKS[name]
    except KeyError:
        raise unknown_name("task", name, TASKS) from None


def tasks_with(hook: str) -> list[str]:
    """The names of the tasks whose record sets `hook` (e.g. "export", "predict")."""
    return [name for name, task in TASKS.items() if getattr(task, hook)]


def check_options(task: Task, given: dict) -> None:
    """Refuse an option that only some tasks take (CLI flag -> value; None: not given) when `task` is not one of
    them, naming the tasks that take it."""
    for flag, value in given.items():
        if value is not None and flag not in task.options:
            takers = [name for name, other in TASKS.items() if flag in other.options]
            raise BaselinesError(f"{flag} applies to {', '.join(takers) or 'no task'} only "
                                 f"({task.name} takes no {flag} option)")


def default_speed_texts() -> str | None:
    """The task whose texts `baselines speed encoders` times by default (its SpeedTexts.default), else the first
    that offers any."""
    offering = [name for name, task in TASKS.items() if task.speed_texts]
    return next((name for name in offering if TASKS[name].speed_texts.default), offering[0] if offering else None)


def option_help(flag: str) -> str:
    """What an option that only some tasks take does, task by task, from their records."""
    return "; ".join(f"{name}: {task.options[flag]}" for name, task in TASKS.items() if flag in task.options) + "."


def current_target(target: str) -> str:
    """A 'module:Class' that a saved model folder names, with a former module replaced by its current one."""
    module, _, name = target.partition(":")
    return f"{former_modules().get(module, module)}:{name}" if name else target
