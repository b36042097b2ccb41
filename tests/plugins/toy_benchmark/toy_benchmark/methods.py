"""The toy benchmark's methods, following the estimator contract of baselines.methods.base.Method: hyperparameters
are dataclass fields, `fit` returns the method, fitted state ends in "_", `predict` returns {"id", "prediction"}
rows, and the fitted state is saved as plain files (JSON and .npz, read back without running code)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from baselines.core.errors import BaselinesError
from baselines.core.params import Sklearn
from baselines.methods.base import Method
from baselines.methods.majority import ALL, MajorityFloor
from baselines.methods.plain_state import load_plain, save_plain

from toy_benchmark.data import LABELS, ROLES, RoleSentence


@dataclass
class ToyMajority(MajorityFloor):
    """The floor: every sentence gets the most frequent role of the training sentences (the shared majority
    floor, told what a training outcome is)."""

    def outcomes(self, train: list[RoleSentence]) -> dict[str, list]:
        return {ALL: [LABELS[ROLES.index(item.role)] for item in train if item.role]}

    def predict(self, records: list[RoleSentence]) -> list[dict]:
        return [{"id": item.id, "prediction": self.answer()} for item in records]


@dataclass
class ToyTfidfLogreg(Method):
    """Each sentence on its own: word n-gram TF-IDF, then a multinomial logistic regression over the roles."""

    PARAMETER_RULES = {"C": Sklearn("sklearn.linear_model:LogisticRegression", "C")}  # ngram_max, min_df: SHARED

    ngram_max: int = 2
    min_df: int = 1
    C: float = 10.0

    def fit(self, train: list[RoleSentence], val=None):
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression

        labelled = [item for item in train if item.role]
        if len({item.role for item in labelled}) < 2:
            raise BaselinesError(f"{self.name}: the training sentences need at least two roles")
        self.vectorizer_ = TfidfVectorizer(ngram_range=(1, self.ngram_max), min_df=self.min_df, sublinear_tf=True)
        features = self.vectorizer_.fit_transform([item.text for item in labelled])
        self.classifier_ = LogisticRegression(C=self.C, max_iter=1000)
        self.classifier_.fit(features, np.array([ROLES.index(item.role) for item in labelled]))
        return self

    def predict(self, records: list[RoleSentence]) -> list[dict]:
        """Per item its label and `scores`, the probability of each role (0 for a role never seen in training)."""
        if not records:
            return []
        probabilities = self.classifier_.predict_proba(self.vectorizer_.transform([r.text for r in records]))
        rows = []
        for item, row in zip(records, probabilities):
            scores = np.zeros(len(ROLES))
            scores[self.classifier_.classes_] = row
            rows.append({"id": item.id, "prediction": LABELS[int(scores.argmax())],
                         "scores": [round(float(score), 6) for score in scores]})
        return rows

    def save_state(self, folder: Path) -> None:
        save_plain(folder, "state", {"vectorizer": self.vectorizer_, "classifier": self.classifier_})

    def load_state(self, folder: Path) -> None:
        state = load_plain(folder, "state")
        self.vectorizer_, self.classifier_ = state["vectorizer"], state["classifier"]
