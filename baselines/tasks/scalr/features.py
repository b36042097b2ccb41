"""Per-(question, choice) similarity signals for SCALR and their within-question normalisation.

Signals come in groups so that ablations can switch them on and off:
  lexical    every TF-IDF-based signal: cosines with the question under several weightings (IDF
             fit on the training questions' texts), a cosine whose IDF comes from the question's
             own six texts, BM25, and the mean TF-IDF cosine of a choice to the other choices
  semantic   sentence-encoder cosines of each choice with the question and with its last line
  centrality mean encoder cosine of a choice to the other choices of the same question
  length     the choice's length in words
Every signal is turned into within-question features (z-score, rank, is-highest, is-lowest),
so a model sees how a choice compares with its four rivals, never a raw corpus-level value.
"""
from __future__ import annotations

import numpy as np

from baselines.core.errors import BaselinesError
from baselines.core.records import ChoiceItem
from baselines.methods.blocks import apply_flat, split_rows

GROUPS = ("lexical", "semantic", "centrality", "length")
TFIDF_VARIANTS = {
    "tfidf": {},
    "tfidf_sublinear_bigram": {"sublinear_tf": True, "ngram_range": (1, 2)},
    "tfidf_stop": {"stop_words": "english"},
    "tfidf_binary": {"binary": True},
}
PER_SIGNAL = ("z", "rank", "top", "bottom")


def check_groups(groups) -> list[str]:
    """The feature groups, validated (unknown names are errors)."""
    groups = list(groups)
    unknown = sorted(set(groups) - set(GROUPS))
    if unknown or not groups:
        raise BaselinesError(f"features: unknown or empty group list {groups}; valid: {', '.join(GROUPS)}")
    return groups


def item_texts(items: list[ChoiceItem]) -> list[str]:
    """Every question and choice text of the items, in order."""
    return [text for item in items for text in [item.question, *item.choices]]


def question_tail(question: str) -> str:
    """The question's last line (usually the question presented itself, after its background)."""
    tail = question.strip().rsplit("\n", 1)[-1].strip()
    return tail or question


class LexicalStats:
    """Corpus statistics (TF-IDF vocabularies and IDF, BM25 IDF) fit on training texts only."""

    def __init__(self, k1: float = 1.5, b: float = 0.75):
        self.k1, self.b = k1, b
        self.vectorizers: dict = {}
        self.idf_array = np.zeros(0)
        self.avg_len = 1.0

    def fit(self, texts: list[str]) -> "LexicalStats":
        from sklearn.feature_extraction.text import TfidfVectorizer

        for name, options in TFIDF_VARIANTS.items():
            self.vectorizers[name] = TfidfVectorizer(**options).fit(texts)
        counts = self._counts(texts)
        df = np.bincount(counts.indices, minlength=counts.shape[1])
        n = counts.shape[0]
        self.idf_array = np.log(1 + (n - df + 0.5) / (df + 0.5))
        self.avg_len = float(counts.sum() / max(n, 1)) or 1.0
        return self

    def signals(self, items: list[ChoiceItem]) -> list[dict[str, np.ndarray]]:
        """Lexical similarity of each choice to its question and to the other choices, per item."""
        texts = item_texts(items)
        question_rows, choice_rows = _pairs(items)
        columns = {name: _row_dots(vectorizer.transform(texts), question_rows, choice_rows)
                   for name, vectorizer in self.vectorizers.items()}
        columns["bm25"] = self._bm25(self._counts(texts), question_rows, choice_rows)
        widths = [len(item.choices) for item in items]
        per_item = {name: split_rows(values, widths) for name, values in columns.items()}
        centrality = self.tfidf_centrality(items)
        out = []
        for k, (item, central) in enumerate(zip(items, centrality)):
            signals = {name: blocks[k] for name, blocks in per_item.items()}
            signals["tfidf_centrality"] = central
            signals["tfidf_own_idf"] = _own_idf_cosine([item.question, *item.choices])
            out.append(signals)
        return out

    def tfidf_centrality(self, items: list[ChoiceItem]) -> list[np.ndarray]:
        """Mean TF-IDF cosine of each choice to the other choices of its item."""
        matrix = self.vectorizers["tfidf"].transform([c for item in items for c in item.choices])
        left, right, start = [], [], 0
        for item in items:
            width = len(item.choices)
            left += [start + i for i in range(width) for j in range(width) if i != j]
            right += [start + j for i in range(width) for j in range(width) if i != j]
            start += width
        totals = np.bincount(left, weights=_row_dots(matrix, left, right), minlength=start) if left else np.zeros(start)
        widths = [len(item.choices) for item in items]
        return [block / max(width - 1, 1) for block, width in zip(split_rows(totals, widths), widths)]

    def _counts(self, texts: list[str]):
        """Term counts over the fitted vocabulary (sparse, one row per text)."""
        from sklearn.feature_extraction.text import CountVectorizer

        vocabulary = self.vectorizers["tfidf"].vocabulary_
        return CountVectorizer(vocabulary=vocabulary).transform(texts).tocsr()

    def _bm25(self, counts, question_rows, choice_rows) -> np.ndarray:
        """Okapi BM25 of each choice for its question's terms (each term once)."""
        docs = counts[choice_rows]
        lengths = np.asarray(docs.sum(1), dtype=np.float64).ravel()
        matched = docs.multiply(counts[question_rows] > 0).tocsr()  # counts of the question's terms
        norm = self.k1 * (1 - self.b + self.b * lengths / self.avg_len)
        rows = np.repeat(np.arange(matched.shape[0]), np.diff(matched.indptr))
        tf = matched.data.astype(np.float64)
        weights = self.idf_array[matched.indices] * tf * (self.k1 + 1) / (tf + norm[rows])
        return np.bincount(rows, weights=weights, minlength=matched.shape[0])

    def state(self) -> dict:
        return {"k1": self.k1, "b": self.b, "vectorizers": self.vectorizers, "bm25_idf": self.idf_array,
                "avg_len": self.avg_len}

    @classmethod
    def from_state(cls, state: dict) -> "LexicalStats":
        stats = cls(state["k1"], state["b"])
        stats.vectorizers, stats.idf_array, stats.avg_len = state["vectorizers"], state["bm25_idf"], state["avg_len"]
        return stats


def _own_idf_cosine(texts: list[str]) -> np.ndarray:
    """TF-IDF cosine with IDF from the question's own texts only (transductive on that one item)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    try:
        matrix = TfidfVectorizer().fit_transform(texts)
    except ValueError:  # no tokens at all
        return np.zeros(len(texts) - 1)
    return (matrix[1:] @ matrix[0].T).toarray().ravel()


def _pairs(items: list[ChoiceItem]) -> tuple[np.ndarray, np.ndarray]:
    """Row of each choice's question and row of the choice, in item_texts order."""
    question_rows, choice_rows, row = [], [], 0
    for item in items:
        question_rows += [row] * len(item.choices)
        choice_rows += range(row + 1, row + 1 + len(item.choices))
        row += 1 + len(item.choices)
    return np.array(question_rows, dtype=np.int64), np.array(choice_rows, dtype=np.int64)


def _row_dots(matrix, left, right) -> np.ndarray:
    """Dot products of sparse rows left[i] and right[i] (cosines for L2-normalised rows)."""
    matrix = matrix.tocsr()
    return np.asarray(matrix[left].multiply(matrix[right]).sum(1), dtype=np.float64).ravel()


def _mean_to_others(similarity: np.ndarray) -> np.ndarray:
    n = len(similarity)
    if n < 2:
        return np.zeros(n)
    return (similarity.sum(1) - np.diag(similarity)) / (n - 1)


def semantic_signals(items: list[ChoiceItem], encoders: list[str], similarity: bool,
                     centrality: bool, backend: str = "torch") -> list[dict[str, np.ndarray]]:
    """Encoder cosines per item: choice vs question and vs its last line; choice vs the other choices."""
    from baselines.encoders.sentence import encode

    out: list[dict[str, np.ndarray]] = [{} for _ in items]
    for k, encoder in enumerate(encoders):
        def embed(texts: list[str], encoder=encoder) -> np.ndarray:
            return encode(texts, encoder, progress=False, backend=backend)

        choices = apply_flat(embed, [item.choices for item in items])
        if similarity:
            questions = embed([item.question for item in items])
            tails = embed([question_tail(item.question) for item in items])
        for n, (block, signals) in enumerate(zip(choices, out)):
            if similarity:
                signals[f"enc{k}_question"] = block @ questions[n]
                signals[f"enc{k}_tail"] = block @ tails[n]
            if centrality:
                signals[f"enc{k}_centrality"] = _mean_to_others(block @ block.T)
    return out


def raw_signals(items: list[ChoiceItem], stats: LexicalStats, groups: list[str],
                encoders: list[str], backend: str = "torch") -> list[dict[str, np.ndarray]]:
    """Every selected signal for every item: a list of {signal name: array over the item's choices}."""
    blank = [{} for _ in items]
    semantic, central = "semantic" in groups, "centrality" in groups
    encoded = semantic_signals(items, encoders, semantic, central, backend) if semantic or central else blank
    lexical = stats.signals(items) if "lexical" in groups else blank
    out = []
    for item, enc, lex in zip(items, encoded, lexical):
        signals = {**lex, **enc}
        if "length" in groups:
            signals["log_words"] = np.log1p([len(c.split()) for c in item.choices])
        out.append(signals)
    return out


def within_question(values: np.ndarray) -> np.ndarray:
    """(choices, 4) features of one signal: z-score, rank in [0, 1] (1 = highest), is-highest, is-lowest."""
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    spread = values.std()
    z = (values - values.mean()) / spread if spread > 1e-12 else np.zeros(n)
    order = np.argsort(np.argsort(values, kind="stable"), kind="stable")  # 0 = lowest, ties by position
    rank = order / max(n - 1, 1)
    top = (values >= values.max() - 1e-12).astype(np.float64)
    bottom = (values <= values.min() + 1e-12).astype(np.float64)
    return np.column_stack([z, rank, top, bottom])


def feature_matrix(signals: list[dict[str, np.ndarray]]) -> tuple[list[np.ndarray], list[str]]:
    """Per item a (choices, features) matrix built from every signal, and the feature names."""
    names = sorted(signals[0]) if signals else []
    blocks = [np.hstack([within_question(item[name]) for name in names]) for item in signals]
    return blocks, [f"{name}:{kind}" for name in names for kind in PER_SIGNAL]
