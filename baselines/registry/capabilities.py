"""What a benchmark may offer beyond loading, referencing and scoring its items: each capability is a small frozen
record of what belongs together, and each hook it holds is described by a Protocol giving its signature
(baselines.registry.hooks).

A task lists the capabilities it has (`Task(capabilities=(...))`); generic code asks for one
(`task.capability(RawText)`, None when the task lacks it) and never asks which benchmark it is handling."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from baselines.registry.hooks import (
    ContinuationOpeners, PromptTexts, SupergroupOf, LabellerFactory, EndToEndPredictions, SegmenterInEffect,
    ExportWriterFactory, FormatReader, Fetcher, TextsReader, RecordsLoader, RecordsOfIds, ScaleWriter, Describer,
    ItemsExpander, AbsentOutcome, UnitTexts, DocumentKey, Identities)


@dataclass(frozen=True)
class Contents:
    """What generic code reads of a benchmark's records (the in-sample and overlap checks, their messages): the
    record's id is `record.id`; the rest is read through these hooks, never guessed from the record's shape.
    Required of a task with a training split."""

    units: UnitTexts
    document: DocumentKey
    identities: Identities
    unit_name: str = "units"  # what a unit is called in reports ("sentences", "opinions")
    document_name: str = "documents"  # what a document is called in reports


@dataclass(frozen=True)
class ReferencesOnly:
    """Loading for scoring: `load` gives the records of a split with their ids, choices, labels, answers and
    groups but not the texts they are about (`leaves_out`, e.g. "opinion texts"), so `score` reads none of those
    texts whatever the size; `whole` gives whole records of some ids (the sample an LLM run's cost is estimated
    on). A predictions format that reads the texts declares it (ExternalFormat.whole_records)."""

    load: RecordsLoader
    whole: RecordsOfIds
    leaves_out: str = "texts"


@dataclass(frozen=True)
class Answers:
    """How raw generations name an answer: aliases (e.g. "A" -> "0"), the numbering in the evaluator's words
    (its errors and the docs), and the prompt's line openers a continuing generation is cut at."""

    aliases: dict[str, str] = field(default_factory=dict)
    numbering: str = ""
    continuation: ContinuationOpeners | None = None


@dataclass(frozen=True)
class Subtasks:
    """Items belong to groups (CaselawQA's tasks) scored also one by one, and maybe to wider groups (courts)."""

    supergroup: SupergroupOf | None = None
    group_name: str = "group"  # what a group is called in tables
    supergroup_name: str = "supergroup"  # what a supergroup is called in tables
    bootstrap_unit: str = "items within each group"  # what the bootstrap resamples, as `compare` states it


@dataclass(frozen=True)
class Documents:
    """Items belong to documents and the bootstrap resamples whole documents (RR, segmenter)."""

    unit: str = "documents"  # what the bootstrap resamples, as `compare` states it


@dataclass(frozen=True)
class RawText:
    """Labelling raw text with a saved model (`baselines predict`), and scoring end to end on raw text cut into
    units by a segmenter (`eval --segmenter`, with `segmenter_in_effect`)."""

    predict: LabellerFactory
    end_to_end: EndToEndPredictions | None = None
    segmenter_in_effect: SegmenterInEffect | None = None


@dataclass(frozen=True)
class LmEvalExport:
    """lm-evaluation-harness tasks written from the benchmark (`baselines export lm-eval`); `prompts`, the
    prompt texts its default export writes for some records (one per LLM call), from which an LLM run's cost is
    estimated (baselines.runs.llm_cost)."""

    writer: ExportWriterFactory
    prompts: PromptTexts | None = None


@dataclass(frozen=True)
class ExternalFormat:
    """A predictions format: the generic ones (baselines.evaluation.formats) and a task's own (e.g. a paper's
    released responses, read through the references) are entries of this one kind."""

    read: FormatReader
    help: str  # what `--format NAME` reads
    producer: str | None = "llm"  # who produced predictions in this format (None: told by the rows)
    summary: Callable[[Any], str] | None = None  # the reader's report -> one line for the terminal
    folder: bool = False  # reads a folder too
    options: tuple[str, ...] = ()  # the score options it reads: task_name, id_prefix, id_field, filter_name
    detect: Callable[[dict], bool] | None = None  # --format auto: whether a file's first row has its shape
    whole_records: bool = False  # reads the records' texts or what is kept with them (not ReferencesOnly's load)


@dataclass(frozen=True)
class Formats:
    """Predictions formats of the task's own: `--format NAME` -> ExternalFormat."""

    by_name: dict[str, ExternalFormat] = field(default_factory=dict)


@dataclass(frozen=True)
class Download:
    """Fetching the benchmark into the data folder (`data download`, and `--download` on a first run)."""

    fetch: Fetcher


@dataclass(frozen=True)
class SpeedTexts:
    """Texts a task offers for the encoder speed test (`baselines speed encoders --texts TASK`)."""

    read: TextsReader
    label: str  # what they are, in the report ("RR sentences")
    help: str  # what they are, in the option's help
    max_seq_length: int | None = None  # tokens kept per text (None: the encoder's own limit)
    default: bool = False  # the texts `baselines speed encoders` times when --texts is not given


@dataclass(frozen=True)
class ScaleData:
    """The benchmark at sizes beyond its local data (`baselines speed scale`): `write` gives its data in the
    published layout with `copies` of the items under new ids and texts and `task_copies` of its groups; `methods`,
    those trained at each size by default; `full`, the published size the figures are extrapolated to (examples,
    test, tasks); `layout`, what is written, in the page's words."""

    write: ScaleWriter
    methods: tuple[str, ...]
    full: dict[str, int]
    layout: str = ""


@dataclass(frozen=True)
class ItemsFromPredictions:
    """Scored items made from each reference and its prediction together (segmenter: boundary items): two systems
    are paired on the union of their items, and an item that one of them lacks takes `absent(id)`."""

    expand: ItemsExpander
    absent: AbsentOutcome
    name: str  # what the items are called ("boundary items")


@dataclass(frozen=True)
class Diagnostics:
    """What the data allows, recorded with every run."""

    describe: Describer


@dataclass(frozen=True)
class PublishedFigures:
    """Figures published elsewhere ('package:file' of a YAML, shown beside our runs, never run here), the plain
    method of ours the best of ours is set against per group in the headline, and the systems of ours that exploit
    how the benchmark's items were built (SCALR's distractors: the headline also shows our best run among the
    others, "content-only")."""

    source: str | None = None
    headline_versus: str | None = None
    construction_systems: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlainClasses:
    """Class name -> 'module:Class' of objects a saved fitted state may hold besides scikit-learn's."""

    classes: dict[str, str]


@dataclass(frozen=True)
class Options:
    """Command-line options only some tasks take -> what each does for this task; others are refused."""

    flags: dict[str, str]


CAPABILITIES = (Contents, ReferencesOnly, Answers, Subtasks, Documents, RawText, LmEvalExport, Formats, Download,
                SpeedTexts, ScaleData, ItemsFromPredictions, Diagnostics, PublishedFigures, PlainClasses, Options)
