"""Per-sentence rhetorical-role baselines: the majority floor and TF-IDF + logistic regression."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from baselines.tasks.rr.data import Document, model_input
from baselines.core import progress
from baselines.core.errors import BaselinesError
from baselines.core.params import Sklearn
from baselines.methods.base import Method
from baselines.methods.blocks import split_rows
from baselines.methods.majority import ALL, MajorityFloor
from baselines.methods.plain_state import load_state_file, save_plain
from baselines.tasks.rr.common import check_predictable, label_index, prediction_rows, training_labels


def labelled_sentences(train: list[Document]) -> tuple[list[str], list[str]]:
    """(texts, labels) of every labelled training sentence."""
    pairs = [(model_input(s.text), s.label) for d in train for s in d.sentences if s.label is not None]
    return [t for t, _ in pairs], [label for _, label in pairs]


@dataclass
class RRMajority(MajorityFloor):
    """Every sentence gets the most frequent training label (ties: the first label in sorted order)."""

    def outcomes(self, train: list[Document]) -> dict[str, list]:
        return {ALL: [s.label for d in train for s in d.sentences if s.label is not None]}

    def fit(self, train: list[Document], val=None):
        self.labels_ = training_labels(train, self.name)
        return super().fit(train, val)

    def predict(self, records: list[Document], progress: bool = True) -> list[dict]:
        check_predictable(records, self.labels_)
        k = self.labels_.index(self.answer())
        return prediction_rows(records, self.labels_, [[k] * len(doc.sentences) for doc in records])

    def state(self) -> dict:
        return {**super().state(), "labels": list(self.labels_)}

    def set_state(self, state: dict) -> None:
        super().set_state(state)
        self.labels_ = tuple(state["labels"])


@dataclass
class RRTfidfLogreg(Method):
    """Each sentence on its own: word n-gram TF-IDF, multinomial logistic regression (no context, no CRF)."""

    PARAMETER_RULES = {  # see baselines.core.params: what TfidfVectorizer and LogisticRegression allow
        "max_features": Sklearn("sklearn.feature_extraction.text:TfidfVectorizer", "max_features"),
        **{name: Sklearn("sklearn.linear_model:LogisticRegression", given)
           for name, given in (("C", "C"), ("class_weight", "class_weight"), ("max_iter", "max_iter"),
                               ("seed", "random_state"))},
    }

    ngram_max: int = 2
    min_df: int = 2
    max_features: int | None = 200000
    sublinear_tf: bool = True
    C: float = 4.0
    class_weight: str | None = None  # None or 'balanced'
    max_iter: int = 2000
    seed: int = 0

    def fit(self, train: list[Document], val=None):
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression

        texts, labels = labelled_sentences(train)
        if not texts:
            raise BaselinesError(f"{self.name}: no labelled training sentences")
        self.labels_ = training_labels(train, self.name)
        self.vectorizer_ = TfidfVectorizer(ngram_range=(1, self.ngram_max), min_df=self.min_df,
                                           max_features=self.max_features, sublinear_tf=self.sublinear_tf)
        with progress.stage(f"counting the words of {len(texts):,} sentences"):
            matrix = self.vectorizer_.fit_transform(texts)  # (sentences, vocab) sparse
        index = label_index(self.labels_)
        self.model_ = LogisticRegression(C=self.C, class_weight=self.class_weight, max_iter=self.max_iter,
                                         random_state=self.seed)
        with progress.stage(f"fitting the logistic regression ({len(self.labels_)} roles, {matrix.shape[1]:,} "
                            "features)"):
            self.model_.fit(matrix, np.array([index[label] for label in labels]))
        return self

    def predict(self, records: list[Document], progress: bool = True) -> list[dict]:
        check_predictable(records, self.labels_)
        texts = [model_input(s.text) for d in records for s in d.sentences]
        if not texts:
            return []
        known = self.model_.predict_proba(self.vectorizer_.transform(texts))  # (sentences, trained classes)
        probabilities = np.zeros((len(texts), len(self.labels_)))
        probabilities[:, self.model_.classes_] = known
        blocks = split_rows(probabilities, [len(doc.sentences) for doc in records])
        return prediction_rows(records, self.labels_, [block.argmax(axis=1).tolist() for block in blocks], blocks)

    def save_state(self, folder: Path) -> None:
        save_plain(folder, "model", {"vectorizer": self.vectorizer_, "model": self.model_})
        (folder / "labels.json").write_text(json.dumps(list(self.labels_)))

    def load_state(self, folder: Path) -> None:
        state = load_state_file(folder, "model", legacy="model.joblib")
        self.vectorizer_, self.model_ = state["vectorizer"], state["model"]
        self.labels_ = tuple(json.loads((folder / "labels.json").read_text()))
