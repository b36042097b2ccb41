"""The signatures of the hooks a capability holds (baselines.registry.capabilities): one Protocol each, saying what
a benchmark's folder passes and what generic code calls it with."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol


class ContinuationOpeners(Protocol):
    """The line openers of a task's prompts: a generation's text from one of them on continues the prompt and is
    not read (baselines.evaluation.reading.sections)."""

    def __call__(self) -> Sequence[str]: ...


class PromptTexts(Protocol):
    """The prompt the default export writes for each item of these records, by item id (one LLM call each)."""

    def __call__(self, records: list) -> dict[str, str]: ...


class SupergroupOf(Protocol):
    """The wider group a group belongs to (CaselawQA task -> court)."""

    def __call__(self, group: str) -> str: ...


class LabellerFactory(Protocol):
    """The saved model loaded once, labelling raw texts in batches: a baselines.runs.corpus.Labeller."""

    def __call__(self, *, model: Any, method_name: str, models_dir: Path, data_dir: Path, **options: Any) -> Any: ...


class EndToEndPredictions(Protocol):
    """Prediction rows of the records' raw text, cut into units by `segmenter` first."""

    def __call__(self, records: list, method: Any, segmenter: str | None, models_dir: Path) -> list[dict]: ...


class SegmenterInEffect(Protocol):
    """What a --segmenter value (or None) stands for, without loading it: (name, saved folder or None)."""

    def __call__(self, segmenter: str | None, models_dir: Path) -> tuple[str, Path | None]: ...


class ExportWriterFactory(Protocol):
    """Given the export options, a writer `(records, tmp, final folder) -> baselines.export.lm_eval.Export`."""

    def __call__(self, **options: Any) -> Callable[[list, Path, Path], Any]: ...


class FormatReader(Protocol):
    """A predictions file (or folder) read through the references: (rows, report or None, default system name);
    `options`, those of the score options the format declares it reads."""

    def __call__(self, path: Path, records: list | None, load_whole: Callable[[], list] | None,
                 **options: Any) -> tuple[list, Any, str]: ...


class Fetcher(Protocol):
    """Fetch the benchmark into `dest`; the folder it wrote."""

    def __call__(self, dest: Path) -> Path: ...


class TextsReader(Protocol):
    """The first `n` texts of the benchmark's data folder."""

    def __call__(self, data_dir: Path, n: int) -> list[str]: ...


class RecordsLoader(Protocol):
    """Records of one split as `Task.load` gives them, less what a consumer does not read (see ReferencesOnly)."""

    def __call__(self, data_dir: Path | None, split: str, path: Path | None = None, **options: Any) -> list: ...


class RecordsOfIds(Protocol):
    """Whole records (with their texts) of the given item ids of one split, reading as little else as it can."""

    def __call__(self, data_dir: Path | None, split: str, path: Path | None, ids: set[str],
                 **options: Any) -> list: ...


class ScaleWriter(Protocol):
    """The benchmark's data written at a chosen size into `out` (see ScaleData), of every split or of `splits`;
    what was written: examples, splits (examples per split), tasks, cases, bytes."""

    def __call__(self, data_dir: Path, out: Path, *, copies: int, task_copies: int, **options: Any) -> dict: ...


class Describer(Protocol):
    """A dict recorded with every run, of what the records allow."""

    def __call__(self, records: list) -> dict: ...


class ItemsExpander(Protocol):
    """[(reference, row or None)] -> [(item reference, item row or None)]."""

    def __call__(self, pairs: list) -> list: ...


class AbsentOutcome(Protocol):
    """The outcome of an item absent from a system's samples."""

    def __call__(self, item_id: str) -> Any: ...


class UnitTexts(Protocol):
    """The texts one record's figures are made of (RR: its sentences; CaselawQA: its opinion)."""

    def __call__(self, record: Any) -> Sequence[str]: ...


class DocumentKey(Protocol):
    """The document one record belongs to: records of one document (the tasks of one opinion) count it once."""

    def __call__(self, record: Any) -> str: ...


class Identities(Protocol):
    """Per record, the text that makes it the item it is, whatever its id (digested to find a scored item that a
    model was fit on under another id or file name)."""

    def __call__(self, records: list) -> list[str]: ...
