"""Similarity choosers for multiple-choice items: pick the choice most similar to the question."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer  # here, not in predict: importing it is loading

from baselines.core.errors import BaselinesError
from baselines.core.params import OneOf
from baselines.encoders.onnx_backend import BACKENDS, DEFAULT_BACKEND
from baselines.core.records import ChoiceItem
from baselines.methods.base import Method
from baselines.methods.blocks import apply_flat


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

    needs_fit = False
    PARAMETER_RULES = {"pick": OneOf(("most", "least"))}  # see baselines.core.params

    lowercase: bool = True
    sublinear_tf: bool = False
    ngram_max: int = 1
    stop_words: str | None = None
    pick: str = "most"  # "most" similar choice, or "least" (probes how SCALR's distractors were chosen)

    def predict(self, records: list[ChoiceItem]) -> list[dict]:
        if self.pick not in ("most", "least"):
            raise BaselinesError(f"tfidf: pick must be 'most' or 'least', got {self.pick!r}")

        vectorizer = TfidfVectorizer(lowercase=self.lowercase, sublinear_tf=self.sublinear_tf,
                                     ngram_range=(1, self.ngram_max), stop_words=self.stop_words)
        # per item a (1 + choices, vocab) block of L2-normalised rows: the question, then its choices
        blocks = apply_flat(vectorizer.fit_transform, [[item.question, *item.choices] for item in records])
        scores = []
        for block in blocks:
            similarity = (block[1:] @ block[0].T).toarray().ravel()  # (choices,)
            scores.append(similarity if self.pick == "most" else -similarity)
        return choose(records, scores)


@dataclass
class EmbedChooser(Method):
    """Cosine between sentence-transformer embeddings of the question and each choice."""

    needs_fit = False
    PARAMETER_RULES = {"encode_backend": OneOf(BACKENDS)}

    encoder: str = "minilm"  # local folder, 'minilm' (packaged all-MiniLM-L6-v2), or a hub name (torch backend)
    max_seq_length: int | None = None  # None: the encoder's own limit
    encode_backend: str = DEFAULT_BACKEND  # auto (int8 where faithful) | onnx-int8 | onnx | torch
    batch_size: int = 32

    def predict(self, records: list[ChoiceItem]) -> list[dict]:
        from baselines.encoders.sentence import encode

        def embed(texts: list[str]):
            return encode(texts, self.encoder, self.max_seq_length, self.batch_size, backend=self.encode_backend)

        questions = embed([item.question for item in records])  # (items, dim)
        choices = apply_flat(embed, [item.choices for item in records])  # per item (choices, dim)
        return choose(records, [block @ question for block, question in zip(choices, questions)])
