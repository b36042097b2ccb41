"""Shared pieces of the rhetorical-role taggers: the label set, label checks and prediction rows."""
from __future__ import annotations

from ..data.rr import Document, check_labels, document_labels
from ..errors import BaselinesError


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


def split_indexes(n: int, fraction: float, seed: int) -> tuple[list[int], list[int]]:
    """(fitting, validation) indexes of n training documents: a seeded `fraction` held out (none below 4)."""
    import numpy as np

    order = np.random.default_rng(seed).permutation(n).tolist()
    n_val = max(1, int(round(n * fraction))) if n >= 4 and fraction > 0 else 0
    return order[n_val:], order[:n_val]


def split_documents(docs: list[Document], fraction: float, seed: int) -> tuple[list[Document], list[Document]]:
    """(fitting, validation) documents, as split_indexes chooses them."""
    fit, val = split_indexes(len(docs), fraction, seed)
    return [docs[i] for i in fit], [docs[i] for i in val]
