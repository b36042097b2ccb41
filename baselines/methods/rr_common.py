"""Shared pieces of the rhetorical-role taggers: prediction rows, label checks, sentence features."""
from __future__ import annotations

import math
import re

import numpy as np

from ..data.rr import Document, check_labels, document_labels, model_input
from ..errors import BaselinesError

LEXICAL = [  # (name, pattern searched in the lower-cased sentence)
    ("citation", r"\(\d{4}\)|\[\d{4}\]|\bscc\b|\bair\b|\bscr\b|\bv\.|\bvs\.?\b"),
    ("statute", r"\bsection\b|\barticle\b|\bs\. ?\d|\bact\b|\brule\b|\bcode\b"),
    ("petitioner", r"petitioner|appellant|complainant|plaintiff"),
    ("respondent", r"respondent|accused|defendant|state\b"),
    ("counsel", r"counsel|learned|advocate|\bsri\b|\bshri\b"),
    ("argue", r"submit|contend|argu|urged|pleaded"),
    ("hold", r"\bheld\b|\bhold\b|we are of the (?:view|opinion)|in our (?:view|opinion)|we find"),
    ("disposal", r"dismissed|allowed|disposed|set aside|acquitted|convicted|sentence"),
    ("issue", r"\bissue|question|whether|point for"),
    ("first_person", r"\b(?:we|i|us|our)\b"),
    ("quote", r"[\"“”]"),
    ("date", r"\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b|\b(?:19|20)\d{2}\b"),
]
COMPILED = [(name, re.compile(pattern)) for name, pattern in LEXICAL]
FEATURE_NAMES = ["rel_pos", "rel_pos_sq", "first3", "last3", "log_index", "log_from_end", "log_chars", "upper",
                 "digits", "numbered", "ends_colon", "ends_question"] + [name for name, _ in LEXICAL]


def sentence_features(doc: Document) -> np.ndarray:
    """(n_sentences, len(FEATURE_NAMES)) position and surface features of a document's sentences."""
    n = len(doc.sentences)
    rows = np.zeros((n, len(FEATURE_NAMES)), dtype=np.float32)
    for i, sentence in enumerate(doc.sentences):
        text = model_input(sentence.text)
        lower = text.lower()
        letters = list(filter(str.isalpha, text)) or [" "]
        rel = i / (n - 1) if n > 1 else 0.0
        rows[i, :12] = [rel, rel * rel, float(i < 3), float(i >= n - 3), math.log1p(i) / 6,
                        math.log1p(n - 1 - i) / 6, math.log1p(len(text)) / 7,
                        sum(map(str.isupper, letters)) / len(letters),
                        sum(map(str.isdigit, text)) / max(len(text), 1),
                        float(bool(re.match(r"^\(?\d{1,3}[.)]", text))), float(text.endswith(":")),
                        float(text.endswith("?"))]
        rows[i, 12:] = [float(bool(pattern.search(lower))) for _, pattern in COMPILED]
    return rows


def embed_documents(docs: list[Document], encoder: str, max_seq_length: int | None, batch_size: int,
                    progress: bool = True) -> list[np.ndarray]:
    """Per document, a (n_sentences, dim) array of cached, normalised sentence embeddings."""
    from ..encoders import encode

    texts = [model_input(s.text) or "." for doc in docs for s in doc.sentences]
    vectors = encode(texts, encoder, max_seq_length=max_seq_length, batch_size=batch_size, progress=progress)
    out, offset = [], 0
    for doc in docs:
        out.append(vectors[offset:offset + len(doc.sentences)])
        offset += len(doc.sentences)
    return out


def training_labels(train: list[Document], method: str) -> tuple[str, ...]:
    """The label set of the training documents (their carried set when the loader attached one)."""
    labels = document_labels(train)
    if not labels:
        raise BaselinesError(f"{method}: the training documents have no labelled sentences")
    carried = set(train[0].labels) if train and train[0].labels else set()
    return tuple(sorted(set(labels) | carried))


def check_predictable(records: list[Document], labels: tuple[str, ...]) -> None:
    """Gold labels the model has never seen are an error naming the document (not a silent zero)."""
    check_labels(records, labels, "evaluation data")


def rows_for(doc: Document, labels: tuple[str, ...], predicted: list[int], probabilities=None) -> list[dict]:
    """Prediction rows of one document: sentence id, label, span, and per-label probabilities if given."""
    rows = []
    for i, (sentence, k) in enumerate(zip(doc.sentences, predicted)):
        row = {"id": sentence.id, "prediction": labels[k], "doc": doc.id, "start": sentence.start,
               "end": sentence.end}
        if probabilities is not None:
            row["probabilities"] = {label: round(float(p), 4) for label, p in zip(labels, probabilities[i])}
        rows.append(row)
    return rows
