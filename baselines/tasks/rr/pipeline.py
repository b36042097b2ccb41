"""Raw judgment text -> sentences (segmenter) -> rhetorical roles (tagger): prediction and end-to-end scoring."""
from __future__ import annotations

from pathlib import Path

from baselines.tasks.rr.data import Document, Documents, Sentence
from baselines.core.errors import DataError
from baselines.core.source_text import SourceText

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


def load_tagger(model: Path | None = None, method_name: str | None = None, models_dir=None):
    """The saved tagger of --model, else of models/rr/<method>; none saved names the training command."""
    from baselines.methods.saved import load_trained_model

    train = "baselines train rr" + (f" --method {method_name}" if method_name else "")
    return load_trained_model("rr", model, method_name, models_dir, train_command=train)


def corpus_labeller(*, model: Path | None = None, method_name: str | None = None, segmenter: str | None = None,
                    models_dir=None, data_dir=None):
    """The task record's `predict` hook: the tagger and the segmenter loaded once, labelling raw judgments in
    batches (their sentences encoded together). A record's `sentences` are rows {id, start, end, text, label,
    probabilities}, `start`/`end` character offsets into the text as given (a BOM and CRLF line endings
    included): `text[start:end]` is the row's `text`. (`data_dir` is not needed: the model holds its labels.)"""
    from baselines.runs.corpus import Labeller
    from baselines.tasks.segmenter.choose import get_segmenter

    tagger = load_tagger(model, method_name, models_dir)
    cutter = get_segmenter(segmenter, models_dir)
    return Labeller(label=lambda texts: label_judgments(texts, tagger, cutter), unit="sentences",
                    count=lambda fields: len(fields["sentences"]), encode=_own_encoder(tagger),
                    encoded_texts=_encoded_texts)


def label_judgments(texts: list, tagger, cutter) -> list:
    """Per CorpusText, {"sentences": rows} or a Failure; the sentences of all of them tagged in one call."""
    from baselines.runs.corpus import Failure

    sources, docs, outcomes = {}, [], []
    for text in texts:
        source = SourceText.of(text.text)
        spans = segment_text(source.text, cutter)
        outcomes.append(None if spans else Failure("no sentences found"))
        if spans:
            sources[text.id] = source
            docs.append(document_from_text(text.id, source.text, spans, getattr(tagger, "labels_", ())))
    rows: dict[str, list] = {doc_id: [] for doc_id in sources}
    for row in tagger.predict(docs, progress=False) if docs else []:
        rows[row["doc"]].append(_given_row(row, sources[row["doc"]]))
    return [outcome or {"sentences": rows[text.id]} for text, outcome in zip(texts, outcomes)]


def predict_file(path: Path, *, model: Path | None = None, method_name: str | None = None,
                 segmenter: str | None = None, models_dir=None) -> list[dict]:
    """The sentence rows of one raw judgment file (as `baselines predict rr FILE` writes them in its record)."""
    from baselines.runs.corpus import Failure, file_text, label_batch

    text = file_text(Path(path))
    if text.problem:
        raise DataError(text.problem, path)
    labeller = corpus_labeller(model=model, method_name=method_name, segmenter=segmenter, models_dir=models_dir)
    outcome = label_batch(labeller, [text])[0]
    if isinstance(outcome, Failure):
        raise DataError(outcome.reason, path)
    return outcome.fields["sentences"]


def _own_encoder(tagger):
    """texts -> vectors from the tagger's sentence encoder itself, without the encoding cache (None for a tagger
    that does not encode through it): what `baselines speed predict` compares the whole pipeline with."""
    if not hasattr(tagger, "encode_backend"):
        return None
    built = []  # the backend is resolved and the encoder loaded once, on the first call

    def encode(texts: list[str]):
        from baselines.encoders.onnx_backend import resolve_backend
        from baselines.encoders.speed import backend_encoder

        if not built:
            backend = resolve_backend([tagger.encoder], tagger.encode_backend)
            built.append(backend_encoder(tagger.encoder, backend, tagger.max_seq_length, tagger.encode_batch_size))
        return built[0](texts)

    return encode


def _encoded_texts(fields: dict) -> list[str]:
    """What the encoder read for each sentence of a record."""
    from baselines.tasks.rr.data import model_input

    return [model_input(row["text"].replace("\r\n", "\n").replace("\r", "\n")) or "." for row in fields["sentences"]]


def _given_row(row: dict, source: SourceText) -> dict:
    """A prediction row with its span and text as they stand in the file as given."""
    start, end = source.given_span(row["start"], row["end"])
    return {"id": row["id"], "start": start, "end": end, "text": source.given[start:end], "label": row["prediction"],
            **({"probabilities": row["probabilities"]} if "probabilities" in row else {})}


def segmenter_in_effect(name: str | None, models_dir=None):
    """What a --segmenter value stands for (the task record's hook): the segmenter task's own choice."""
    from baselines.tasks.segmenter.choose import segmenter_in_effect as chosen

    return chosen(name, models_dir)
