"""The one registry: each benchmark described as data (loader, references, labels, metrics, and hooks for what
differs between benchmarks), and the methods of each. Only this module and baselines/tasks/ name benchmarks."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from baselines.core.errors import BaselinesError, unknown_name
from baselines.core.lazy import lazy_function


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
    export: Callable | None = None  # (**export options) -> writer (records, tmp, final folder) -> lm_eval.Export
    formats: dict[str, ExternalFormat] = field(default_factory=dict)  # `--format NAME` of this task's own
    speed_texts: SpeedTexts | None = None  # texts for `baselines speed encoders`
    plain_classes: dict[str, str] = field(default_factory=dict)  # class name -> 'module:Class' a fitted state may hold
    options: dict[str, str] = field(default_factory=dict)  # CLI options only some tasks take -> what each does here
    published: str | None = None  # 'package:file' of a YAML of figures published elsewhere (shown, never run here)
    headline_versus: str | None = None  # our plain method the best of ours is set against per group in the headline


def _choice_references(records) -> list:
    return [record.reference() for record in records]


TASKS: dict[str, Task] = {
    "scalr": Task(
        name="scalr",
        answer_type="multiple-choice",
        description="SCALR (LegalBench): pick the holding of a Supreme Court question among five",
        load=lazy_function("baselines.tasks.scalr.data:load_scalr"),
        references=_choice_references,
        splits=("test",), eval_split="test", train_split=None,
        metrics=("accuracy", "balanced_accuracy"), main_metric="accuracy",
        default_method="tfidf",
        aliases={letter: str(i) for i, letter in enumerate("ABCDE")},
        numbering="the letters A-E or LegalBench's digits 0-4, both zero-based in the data's order (0 and A are "
                  "choice_0)",
        continuation=lazy_function("baselines.tasks.scalr.prompts:continuation_openers"),
        download=lazy_function("baselines.tasks.scalr.download:download_scalr"),
        export=lazy_function("baselines.tasks.scalr.export:lm_eval_writer"),
        options={"--prompt": "ours (default: holdings lettered A-E) | legalbench (LegalBench's base prompt: holdings "
                             "numbered 0-4 after one worked example)"},
        published="baselines.tasks.scalr:published.yaml",
    ),
    "caselawqa": Task(
        name="caselawqa",
        answer_type="classification",
        description="CaselawQA (Lawma): SCDB/Songer variables of court opinions, one multiple-choice task each",
        load=lazy_function("baselines.tasks.caselawqa.data:load_caselawqa"),
        references=_choice_references,
        splits=("train", "val", "test"), eval_split="test", train_split="train",
        metrics=("mean_task_accuracy", "accuracy"), main_metric="mean_task_accuracy",
        default_method="linear",
        numbering="each task's labels as Lawma's prompt offers them: letters, or zero-padded numbers for tasks "
                  "of more than 26 choices (7 reads 007)",
        continuation=lazy_function("baselines.tasks.caselawqa.prompts:continuation_openers"),
        grouped=True, per_label=False,
        supergroup=lazy_function("baselines.tasks.caselawqa.data:court_of"),
        group_name="task", supergroup_name="court", breakdowns=("per_supergroup", "per_group"),
        headline_versus="linear",
        bootstrap_unit="items within each CaselawQA task",
        download=lazy_function("baselines.tasks.caselawqa.download:download_caselawqa"),
        export=lazy_function("baselines.tasks.caselawqa.export:lm_eval_writer"),
        predict=lazy_function("baselines.tasks.caselawqa.predict:corpus_labeller"),
        formats={"lawma": ExternalFormat(
            read=lazy_function("baselines.tasks.caselawqa.lawma:lawma_predictions"),
            help="a folder of Lawma's released <task>.json responses, or one such file",
            summary=lazy_function("baselines.tasks.caselawqa.lawma:join_summary"))},
        speed_texts=SpeedTexts(read=lazy_function("baselines.tasks.caselawqa.speed:opinion_chunk_texts"),
                               label="CaselawQA opinion chunks",
                               help="opinion chunks as embed-linear encodes them (128 tokens)", max_seq_length=128),
        plain_classes={"Head": "baselines.tasks.caselawqa.heads:Head"},
        options={
            "--subtasks": "comma-separated subset of its task names",
            "--backend": "per-task jobs: loky | threading | sequential | dask",
            "--scheduler": "Dask scheduler for --backend dask, e.g. tcp://HOST:8786",
            "--scatter": "system plotted per task against the reference (default: the best other)",
            "--max-chars": "characters of each opinion kept, from its start (default 24000; 0: whole)",
            "--prompt": "lawma (the default and only one: our prompt is Lawma's)",
        },
        published="baselines.tasks.caselawqa:published.yaml",
    ),
    "rr": Task(
        name="rr",
        answer_type="sequence-labelling",
        description="LegalEval 2023 Task 6A: rhetorical role of each sentence of an Indian judgment",
        load=lazy_function("baselines.tasks.rr.data:load_rr"),
        references=lazy_function("baselines.tasks.rr.data:rr_references"),
        splits=("train", "dev", "test"), eval_split="dev", train_split="train",
        metrics=("weighted_f1", "macro_f1", "accuracy"), main_metric="weighted_f1",
        default_method="bilstm-crf",
        numbering="the role names (FAC, ANALYSIS, ...)",
        continuation=lazy_function("baselines.tasks.rr.prompts:continuation_openers"),
        confusion=True, breakdowns=("per_label",),
        download=lazy_function("baselines.tasks.rr.download:download_rr"),
        resample_groups=True, bootstrap_unit="documents",
        predict=lazy_function("baselines.tasks.rr.pipeline:corpus_labeller"),
        end_to_end=lazy_function("baselines.tasks.rr.pipeline:end_to_end_predictions"),
        export=lazy_function("baselines.tasks.rr.export:lm_eval_writer"),
        speed_texts=SpeedTexts(read=lazy_function("baselines.tasks.rr.speed:sentence_texts"), label="RR sentences",
                               help="RR training sentences"),
        options={"--window": "context sentences on each side of the target (default 2)"},
    ),
    "segmenter": Task(
        name="segmenter",
        answer_type="segmentation",
        description="Sentence boundaries of LegalEval judgments: raw text in, sentence character spans out",
        load=lazy_function("baselines.tasks.rr.data:load_rr"),
        references=lazy_function("baselines.tasks.segmenter.boundaries:span_references"),
        splits=("train", "dev"), eval_split="dev", train_split="train",
        metrics=("boundary_f1", "boundary_precision", "boundary_recall"), main_metric="boundary_f1",
        default_method="trained",
        per_label=False,
        download=lazy_function("baselines.tasks.rr.download:download_rr"),
        resample_groups=True, bootstrap_unit="documents",
        items_from_predictions=ItemsFromPredictions(
            expand=lazy_function("baselines.tasks.segmenter.boundaries:expand"),
            absent=lazy_function("baselines.tasks.segmenter.boundaries:absent_item"), name="boundary items"),
        diagnostics=lazy_function("baselines.tasks.segmenter.gold:boundary_diagnostics"),
    ),
}


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


def option_help(flag: str) -> str:
    """What an option that only some tasks take does, task by task, from their records."""
    return "; ".join(f"{name}: {task.options[flag]}" for name, task in TASKS.items() if flag in task.options) + "."


DEFAULT_SPEED_TEXTS = "rr"  # the texts `baselines speed encoders` times when --texts is not given


@dataclass(frozen=True)
class Registered:
    """One method of one task: its name, its class ('module:Class') and its earlier names."""

    task: str
    name: str
    target: str
    aliases: tuple[str, ...] = ()

    def spellings(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


METHOD_REGISTRY: tuple[Registered, ...] = (  # looked up through baselines.methods
    Registered("scalr", "tfidf", "baselines.tasks.scalr.similarity:TfidfChooser"),
    Registered("scalr", "embed", "baselines.tasks.scalr.similarity:EmbedChooser"),
    Registered("scalr", "random", "baselines.methods.floors:RandomChooser"),
    Registered("scalr", "majority", "baselines.methods.floors:MajorityChooser"),
    Registered("scalr", "learned", "baselines.tasks.scalr.learned:LearnedChooser"),
    Registered("caselawqa", "majority", "baselines.tasks.caselawqa.majority:CaselawMajority"),
    Registered("caselawqa", "linear", "baselines.tasks.caselawqa.linear:CaselawLinear"),
    Registered("caselawqa", "embed-linear", "baselines.tasks.caselawqa.embed:CaselawEmbedLinear"),
    Registered("caselawqa", "signals", "baselines.tasks.caselawqa.signals:CaselawSignals"),
    Registered("rr", "bilstm-crf", "baselines.tasks.rr.bilstm_crf:BiLstmCrfTagger", aliases=("bilstm_crf",)),
    Registered("rr", "bilstm-crf-ft", "baselines.tasks.rr.bilstm_crf_ft:FineTunedTagger", aliases=("bilstm_crf_ft",)),
    Registered("rr", "tfidf-logreg", "baselines.tasks.rr.simple:RRTfidfLogreg", aliases=("tfidf_logreg",)),
    Registered("rr", "majority", "baselines.tasks.rr.simple:RRMajority"),
    Registered("segmenter", "rule", "baselines.tasks.segmenter.methods:RuleSegmenterMethod"),
    Registered("segmenter", "trained", "baselines.tasks.segmenter.methods:TrainedSegmenterMethod"),
)


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
