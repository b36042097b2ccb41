"""Rhetorical-role documents as records: sentences with character spans, and the checks that build them."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from baselines.core.errors import DataError

SHOWN_IDS = 5  # ids named in a loader note before "..."



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
    """A list of documents with loader notes (renamed duplicate ids, the count of skipped empty documents)
    and the ids of the documents skipped for having no annotated sentences."""

    notes: list[str]
    skipped: list[str]

    def __init__(self, docs=(), notes=None, skipped=None):
        super().__init__(docs)
        self.notes = list(notes or [])
        self.skipped = list(skipped or [])


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


def shown(value) -> str:
    """A malformed value for an error message: its JSON type and (the start of) its text."""
    return f"{type(value).__name__} {value!r}"[:80]


def skipped_note(skipped: list[str], total: int, path) -> str:
    """The loader note on documents left out for having no annotated sentences (count and first ids)."""
    listed = ", ".join(skipped[:SHOWN_IDS]) + (", ..." if len(skipped) > SHOWN_IDS else "")
    return (f"{len(skipped)} of {total} documents in {Path(path).name} have no annotated sentences and were left "
            f"out (not scored): {listed}")


def sentence_texts(doc: Document) -> list[str]:
    """A document's units for the overlap check: its sentences' texts."""
    return [sentence.text for sentence in doc.sentences]


def document_key(doc: Document) -> str:
    return doc.id


def document_identities(docs: list[Document]) -> list[str]:
    """Per document, the text that makes it the document it is: its sentences, white space collapsed."""
    return [" ".join(" ".join(sentence.text.split()) for sentence in doc.sentences) for doc in docs]
