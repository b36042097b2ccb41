"""The task registry: each benchmark described as data (loader, references, labels, metrics)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .errors import unknown_name
from .lazy import lazy_function


@dataclass(frozen=True)
class Task:
    """One benchmark: how to load it, how its items become references, and how it is scored."""

    name: str
    kind: str  # "multiple-choice" | "sequence-labelling" | "classification" | "segmentation"
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
    resample_groups: bool = False  # the bootstrap resamples whole groups (RR, segmenter: documents)
    predict: Callable | None = None  # (file, **options) -> rows: labels raw text (`baselines predict`)
    diagnostics: Callable | None = None  # (records) -> dict recorded with every run (what the data allows)
    end_to_end: Callable | None = None  # (records, method, segmenter, models_dir) -> predictions from raw text


def _choice_references(records) -> list:
    return [record.reference() for record in records]


TASKS: dict[str, Task] = {
    "scalr": Task(
        name="scalr",
        kind="multiple-choice",
        description="SCALR (LegalBench): pick the holding of a Supreme Court question among five",
        load=lazy_function("baselines.data.scalr:load_scalr"),
        references=_choice_references,
        splits=("test",), eval_split="test", train_split=None,
        metrics=("accuracy", "balanced_accuracy"), main_metric="accuracy",
        default_method="tfidf",
        aliases={letter: str(i) for i, letter in enumerate("ABCDE")},
        download=lazy_function("baselines.data.download:download_scalr"),
    ),
    "caselawqa": Task(
        name="caselawqa",
        kind="classification",
        description="CaselawQA (Lawma): SCDB/Songer variables of court opinions, one multiple-choice task each",
        load=lazy_function("baselines.data.caselawqa:load_caselawqa"),
        references=_choice_references,
        splits=("train", "val", "test"), eval_split="test", train_split="train",
        metrics=("mean_task_accuracy", "accuracy"), main_metric="mean_task_accuracy",
        default_method="linear",
        grouped=True,
        supergroup=lazy_function("baselines.data.caselawqa:court_of"),
        download=lazy_function("baselines.data.download:download_caselawqa"),
    ),
    "rr": Task(
        name="rr",
        kind="sequence-labelling",
        description="LegalEval 2023 Task 6A: rhetorical role of each sentence of an Indian judgment",
        load=lazy_function("baselines.data.rr:load_rr"),
        references=lazy_function("baselines.data.rr:rr_references"),
        splits=("train", "dev", "test"), eval_split="dev", train_split="train",
        metrics=("weighted_f1", "macro_f1", "accuracy"), main_metric="weighted_f1",
        default_method="bilstm-crf",
        confusion=True,
        download=lazy_function("baselines.data.download:download_rr"),
        resample_groups=True,
        predict=lazy_function("baselines.rr_pipeline:predict_file"),
        end_to_end=lazy_function("baselines.rr_pipeline:end_to_end_predictions"),
    ),
    "segmenter": Task(
        name="segmenter",
        kind="segmentation",
        description="Sentence boundaries of LegalEval judgments: raw text in, sentence character spans out",
        load=lazy_function("baselines.data.rr:load_rr"),
        references=lazy_function("baselines.boundaries:span_references"),
        splits=("train", "dev"), eval_split="dev", train_split="train",
        metrics=("boundary_f1", "boundary_precision", "boundary_recall"), main_metric="boundary_f1",
        default_method="trained",
        download=lazy_function("baselines.data.download:download_rr"),
        resample_groups=True,
        diagnostics=lazy_function("segmentation.run:boundary_diagnostics"),
    ),
}


def get_task(name: str) -> Task:
    """The registered task called `name`; an unknown name lists the valid ones."""
    try:
        return TASKS[name]
    except KeyError:
        raise unknown_name("task", name, TASKS) from None
