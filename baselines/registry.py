"""The task registry: each benchmark described as data (loader, references, labels, metrics)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from baselines.core.errors import unknown_name
from baselines.core.lazy import lazy_function


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
        load=lazy_function("baselines.tasks.scalr.data:load_scalr"),
        references=_choice_references,
        splits=("test",), eval_split="test", train_split=None,
        metrics=("accuracy", "balanced_accuracy"), main_metric="accuracy",
        default_method="tfidf",
        aliases={letter: str(i) for i, letter in enumerate("ABCDE")},
        download=lazy_function("baselines.core.download:download_scalr"),
    ),
    "caselawqa": Task(
        name="caselawqa",
        kind="classification",
        description="CaselawQA (Lawma): SCDB/Songer variables of court opinions, one multiple-choice task each",
        load=lazy_function("baselines.tasks.caselawqa.data:load_caselawqa"),
        references=_choice_references,
        splits=("train", "val", "test"), eval_split="test", train_split="train",
        metrics=("mean_task_accuracy", "accuracy"), main_metric="mean_task_accuracy",
        default_method="linear",
        grouped=True,
        supergroup=lazy_function("baselines.tasks.caselawqa.data:court_of"),
        download=lazy_function("baselines.core.download:download_caselawqa"),
    ),
    "rr": Task(
        name="rr",
        kind="sequence-labelling",
        description="LegalEval 2023 Task 6A: rhetorical role of each sentence of an Indian judgment",
        load=lazy_function("baselines.tasks.rr.data:load_rr"),
        references=lazy_function("baselines.tasks.rr.data:rr_references"),
        splits=("train", "dev", "test"), eval_split="dev", train_split="train",
        metrics=("weighted_f1", "macro_f1", "accuracy"), main_metric="weighted_f1",
        default_method="bilstm-crf",
        confusion=True,
        download=lazy_function("baselines.core.download:download_rr"),
        resample_groups=True,
        predict=lazy_function("baselines.tasks.rr.pipeline:predict_file"),
        end_to_end=lazy_function("baselines.tasks.rr.pipeline:end_to_end_predictions"),
    ),
    "segmenter": Task(
        name="segmenter",
        kind="segmentation",
        description="Sentence boundaries of LegalEval judgments: raw text in, sentence character spans out",
        load=lazy_function("baselines.tasks.rr.data:load_rr"),
        references=lazy_function("baselines.tasks.segmenter.boundaries:span_references"),
        splits=("train", "dev"), eval_split="dev", train_split="train",
        metrics=("boundary_f1", "boundary_precision", "boundary_recall"), main_metric="boundary_f1",
        default_method="trained",
        download=lazy_function("baselines.core.download:download_rr"),
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


FORMER_MODULES = {  # where the method classes of model folders saved by earlier releases live now
    "baselines.methods.caselawqa_common": "baselines.tasks.caselawqa.common",
    "baselines.methods.caselawqa_embed": "baselines.tasks.caselawqa.embed",
    "baselines.methods.caselawqa_features": "baselines.tasks.caselawqa.features",
    "baselines.methods.caselawqa_heads": "baselines.tasks.caselawqa.heads",
    "baselines.methods.caselawqa_linear": "baselines.tasks.caselawqa.linear",
    "baselines.methods.caselawqa_majority": "baselines.tasks.caselawqa.majority",
    "baselines.methods.rr_bilstm_crf": "baselines.tasks.rr.bilstm_crf",
    "baselines.methods.rr_bilstm_crf_ft": "baselines.tasks.rr.bilstm_crf_ft",
    "baselines.methods.rr_common": "baselines.tasks.rr.common",
    "baselines.methods.rr_ensemble": "baselines.tasks.rr.ensemble",
    "baselines.methods.rr_features": "baselines.tasks.rr.features",
    "baselines.methods.rr_joint_training": "baselines.tasks.rr.joint_training",
    "baselines.methods.rr_network": "baselines.tasks.rr.network",
    "baselines.methods.rr_objectives": "baselines.tasks.rr.objectives",
    "baselines.methods.rr_simple": "baselines.tasks.rr.simple",
    "baselines.methods.rr_trainer": "baselines.tasks.rr.trainer",
    "baselines.methods.rr_tuned_encoder": "baselines.tasks.rr.tuned_encoder",
    "baselines.methods.scalr_features": "baselines.tasks.scalr.features",
    "baselines.methods.scalr_learned": "baselines.tasks.scalr.learned",
    "baselines.methods.scalr_similarity": "baselines.tasks.scalr.similarity",
    "baselines.methods.segmenters": "baselines.tasks.segmenter.methods",
}


def current_target(target: str) -> str:
    """A 'module:Class' that a saved model folder names, with a former module replaced by its current one."""
    module, _, name = target.partition(":")
    return f"{FORMER_MODULES.get(module, module)}:{name}" if name else target
