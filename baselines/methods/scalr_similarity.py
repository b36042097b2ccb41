"""Similarity choosers for multiple-choice items: pick the choice most similar to the question."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import BaselinesError
from ..records import ChoiceItem
from .base import Method


def choose(items: list[ChoiceItem], scores: list[np.ndarray]) -> list[dict]:
    """Prediction rows: the highest-scoring choice (first on ties) with every choice's score."""
    rows = []
    for item, row in zip(items, scores):
        rows.append({"id": item.id, "prediction": item.labels[int(np.argmax(row))],
                     "scores": [round(float(s), 6) for s in row]})
    return rows


@dataclass
class TfidfChooser(Method):
    """Cosine between TF-IDF vectors of the question and each choice (IDF fit on the items' own texts)."""

    task = "scalr"
    name = "tfidf"
    needs_fit = False

    lowercase: bool = True
    sublinear_tf: bool = False
    ngram_max: int = 1
    stop_words: str | None = None
    pick: str = "most"  # "most" similar choice, or "least" (probes how SCALR's distractors were chosen)

    def predict(self, records: list[ChoiceItem]) -> list[dict]:
        from sklearn.feature_extraction.text import TfidfVectorizer

        if self.pick not in ("most", "least"):
            raise BaselinesError(f"tfidf: pick must be 'most' or 'least', got {self.pick!r}")

        vectorizer = TfidfVectorizer(lowercase=self.lowercase, sublinear_tf=self.sublinear_tf,
                                     ngram_range=(1, self.ngram_max), stop_words=self.stop_words)
        texts = [text for item in records for text in [item.question, *item.choices]]
        matrix = vectorizer.fit_transform(texts)  # (items * (1 + choices), vocab), rows L2-normalised
        scores, row = [], 0
        for item in records:
            width = 1 + len(item.choices)
            block = matrix[row:row + width]
            similarity = (block[1:] @ block[0].T).toarray().ravel()  # (choices,)
            scores.append(similarity if self.pick == "most" else -similarity)
            row += width
        return choose(records, scores)


@dataclass
class EmbedChooser(Method):
    """Cosine between sentence-transformer embeddings of the question and each choice."""

    task = "scalr"
    name = "embed"
    needs_fit = False

    encoder: str = "minilm"  # a local folder, a hub name, or 'minilm' (packaged all-MiniLM-L6-v2)
    max_seq_length: int | None = None  # None: the encoder's own limit
    batch_size: int = 32

    def predict(self, records: list[ChoiceItem]) -> list[dict]:
        from ..encoders import encode

        questions = encode([item.question for item in records], self.encoder, self.max_seq_length, self.batch_size)
        choices = encode([c for item in records for c in item.choices], self.encoder, self.max_seq_length,
                         self.batch_size)  # (sum of choices, dim)
        scores, row = [], 0
        for item, question in zip(records, questions):
            width = len(item.choices)
            scores.append(choices[row:row + width] @ question)  # (choices,)
            row += width
        return choose(records, scores)
