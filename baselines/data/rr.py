"""Rhetorical-role documents: LegalEval Label Studio JSON, JSONL of sentence lists, or a folder of TSVs."""
from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import DataError
from ..io import read_json, read_jsonl
from ..records import Reference

FOLDER = Path("rr") / "legaleval2023"
SPLIT_FILES = {"train": "train.json", "dev": "dev.json", "test": "test_unlabeled.json"}


@dataclass
class Sentence:
    """One sentence of a document: a character span of its text and its gold label (None if unlabelled)."""

    id: str
    start: int
    end: int
    text: str
    label: str | None = None


@dataclass
class Document:
    """A judgment: its full text and its sentences in order."""

    id: str
    text: str
    sentences: list[Sentence]
    labels: tuple[str, ...] = ()  # the task label set (from the training data)
    meta: dict = field(default_factory=dict)


class Documents(list):
    """A list of documents with loader notes (renamed duplicate ids, skipped empty documents)."""

    notes: list[str]

    def __init__(self, docs=(), notes=None):
        super().__init__(docs)
        self.notes = list(notes or [])


def model_input(text: str) -> str:
    """The text a model sees for a sentence: whitespace runs collapsed to single spaces."""
    return " ".join(text.split())


def make_document(doc_id: str, text: str, spans: list[tuple[int, int, str | None]], where) -> Document:
    """A Document from (start, end, label) spans, checked: in range, non-empty, non-overlapping."""
    if not spans:
        raise DataError(f"document {doc_id!r} has no sentences", where)
    spans = sorted(spans, key=lambda s: (s[0], s[1]))
    sentences, previous_end = [], 0
    for index, (start, end, label) in enumerate(spans):
        if not (isinstance(start, int) and isinstance(end, int)) or not 0 <= start < end <= len(text):
            raise DataError(f"document {doc_id!r}: sentence span [{start}, {end}) is out of range "
                            f"(text length {len(text)})", where)
        if start < previous_end:
            raise DataError(f"document {doc_id!r}: sentence span [{start}, {end}) overlaps the previous one "
                            f"(which ends at {previous_end})", where)
        if label is not None and (not isinstance(label, str) or not label):
            raise DataError(f"document {doc_id!r}: sentence {index} has an invalid label {label!r}", where)
        sentences.append(Sentence(f"{doc_id}/{index}", start, end, text[start:end], label))
        previous_end = end
    return Document(doc_id, text, sentences)


def _label_of(value: dict, doc_id: str, index: int, where) -> str | None:
    labels = value.get("labels") or []
    if not isinstance(labels, list) or len(labels) > 1:
        raise DataError(f"document {doc_id!r}: span {index} needs at most one label, got {labels!r}", where)
    return labels[0] if labels else None


def load_label_studio(path: Path) -> Documents:
    """LegalEval JSON: documents with annotated spans; duplicate ids get '#2'...; span-less ones are skipped."""
    data = read_json(path)
    if not isinstance(data, list):
        raise DataError("expected a JSON list of documents", path)
    seen: Counter = Counter()
    docs, notes = [], []
    for position, raw in enumerate(data):
        if not isinstance(raw, dict) or not isinstance(raw.get("data"), dict) or "text" not in raw["data"]:
            raise DataError(f"document #{position} has no data.text", path)
        doc_id = str(raw.get("id", position))
        seen[doc_id] += 1
        if seen[doc_id] > 1:
            notes.append(f"duplicate document id {doc_id} renamed {doc_id}#{seen[doc_id]}")
            doc_id = f"{doc_id}#{seen[doc_id]}"
        text = raw["data"]["text"]
        results = [r for a in (raw.get("annotations") or [])[:1] for r in a.get("result", [])]
        if not results:
            notes.append(f"document {doc_id} has no annotated sentences: skipped")
            continue
        spans = []
        for index, result in enumerate(results):
            value = result.get("value") if isinstance(result, dict) else None
            if not isinstance(value, dict) or "start" not in value or "end" not in value:
                raise DataError(f"document {doc_id!r}: span {index} has no value.start/value.end", path)
            spans.append((value["start"], value["end"], _label_of(value, doc_id, index, path)))
            expected = value.get("text")
            start, end = value["start"], value["end"]
            if isinstance(start, int) and isinstance(end, int) and expected is not None \
                    and 0 <= start < end <= len(text) and text[start:end] != expected:
                raise DataError(f"document {doc_id!r}: span {index} [{start}, {end}) does not match its "
                                "value.text (offsets into a different text?)", path)
        doc = make_document(doc_id, text, spans, path)
        doc.meta = {"group": (raw.get("meta") or {}).get("group", "")}
        if doc_id != str(raw.get("id", position)):
            doc.meta["original_id"] = str(raw.get("id"))
        docs.append(doc)
    return Documents(docs, notes)


def _sentences_document(doc_id: str, sentences: list[str], labels: list | None, where) -> Document:
    """A Document whose text is its sentences joined by newlines."""
    if labels is not None and len(labels) != len(sentences):
        raise DataError(f"document {doc_id!r}: {len(sentences)} sentences but {len(labels)} labels", where)
    text, spans, offset = [], [], 0
    for index, sentence in enumerate(sentences):
        if not isinstance(sentence, str) or not sentence.strip():
            raise DataError(f"document {doc_id!r}: sentence {index} is empty or not a string", where)
        text.append(sentence)
        spans.append((offset, offset + len(sentence), labels[index] if labels is not None else None))
        offset += len(sentence) + 1
    return make_document(doc_id, "\n".join(text), spans, where)


def load_jsonl(path: Path) -> Documents:
    """JSONL: one {"id", "sentences": [str], "labels": [str]} document per line (labels optional)."""
    docs, ids = [], set()
    for number, obj in read_jsonl(path):
        doc_id = str(obj.get("id", number))
        if doc_id in ids:
            raise DataError(f"duplicate document id {doc_id!r}", path, number)
        ids.add(doc_id)
        sentences = obj.get("sentences")
        if not isinstance(sentences, list):
            raise DataError(f"document {doc_id!r} has no 'sentences' list", path, number)
        labels = obj.get("labels")
        if labels is not None and not isinstance(labels, list):
            raise DataError(f"document {doc_id!r}: 'labels' must be a list", path, number)
        docs.append(_sentences_document(doc_id, sentences, labels, f"{path}:{number}"))
    if not docs:
        raise DataError("no documents", path)
    return Documents(docs)


def load_tsv_folder(folder: Path) -> Documents:
    """A folder of *.tsv files, one document each (id = file stem), 'sentence<TAB>label' per line."""
    files = sorted(Path(folder).glob("*.tsv"))
    if not files:
        raise DataError("no *.tsv files in this folder", folder)
    docs = []
    for path in files:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError as exc:
            raise DataError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", path) from None
        sentences, labels = [], []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            if "\t" not in line:
                raise DataError("expected 'sentence<TAB>label'", path, number)
            sentence, label = line.rsplit("\t", 1)
            if not sentence.strip() or not label.strip():
                raise DataError("empty sentence or label", path, number)
            sentences.append(sentence)
            labels.append(label.strip())
        docs.append(_sentences_document(path.stem, sentences, labels, path))
    return Documents(docs)


def read_documents(path: Path) -> Documents:
    """Documents from a LegalEval .json file, a .jsonl file or a folder of .tsv files."""
    path = Path(path)
    if path.is_dir():
        return load_tsv_folder(path)
    if not path.is_file():
        raise DataError("file not found", path)
    if path.name.endswith((".jsonl", ".jsonl.gz")):
        return load_jsonl(path)
    return load_label_studio(path)


@functools.lru_cache(maxsize=4)
def _train_labels(train_path: Path, mtime: float) -> tuple[str, ...]:
    return document_labels(read_documents(train_path))


def document_labels(docs: list[Document]) -> tuple[str, ...]:
    """The sorted set of gold labels of `docs`."""
    return tuple(sorted({s.label for d in docs for s in d.sentences if s.label is not None}))


def check_labels(docs: list[Document], labels: tuple[str, ...], where) -> None:
    """Every gold label of `docs` must be in `labels` (the training label set)."""
    known = set(labels)
    for doc in docs:
        for sentence in doc.sentences:
            if sentence.label is not None and sentence.label not in known:
                raise DataError(f"document {doc.id!r}, sentence {sentence.id}: label {sentence.label!r} is not "
                                f"in the training label set ({', '.join(labels)})", where)


def load_rr(data_dir: Path | None, split: str, path: Path | None = None, labels=None, **options) -> Documents:
    """Documents of a LegalEval split (or of `path`), carrying the training label set."""
    if options:
        raise DataError(f"unknown rr load option(s): {', '.join(sorted(options))}")
    if path is None:
        if split not in SPLIT_FILES:
            raise DataError(f"rr has no split {split!r}; valid: {', '.join(SPLIT_FILES)}")
        path = Path(data_dir) / FOLDER / SPLIT_FILES[split]
    docs = read_documents(path)
    train_path = Path(data_dir) / FOLDER / SPLIT_FILES["train"] if data_dir else None
    if labels is None and train_path is not None and train_path.is_file() and Path(path) != train_path:
        labels = _train_labels(train_path, train_path.stat().st_mtime)
    labels = tuple(labels) if labels else document_labels(docs)
    check_labels(docs, labels, path)
    for doc in docs:
        doc.labels = labels
    return docs


def rr_references(records: list[Document]) -> list[Reference]:
    """One reference per gold sentence: id '<doc>/<index>', grouped and resampled by document."""
    refs = []
    for doc in records:
        gold = doc.meta.get("gold_sentences", doc.sentences)
        for sentence in gold:
            refs.append(Reference(id=sentence.id, gold=(sentence.label,) if sentence.label else (),
                                  labels=doc.labels, group=doc.id, unit=doc.id))
    return refs
