"""The task record: one benchmark as data (how it is loaded, referenced and scored, and the capabilities it
offers), checked when it is made."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, TypeVar

from baselines.core.errors import BaselinesError
from baselines.registry.capabilities import (CAPABILITIES, Answers, Contents, Documents, ExternalFormat, Formats,
                                             Options, PublishedFigures, Subtasks)

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
