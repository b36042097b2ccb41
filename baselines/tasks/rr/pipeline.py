"""Raw judgment text -> sentences (segmenter) -> rhetorical roles (tagger): prediction and end-to-end scoring."""
from __future__ import annotations

from pathlib import Path

from baselines.tasks.rr.data import Document, Documents, Sentence
from baselines.core.errors import BaselinesError, DataError
from baselines.core.source_text import SourceText

MAX_TEXT_BYTES = 64 * 2**20  # a raw judgment larger than this is refused (the largest LegalEval one is < 1 MiB)
BLOCK_CHARS = 20_000  # long texts are segmented in blocks cut at blank lines, for progress


def segment_text(text: str, segmenter, progress=None) -> list[tuple[int, int]]:
    """Sentence spans of a whole text; texts longer than BLOCK_CHARS go block by block (cut at blank lines)."""
    blocks, begin = [], 0
    while begin < len(text):
        end = min(len(text), begin + BLOCK_CHARS)
        if end < len(text):
            cut = text.rfind("\n\n", begin + BLOCK_CHARS // 2, end)
            if cut > 0:
                end = cut + 2
            else:  # no blank line: after the last line break, else the last white space; never inside a word
                cut = text.rfind("\n", begin + BLOCK_CHARS // 2, end)
                cut = cut if cut > 0 else _last_space(text, begin, end)
                end = cut + 1 if cut > begin else end
        blocks.append((begin, end))
        begin = end
    spans = []
    for begin, end in blocks:
        spans.extend((begin + s, begin + e) for s, e in segmenter.segment(text[begin:end]))
        if progress is not None:
            progress(end - begin)
    return spans


def _last_space(text: str, begin: int, end: int) -> int:
    """Index of the last white-space character in text[begin:end], or -1."""
    for index in range(end - 1, begin, -1):
        if text[index].isspace():
            return index
    return -1


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


def end_to_end_predictions(docs: list[Document], method, segmenter: str, models_dir=None) -> list[dict]:
    """Predictions on the gold sentences of `docs` from their raw text: cut by `segmenter`, labelled by
    `method`, each gold sentence taking the label of the predicted sentence overlapping it most."""
    from baselines.tasks.segmenter.choose import get_segmenter

    predicted_docs = resegment(docs, get_segmenter(segmenter, models_dir))
    rows = project(predicted_docs, method.predict(predicted_docs))
    return rows


def read_source(path: Path) -> SourceText:
    """A raw judgment as UTF-8 text, with the offsets back to the file as given."""
    path = Path(path)
    if path.is_file() and path.stat().st_size > MAX_TEXT_BYTES:
        raise DataError(f"a judgment is at most {MAX_TEXT_BYTES // 2**20} MiB of text; this file has "
                        f"{path.stat().st_size / 2**20:.0f} MiB", path)
    source = SourceText.read(path)  # a bad byte is named by line and byte within the line
    if not source.text.strip():
        raise DataError("the file is empty", path)
    return source


def predict_file(path: Path, *, model: Path | None = None, method_name: str | None = None,
                 segmenter: str | None = None, models_dir=None, out: Path | None = None) -> list[dict]:
    """Raw text file -> rows {start, end, text, label, probabilities}; written as JSONL when `out` is given.

    `start`/`end` are character offsets into the file as given (a BOM and CRLF line endings included):
    `open(path, encoding="utf-8", newline="").read()[start:end]` is the row's `text`."""
    from rich.progress import Progress

    from baselines.core.io import writable_target, write_jsonl
    from baselines.methods import saved_model_folder
    from baselines.methods.base import Method
    from baselines.core.paths import models_root
    from baselines.registry import get_task
    from baselines.tasks.segmenter.choose import get_segmenter

    if out:
        writable_target(Path(out), inputs=[Path(path)])  # refused before any work
    source = read_source(path)
    folder = Path(model) if model else saved_model_folder(models_root(models_dir), "rr",
                                                          method_name or get_task("rr").default_method)
    if not (folder / "config.json").is_file():
        train = "baselines train rr" + (f" --method {method_name}" if method_name else "")
        raise BaselinesError(f"no trained model in {folder}; run `{train}` first (or pass --model)")
    tagger = Method.load(folder)
    with Progress(transient=True) as progress:
        bar = progress.add_task("segmenting", total=len(source.text))
        spans = segment_text(source.text, get_segmenter(segmenter, models_dir), lambda n: progress.advance(bar, n))
    if not spans:
        raise DataError("no sentences found", path)
    doc = document_from_text(Path(path).stem, source.text, spans, getattr(tagger, "labels_", ()))
    predicted = tagger.predict([doc], progress=len(spans) > 200)
    rows = [_given_row(row, source) for row in predicted]
    if out:
        write_jsonl(Path(out), rows)
    return rows


def _given_row(row: dict, source: SourceText) -> dict:
    """A prediction row with its span and text as they stand in the file as given."""
    start, end = source.given_span(row["start"], row["end"])
    return {"id": row["id"], "start": start, "end": end, "text": source.given[start:end], "label": row["prediction"],
            **({"probabilities": row["probabilities"]} if "probabilities" in row else {})}
