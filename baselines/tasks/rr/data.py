"""Rhetorical-role documents: LegalEval Label Studio JSON, JSONL of sentence lists, or a folder of TSVs."""
from __future__ import annotations

import functools
import logging
from pathlib import Path

from baselines.core.errors import DataError
from baselines.core.io import read_jsonl, read_text
from baselines.core.paths import MissingData
from baselines.core.records import Reference
from baselines.tasks.rr.documents import (SHOWN_IDS, Document, Documents, Sentence, make_document,  # noqa: F401
                           model_input, shown, skipped_note)

FOLDER = Path("rr") / "legaleval2023"
SPLIT_FILES = {"train": "train.json", "dev": "dev.json", "test": "test_unlabeled.json"}
DOWNLOADED = ("train", "dev")  # the splits `baselines data download rr` fetches
logger = logging.getLogger(__name__)


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
        doc_id = obj.get("id", number)
        if isinstance(doc_id, bool) or not isinstance(doc_id, (int, str)) or doc_id == "":
            raise DataError(f"id: expected a number or a non-empty string, got {shown(doc_id)}", path, number)
        doc_id = str(doc_id)
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
        lines = read_text(path).splitlines()
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
    from baselines.tasks.rr.label_studio import load_label_studio

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
        if split in DOWNLOADED and not path.is_file():
            raise MissingData(f"no LegalEval {split} file: expected {path}", data_dir)
    docs = read_documents(path)
    if docs.skipped and split != "train":  # evaluated documents that cannot be scored: say so, not only in notes
        logger.warning(skipped_note(docs.skipped, len(docs) + len(docs.skipped), path))
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
