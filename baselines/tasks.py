"""The task registry: each benchmark described as data (loader, references, labels, metrics)."""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .errors import unknown_name


def _lazy(target: str) -> Callable:
    """A function imported on first call from 'module:attribute', so the registry costs no imports."""

    def call(*args, **kwargs):
        module, attr = target.split(":")
        return getattr(importlib.import_module(module), attr)(*args, **kwargs)

    call.__qualname__ = target
    return call


@dataclass(frozen=True)
class Task:
    """One benchmark: how to load it, how its items become references, and how it is scored."""

    name: str
    kind: str  # "multiple-choice" | "sequence-labelling" | "classification"
    description: str
    load: Callable  # (data_dir: Path, split: str, path: Path | None) -> list of records
    references: Callable  # (records) -> list[Reference]
    splits: tuple[str, ...]
    eval_split: str
    train_split: str | None
    metrics: tuple[str, ...]
    main_metric: str
    default_method: str
    grouped: bool = False  # also aggregate per group (CaselawQA: mean over tasks)
    confusion: bool = False  # results carry a confusion matrix
    aliases: dict = field(default_factory=dict)  # answer aliases for raw text, e.g. "A" -> "0"
    download: Callable | None = None  # (dest: Path) -> Path
    supergroup: Callable | None = None  # group -> wider group (CaselawQA task -> court)


def _choice_references(records) -> list:
    return [record.reference() for record in records]


TASKS: dict[str, Task] = {
    "scalr": Task(
        name="scalr",
        kind="multiple-choice",
        description="SCALR (LegalBench): pick the holding of a Supreme Court question among five",
        load=_lazy("baselines.data.scalr:load_scalr"),
        references=_choice_references,
        splits=("test",),
        eval_split="test",
        train_split=None,
        metrics=("accuracy", "balanced_accuracy"),
        main_metric="accuracy",
        default_method="tfidf",
        aliases={letter: str(i) for i, letter in enumerate("ABCDE")},
        download=_lazy("baselines.data.download:download_scalr"),
    ),
    "caselawqa": Task(
        name="caselawqa",
        kind="classification",
        description="CaselawQA (Lawma): SCDB/Songer variables of court opinions, one multiple-choice task each",
        load=_lazy("baselines.data.caselawqa:load_caselawqa"),
        references=_choice_references,
        splits=("train", "val", "test"),
        eval_split="test",
        train_split="train",
        metrics=("mean_task_accuracy", "accuracy"),
        main_metric="mean_task_accuracy",
        default_method="linear",
        grouped=True,
        supergroup=lambda task: "songer" if task.startswith("songer") else "sc",
        download=_lazy("baselines.data.download:download_caselawqa"),
    ),
    "rr": Task(
        name="rr",
        kind="sequence-labelling",
        description="LegalEval 2023 Task 6A: rhetorical role of each sentence of an Indian judgment",
        load=_lazy("baselines.data.rr:load_rr"),
        references=_lazy("baselines.data.rr:rr_references"),
        splits=("train", "dev", "test"),
        eval_split="dev",
        train_split="train",
        metrics=("weighted_f1", "macro_f1", "accuracy"),
        main_metric="weighted_f1",
        default_method="bilstm_crf",
        confusion=True,
        download=_lazy("baselines.data.download:download_rr"),
    ),
}


def get_task(name: str) -> Task:
    """The registered task called `name`; an unknown name lists the valid ones."""
    try:
        return TASKS[name]
    except KeyError:
        raise unknown_name("task", name, TASKS) from None


def data_root(data_dir: str | Path | None) -> Path:
    """The benchmark data folder: --data-dir, else $BASELINES_DATA; it must exist and be readable."""
    import os

    from .errors import BaselinesError

    chosen = data_dir or os.environ.get("BASELINES_DATA")
    if not chosen:
        raise BaselinesError("no data folder: pass --data-dir DIR or set BASELINES_DATA=DIR")
    root = Path(chosen).expanduser()
    if not root.is_dir() or not os.access(root, os.R_OK | os.X_OK):
        raise BaselinesError(f"data folder {root} does not exist or cannot be read")
    return root
