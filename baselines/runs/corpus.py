"""Labelling a corpus: documents read one at a time from a text file, a folder of .txt files, a glob or a JSONL of
{"id", "text"} ("-": standard input), grouped into bounded batches, labelled by a task's labeller (what its
record's `predict` hook returns: the model loads once per process), and written as they come to an output that a
rerun resumes (corpus_output.py), locally or on a Dask cluster (corpus_dask.py).

A labeller is a `Labeller`: `label(texts)` takes a batch of CorpusText and returns, per document, the fields of
its record (a dict) or a Failure naming why that document cannot be labelled. Each written record is
{"id", "digest", **fields}; `digest` is the SHA-256 of the text as given, so a rerun skips a document whose id
and text it has already written and labels again one whose text has changed.
"""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from baselines.core.errors import BaselinesError, DataError
from baselines.runs.corpus_input import CorpusText, checked_text, file_text, read_corpus  # noqa: F401  (re-exported)

BATCH_DOCS = 32  # documents labelled together at most (the encoder shares its batches among them)
BATCH_CHARS = 1_000_000  # characters labelled together at most (memory stays bounded whatever the corpus)


@dataclass(frozen=True)
class Failure:
    """Why one document could not be labelled."""

    reason: str


@dataclass(frozen=True)
class Labelled:
    """The fields of one document's record, and how many units (sentences, answers) they hold."""

    fields: dict
    units: int


@dataclass
class Labeller:
    """What a task's `predict` hook returns, once per process: the loaded model, ready to label batches."""

    label: Callable  # list[CorpusText] -> per document, its record's fields (dict) or a Failure
    unit: str = "documents"  # what `count` counts, in reports ("sentences", "answers")
    count: Callable = lambda fields: 1  # a record's fields -> its number of units
    encode: Callable | None = None  # texts -> vectors: the labeller's own encoder, without the cache (speed test)
    encoded_texts: Callable | None = None  # a record's fields -> the texts the encoder read for it


@dataclass
class Summary:
    """What a run did."""

    written: int = 0
    skipped: int = 0  # already in the output with the same text
    relabelled: list = field(default_factory=list)  # ids whose text changed since they were written
    failed: list = field(default_factory=list)  # (name, reason) of each document that could not be labelled
    units: int = 0
    unit: str = "documents"
    seconds: float = 0.0


def label_batch(labeller: Labeller, batch: list[CorpusText]) -> list:
    """Per document a Labelled or a Failure. When the batch fails as a whole, each document is labelled on its
    own, so one bad document costs only itself."""
    from baselines.encoders.sentence import uncached

    with uncached():  # a corpus is seen once: its sentences are not kept in the encoding cache
        try:
            outcomes = labeller.label(batch)
        except Exception:  # noqa: BLE001 - isolated below, document by document
            outcomes = [_label_alone(labeller, text) for text in batch]
    return [outcome if isinstance(outcome, Failure) else Labelled(outcome, labeller.count(outcome))
            for outcome in outcomes]


def _label_alone(labeller: Labeller, text: CorpusText):
    try:
        return labeller.label([text])[0]
    except BaselinesError as exc:
        return Failure(str(exc))
    except Exception as exc:  # noqa: BLE001 - a document that breaks the labeller is reported and counted
        return Failure(f"{type(exc).__name__}: {exc}")


_LABELLERS: dict = {}
_LOADING = threading.Lock()


def labeller_for(task_name: str, options: dict) -> Labeller:
    """The labeller of `task_name` with `options`, loaded once per process (a Dask worker keeps its own)."""
    from baselines.registry import RawText, get_task

    key = (task_name, json.dumps(options, sort_keys=True, default=str))
    with _LOADING:
        if key not in _LABELLERS:
            _LABELLERS[key] = get_task(task_name).capability(RawText).predict(**options)
        return _LABELLERS[key]


def label_on_worker(task_name: str, options: dict, batch: list[CorpusText]) -> tuple[list, str]:
    """(outcomes, unit) of one batch, with this process's labeller (what a Dask worker runs)."""
    labeller = labeller_for(task_name, options)
    return label_batch(labeller, batch), labeller.unit


def local_runner(task_name: str, options: dict) -> Callable:
    """batches -> (batch, outcomes, unit) labelled in this process, the model loaded before the first batch."""
    labeller = labeller_for(task_name, options)

    def run(batches: Iterable[list[CorpusText]]):
        for batch in batches:
            yield batch, label_batch(labeller, batch), labeller.unit

    return run


def label_corpus(texts: Iterable[CorpusText], sink, run: Callable, notify: Callable | None = None) -> Summary:
    """Label the documents of `texts` that `sink` does not hold yet (or holds with another text) through `run`,
    writing each record as its batch comes back. `notify(message, advance)` hears of every document done."""
    notify = notify or (lambda message=None, advance=True: None)
    summary, started = Summary(), time.perf_counter()
    for batch, outcomes, unit in run(_pending(texts, sink, summary, notify)):
        summary.unit = unit
        for text, outcome in zip(batch, outcomes):
            if isinstance(outcome, Failure):
                summary.failed.append((text.name, outcome.reason))
                notify(f"failed: {text.name}: {outcome.reason}")
                continue
            sink.write({"id": text.id, "digest": text.digest, **outcome.fields})
            summary.written += 1
            summary.units += outcome.units
            notify()
    summary.seconds = time.perf_counter() - started
    return summary


def _pending(texts: Iterable[CorpusText], sink, summary: Summary, notify: Callable) -> Iterator[list[CorpusText]]:
    """Batches of the documents to label; bad, duplicate and already written documents are settled here."""
    seen: dict[str, str] = {}
    batch, chars = [], 0
    for text in texts:
        problem = text.problem or (f"duplicate id {text.id!r} (also {seen[text.id]})" if text.id in seen else None)
        if problem:
            summary.failed.append((text.name, problem))
            notify(f"failed: {text.name}: {problem}")
            continue
        seen[text.id] = text.name
        try:
            state = sink.state(text.id, text.digest)
        except DataError as exc:  # e.g. an id that cannot name a file of a folder output
            summary.failed.append((text.name, str(exc)))
            notify(f"failed: {text.name}: {exc}")
            continue
        if state == "done":
            summary.skipped += 1
            notify()
            continue
        if state == "changed":
            summary.relabelled.append(text.id)
            notify(f"changed since it was labelled, labelling it again: {text.name}", advance=False)
        batch.append(text)
        chars += len(text.text)
        if len(batch) >= BATCH_DOCS or chars >= BATCH_CHARS:
            yield batch
            batch, chars = [], 0
    if batch:
        yield batch


def portable_options(options: dict) -> dict:
    """The hook options with the model and data folders as absolute paths (the same on every worker of a
    cluster sharing the file system), None left out."""
    from baselines.core.paths import data_location, models_root

    out = {key: value for key, value in options.items() if value is not None}
    out["models_dir"] = str(models_root(out.get("models_dir")).resolve())
    out["data_dir"] = str(data_location(out.get("data_dir"))[0].resolve())
    if "model" in out:
        out["model"] = str(Path(out["model"]).resolve())
    return out


def predict(task: str, texts, *, method: str | None = None, model=None, models_dir=None, data_dir=None,
            **options) -> list[dict]:
    """Label raw texts with a saved model, loaded once: one record {"id", "digest", ...} per text, in order.

    `texts` is a list of strings (ids "0", "1", ...) or a dict {id: text}; `options` are the task's own
    (rr: segmenter; caselawqa: subtasks, a list of task names). A text that cannot be labelled is a
    BaselinesError naming it."""
    from baselines.registry import RawText, get_task, tasks_with

    if get_task(task).capability(RawText) is None:
        raise BaselinesError(f"task {task!r} does not label raw text; predict works for: "
                             f"{', '.join(tasks_with(RawText))}")
    pairs = texts.items() if isinstance(texts, dict) else enumerate(texts)
    corpus = [checked_text(CorpusText(str(key), f"text {key!r}", value)) if isinstance(value, str)
              else CorpusText(str(key), f"text {key!r}", problem="not a string") for key, value in pairs]
    records = MemorySink()
    hook_options = portable_options({"model": model, "method_name": method, "models_dir": models_dir,
                                     "data_dir": data_dir, **options})
    summary = label_corpus(corpus, records, local_runner(task, hook_options))
    if summary.failed:
        raise BaselinesError("; ".join(f"{name}: {reason}" for name, reason in summary.failed))
    return records.records


class MemorySink:
    """Records kept in a list (the Python API, and one document shown as a table)."""

    def __init__(self):
        self.records: list[dict] = []

    def state(self, doc_id: str, digest: str) -> str:
        return "new"

    def write(self, record: dict) -> None:
        self.records.append(record)


class StreamSink:
    """Records as JSONL on a text stream (standard output): nothing to resume."""

    def __init__(self, stream):
        self.stream = stream
        self.notes: list[str] = []

    def state(self, doc_id: str, digest: str) -> str:
        return "new"

    def write(self, record: dict) -> None:
        self.stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.stream.flush()

    def close(self) -> None:
        pass

    discard = close
