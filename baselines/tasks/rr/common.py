"""Shared pieces of the rhetorical-role methods: the training documents and label set, label ids, label
checks, documents cut into pieces, validation splits, prediction rows and the taggers' model files."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from baselines.tasks.rr.data import Document, check_labels, document_labels
from baselines.core.errors import BaselinesError


def labelled_documents(train: list[Document], method: str) -> list[Document]:
    """The training documents whose every sentence is labelled (a tagger learns from whole documents)."""
    docs = [d for d in train if d.sentences and all(s.label is not None for s in d.sentences)]
    if not docs:
        raise BaselinesError(f"{method}: no labelled training documents")
    return docs


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


def label_index(labels: tuple[str, ...]) -> dict[str, int]:
    """Each label's id: its position in the label set."""
    return {label: k for k, label in enumerate(labels)}


def label_ids(docs: list[Document], labels: tuple[str, ...]) -> list[np.ndarray]:
    """Per document, the (n_sentences,) int64 ids of its gold labels (-1 for an unlabelled sentence)."""
    index = label_index(labels)
    return [np.array([index.get(s.label, -1) for s in d.sentences], dtype=np.int64) for d in docs]


def piece_bounds(lengths: list[int], length: int) -> list[tuple[int, int, int]]:
    """(document, begin, end) of each document's consecutive pieces of at most `length` sentences, in order."""
    return [(i, begin, min(begin + length, n)) for i, n in enumerate(lengths) for begin in range(0, n, length)]


def cut_sequences(xs: list[np.ndarray], ys: list[np.ndarray], length: int) -> tuple[list, list]:
    """(feature pieces, label pieces): documents longer than `length` sentences cut into consecutive pieces."""
    bounds = piece_bounds([len(x) for x in xs], max(1, length))
    return [xs[i][begin:end] for i, begin, end in bounds], [ys[i][begin:end] for i, begin, end in bounds]


def prediction_rows(docs: list[Document], labels: tuple[str, ...], predicted: list, probabilities=None) -> list[dict]:
    """Rows of every sentence, document by document in order: predicted[i] holds document i's label ids,
    probabilities[i] (when given) its (n_sentences, n_labels) label probabilities."""
    probabilities = [None] * len(docs) if probabilities is None else probabilities
    return [row for doc, ids, probs in zip(docs, predicted, probabilities)
            for row in _document_rows(doc, labels, ids, probs)]


def decoded_rows(docs: list[Document], labels: tuple[str, ...], decoded: list[tuple]) -> list[dict]:
    """Prediction rows from a tagger's decoded documents: (label ids, marginal probabilities) per document."""
    return prediction_rows(docs, labels, [path.tolist() for path, _ in decoded], [marginal for _, marginal in decoded])


def _document_rows(doc: Document, labels: tuple[str, ...], predicted: list[int], probabilities=None) -> list[dict]:
    """Prediction rows of one document: sentence id, label, span, and per-label probabilities if given."""
    rows = []
    for i, (sentence, k) in enumerate(zip(doc.sentences, predicted)):
        row = {"id": sentence.id, "prediction": labels[k], "doc": doc.id, "start": sentence.start,
               "end": sentence.end}
        if probabilities is not None:
            row["probabilities"] = {label: round(float(p), 4) for label, p in zip(labels, probabilities[i])}
        rows.append(row)
    return rows


def check_refit(method, val) -> None:
    """Refuse refit=true before any work when no validation documents would choose the epochs it repeats."""
    if getattr(method, "refit", False) and not val and method.val_fraction <= 0:
        raise BaselinesError(f"{method.name}: refit=true needs validation documents to choose the epochs it "
                             "repeats; set val_fraction above 0")


def split_indexes(n: int, fraction: float, seed: int) -> tuple[list[int], list[int]]:
    """(fitting, validation) indexes of n training documents: a seeded `fraction` held out (none below 4)."""
    order = np.random.default_rng(seed).permutation(n).tolist()
    n_val = max(1, int(round(n * fraction))) if n >= 4 and fraction > 0 else 0
    return order[n_val:], order[:n_val]


def split_documents(docs: list[Document], fraction: float, seed: int) -> tuple[list[Document], list[Document]]:
    """(fitting, validation) documents, as split_indexes chooses them."""
    fit, val = split_indexes(len(docs), fraction, seed)
    return [docs[i] for i in fit], [docs[i] for i in val]


def save_tagger_files(method, folder: Path) -> None:
    """model.pt (the network's state_dict), labels.json and state.json of a fitted BiLSTM-CRF tagger."""
    import torch

    from baselines.tasks.rr.features import feature_names

    torch.save(method.model_.state_dict(), folder / "model.pt")
    (folder / "labels.json").write_text(json.dumps(list(method.labels_)))
    (folder / "state.json").write_text(json.dumps({"n_features": method.n_features_,
                                                   "feature_names": feature_names(method),
                                                   "history": method.history_, "train": method.train_info_}, indent=1))


def load_tagger_files(method, folder: Path) -> dict:
    """Set labels_, n_features_, history_ and train_info_ from the files save_tagger_files wrote; returns the
    network's saved state_dict."""
    import torch

    method.labels_ = tuple(json.loads((folder / "labels.json").read_text()))
    state = json.loads((folder / "state.json").read_text())
    method.n_features_, method.history_, method.train_info_ = state["n_features"], state["history"], state["train"]
    return torch.load(folder / "model.pt", map_location="cpu", weights_only=True)


def check_objective_weights(method) -> None:
    """Refuse negative auxiliary-objective weights before any encoding or training starts."""
    from baselines.tasks.rr.objectives import checked_weight

    checked_weight("shift_weight", method.shift_weight)
    checked_weight("rare_weight", method.rare_weight)
