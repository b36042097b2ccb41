"""Raw judgment text -> sentences (segmenter) -> rhetorical roles (tagger): prediction and end-to-end scoring."""
from __future__ import annotations

import time
from pathlib import Path

from .data.rr import Document, Documents, Sentence
from .errors import BaselinesError, DataError

BLOCK_CHARS = 20_000  # long texts are segmented in blocks cut at blank lines, for progress


def segment_text(text: str, segmenter, progress=None) -> list[tuple[int, int]]:
    """Sentence spans of a whole text; texts longer than BLOCK_CHARS go block by block (cut at blank lines)."""
    blocks, begin = [], 0
    while begin < len(text):
        end = min(len(text), begin + BLOCK_CHARS)
        if end < len(text):
            cut = text.rfind("\n\n", begin + BLOCK_CHARS // 2, end)
            end = cut + 2 if cut > 0 else end
        blocks.append((begin, end))
        begin = end
    spans = []
    for begin, end in blocks:
        spans.extend((begin + s, begin + e) for s, e in segmenter.segment(text[begin:end]))
        if progress is not None:
            progress(end - begin)
    return spans


def document_from_text(doc_id: str, text: str, spans: list[tuple[int, int]], labels=()) -> Document:
    """An unlabelled Document whose sentences are the predicted spans (ids '<doc>/s<k>')."""
    sentences = [Sentence(f"{doc_id}/s{k}", s, e, text[s:e]) for k, (s, e) in enumerate(spans)]
    return Document(doc_id, text, sentences, labels=tuple(labels))


def resegment(docs: list[Document], segmenter) -> Documents:
    """Copies of gold documents with predicted sentences; the gold ones are kept for scoring."""
    out = []
    for doc in docs:
        new = document_from_text(doc.id, doc.text, segment_text(doc.text, segmenter), doc.labels)
        new.meta = {**doc.meta, "gold_sentences": doc.sentences}
        out.append(new)
    return Documents(out, getattr(docs, "notes", []))


def project(docs: list[Document], rows: list[dict]) -> list[dict]:
    """Predictions on predicted sentences carried to the gold sentences they overlap most.

    A gold sentence overlapping no predicted sentence gets no row (scored as wrong).
    """
    from segmentation.spans import align, trim

    by_id = {row["id"]: row for row in rows}
    projected = []
    for doc in docs:
        gold = doc.meta["gold_sentences"]
        gold_spans = [trim(doc.text, s.start, s.end) or (s.start, s.end) for s in gold]
        predicted = [(s.start, s.end) for s in doc.sentences]
        for sentence, match in zip(gold, align(gold_spans, predicted)):
            if match is not None:
                source = by_id[doc.sentences[match].id]
                projected.append({"id": sentence.id, "prediction": source["prediction"],
                                  "from": source["id"]})
    return projected


def evaluate_end_to_end(method_name: str | None = None, data_dir=None, *, segmenter: str = "trained",
                        split: str | None = None, model: Path | None = None, models_dir=None,
                        name: str | None = None, seed: int = 0):
    """Score a saved tagger on raw split text cut by `segmenter`, against the gold sentences.

    Results go to models/rr/<system>/<split>.e2e-<segmenter>.results.json.
    """
    from segmentation.run import get_segmenter

    from . import run
    from .evaluate import score
    from .tasks import get_task

    started = time.time()
    task = get_task("rr")
    method_name = method_name or task.default_method
    split = split or task.eval_split
    gold = run.load_split(task, data_dir, split)
    docs = resegment(gold, get_segmenter(segmenter, models_dir))
    method = run.fitted_method(task, method_name, model=model, models_dir=models_dir, name=name, config=None,
                               overrides=None)
    predictions = project(docs, method.predict(docs))
    system = name or method_name
    split_name = f"{split}.e2e-{Path(segmenter).name}"
    result, samples = score(task, predictions, task.references(gold), method=system, split=split_name,
                            missing="wrong", seed=seed)
    result.meta = run.run_meta(started, config=method.get_params(), method=method_name, segmenter=segmenter,
                               predicted_sentences=sum(len(d.sentences) for d in docs),
                               data=str(run.data_root(data_dir)))
    folder = run.models_root(models_dir) / "rr" / system
    run.write_outputs(folder, split_name, result, samples, predictions)
    return result, folder


def read_text(path: Path) -> str:
    """A raw judgment as UTF-8 text."""
    path = Path(path)
    if not path.is_file():
        raise DataError("file not found", path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", path) from None
    if not text.strip():
        raise DataError("the file is empty", path)
    return text


def predict_file(path: Path, *, model: Path | None = None, method_name: str | None = None,
                 segmenter: str | None = None, models_dir=None, out: Path | None = None) -> list[dict]:
    """Raw text file -> rows {start, end, text, label, probabilities}; written as JSONL when `out` is given."""
    from rich.progress import Progress

    from segmentation.run import get_segmenter

    from . import run
    from .io import write_jsonl
    from .methods.base import Method
    from .tasks import get_task

    text = read_text(path)
    folder = Path(model) if model else run.models_root(models_dir) / "rr" / (method_name or get_task("rr").default_method)
    if not (folder / "config.json").is_file():
        raise BaselinesError(f"no trained model in {folder}; run `baselines train rr` first (or pass --model)")
    tagger = Method.load(folder)
    with Progress(transient=True) as progress:
        bar = progress.add_task("segmenting", total=len(text))
        spans = segment_text(text, get_segmenter(segmenter, models_dir), lambda n: progress.advance(bar, n))
    if not spans:
        raise DataError("no sentences found", path)
    doc = document_from_text(Path(path).stem, text, spans, getattr(tagger, "labels_", ()))
    predicted = tagger.predict([doc], progress=len(spans) > 200)
    rows = [{"id": row["id"], "start": row["start"], "end": row["end"], "text": text[row["start"]:row["end"]],
             "label": row["prediction"], **({"probabilities": row["probabilities"]} if "probabilities" in row else {})}
            for row in predicted]
    if out:
        write_jsonl(Path(out), rows)
    return rows


def print_predictions(rows: list[dict], max_chars: int = 90) -> None:
    """A readable table: sentence number, label, its probability and the sentence."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(rows)} sentences", title_justify="left")
    for column, justify in (("#", "right"), ("label", "left"), ("p", "right"), ("sentence", "left")):
        table.add_column(column, justify=justify, overflow="fold" if column == "sentence" else "ellipsis")
    for k, row in enumerate(rows):
        sentence = " ".join(row["text"].split())
        shown = sentence if len(sentence) <= max_chars else sentence[:max_chars - 3] + "..."
        p = row.get("probabilities", {}).get(row["label"])
        table.add_row(str(k + 1), row["label"], f"{p:.2f}" if p is not None else "", shown)
    Console().print(table)
