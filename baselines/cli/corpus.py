"""What `baselines predict` and `baselines speed predict` share: the task check, the input, the output and the
job it records (task, model digest, the options that change the records), the runner (local or Dask), the
progress bar over documents and the closing summary."""
from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterator

import typer

from baselines.core.errors import BaselinesError
from baselines.registry import RawText, tasks_with

PredictInput = ("A text file, a folder of .txt files, a glob of text files (quoted), or a .jsonl file of "
                '{"id", "text"}; - reads that JSONL from standard input.')
PredictOut = ("A .jsonl file (one record per document), or a folder (one <id>.json per document); a rerun with the "
              "same --out resumes it. - : standard output. Default: a table for one text file, else standard output.")
BACKENDS = ("local", "dask")
ModelFolder = typer.Option(None, "--model", help="A saved model folder (default: models/<task>/<method>).")
Segmenter = typer.Option(None, "--segmenter", help="rule | trained | folder (default: trained if saved, else rule); "
                         f"tasks that cut raw text into sentences: {', '.join(tasks_with(RawText, 'end_to_end'))}.")


def hook_options(model, method, models_dir, data_dir, segmenter, subtasks) -> dict:
    """The options of a task's `predict` hook, from the command line (the task's own only when given)."""
    from baselines.cli.options import load_options

    return {"model": model, "method_name": method, "models_dir": models_dir, "data_dir": data_dir,
            **({"segmenter": segmenter} if segmenter else {}), **load_options(subtasks)}


def predict_task(task: str, backend: str, segmenter: str | None):
    """The task record, refused (naming the alternatives) when it labels no raw text or an option does not apply."""
    from baselines.registry import get_task

    spec = get_task(task)
    raw_text = spec.capability(RawText)
    if raw_text is None:
        raise BaselinesError(f"task {task!r} does not label raw text; `baselines predict` works for: "
                             f"{', '.join(tasks_with(RawText))}")
    if segmenter and raw_text.end_to_end is None:
        raise BaselinesError(f"--segmenter applies to tasks that cut raw text into sentences: "
                             f"{', '.join(tasks_with(RawText, 'end_to_end'))} ({task} takes no --segmenter)")
    if backend not in BACKENDS:
        raise BaselinesError(f"--backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    return spec


def predict_setup(spec, source: str, out: str | None, backend: str, scheduler: str | None, options: dict):
    """(corpus, sink, runner): the input read lazily (never the output itself), the output checked and opened
    (locked, what an earlier run wrote there read back, refused when another job wrote it) before the model loads
    or the cluster is reached; what the output opening created is removed when they fail."""
    from baselines.runs.corpus import MemorySink, local_runner, portable_options, read_corpus
    from baselines.runs.corpus_output import open_output

    corpus = read_corpus(source, out=out)
    inputs = [*corpus.paths, *([Path(source)] if corpus.kind == "folder" else [])]
    if scheduler and backend != "dask":
        raise BaselinesError("--scheduler applies to --backend dask only")
    if out is None and corpus.kind == "text":
        sink = MemorySink()
    else:
        sink = open_output(out, inputs, predict_job(spec, options) if out not in (None, "-") else None)
    try:
        if backend == "dask":
            from baselines.runs.corpus_dask import dask_runner

            run = dask_runner(spec.name, portable_options(options), scheduler)
        else:
            run = local_runner(spec.name, portable_options(options))
    except BaseException:
        getattr(sink, "discard", lambda: None)()
        raise
    return corpus, Shown(sink) if corpus.kind == "text" else sink, run


def predict_job(spec, options: dict) -> dict:
    """What an output records of the job that labels it, and a resume must match: the task, the saved model (its
    folder, and the SHA-256 of its files) and the options that change the records, as they take effect (the
    default segmenter is the one it stands for; the subtasks in any order are the same)."""
    from baselines.methods.saved import trained_model_folder

    method = options.get("method_name") or spec.default_method
    folder = trained_model_folder(spec.name, options.get("model"), method, options.get("models_dir"),
                                  train_command=f"baselines train {spec.name} --method {method}")
    job = {"task": spec.name, "model": str(folder.resolve()), "model_sha256": folder_digest(folder), "options": {}}
    raw_text = spec.capability(RawText)
    if raw_text is not None and raw_text.end_to_end is not None and raw_text.segmenter_in_effect is not None:
        job["options"]["--segmenter"] = segmenter_in_effect(raw_text, options.get("segmenter"),
                                                            options.get("models_dir"))
    if "--subtasks" in spec.options:
        subtasks = sorted(set(options.get("subtasks") or []))
        job["options"]["--subtasks"] = ",".join(subtasks) if subtasks else "every task the model answers"
    return job


def segmenter_in_effect(raw_text: RawText, name: str | None, models_dir) -> str:
    """--segmenter as it takes effect (the task's hook says what a name stands for): rule, or a saved senter named
    with the digest of its files."""
    name, folder = raw_text.segmenter_in_effect(name, models_dir)
    if folder is None or not (folder / "config.cfg").is_file():
        return name  # rule, or a senter that is not there (refused when the labeller loads it)
    return f"{'trained' if name == 'trained' else folder.resolve()} (sha256 {folder_digest(folder)[:12]})"


def folder_digest(folder: Path) -> str:
    """SHA-256 of a saved model's files, their names and bytes (the encoder copies it bundles left out: its
    config.json names the encoder): the same model anywhere has the same digest, a retrained one another."""
    import hashlib

    from baselines.encoders.bundle import BUNDLE

    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if path.is_file() and name.split("/")[0] != BUNDLE:
            digest.update(f"{name}\0{path.stat().st_size}\0".encode())
            with open(path, "rb") as handle:
                for block in iter(lambda: handle.read(2**20), b""):
                    digest.update(block)
    return digest.hexdigest()


class Shown:
    """A sink that also keeps what it wrote (one document, shown as a table)."""

    def __init__(self, sink):
        self.sink, self.records = sink, []
        self.notes = getattr(sink, "notes", [])

    def state(self, doc_id: str, digest: str) -> str:
        return self.sink.state(doc_id, digest)

    def write(self, record: dict) -> None:
        self.sink.write(record)
        self.records.append(record)

    def close(self) -> None:
        getattr(self.sink, "close", lambda: None)()


@contextlib.contextmanager
def predict_progress(total: int | None, quiet: bool) -> Iterator:
    """notify(message=None, advance=True): a progress bar over documents (with the time left) on standard error,
    messages printed above it."""
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)

    console = Console(stderr=True)

    def say(message: str) -> None:  # file names are not markup, and lines are not wrapped
        console.print(message, markup=False, highlight=False, soft_wrap=True)

    if quiet:
        yield lambda message=None, advance=True: message and say(message)
        return
    columns = (TextColumn("documents"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("left"), TimeRemainingColumn())
    with Progress(*columns, console=console) as progress:
        bar = progress.add_task("documents", total=total)

        def notify(message: str | None = None, advance: bool = True) -> None:
            if message:
                say(message)
            if advance:
                progress.advance(bar)

        yield notify


def summary_line(summary, out: str | None) -> str:
    """One line on what the run did."""
    where = f" into {out}" if out and out != "-" else ""
    documents = "document" if summary.written == 1 else "documents"
    units = f" ({summary.units} {summary.unit})" if summary.written else ""
    parts = [f"labelled {summary.written} {documents}{units}{where} in {summary.seconds:.1f} s"]
    if summary.skipped:
        parts.append(f"{summary.skipped} already there with the same text, skipped")
    if summary.relabelled:
        parts.append(f"{len(summary.relabelled)} changed since, labelled again")
    if summary.failed:
        parts.append(f"{len(summary.failed)} failed: {', '.join(name for name, _ in summary.failed[:10])}"
                     + (" ..." if len(summary.failed) > 10 else ""))
    return "; ".join(parts)


def print_record(record: dict) -> None:
    """One document's record as a table: its sentences (label, probability, text), or its answers."""
    from baselines.cli.summary import print_predictions

    if "sentences" in record:
        print_predictions(record["sentences"])
        return
    for name, answer in record.get("answers", {}).items():
        typer.echo(f"{name:<40} {answer['label']:>4}  {answer['probability']}  {answer['choice']}")
