"""Sparse TF-IDF features of opinions: the whole text plus its opening and closing passages as separate views.

Hashed n-grams keep memory bounded whatever the vocabulary; opinions are featurised in chunks and each
distinct opinion only once (rows are cached on disk by content digest and feature configuration).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass

import numpy as np
import scipy.sparse as sp

from baselines.core import cache_use
from baselines.core.params import Each, Range, Sklearn
from baselines.core.paths import cache_root
from baselines.methods.plain_state import load_plain, save_plain

CHUNK = 256  # opinions hashed at a time
TFIDF_ROWS = "TF-IDF rows"  # what cache_use counts: opinions whose rows were read back or computed


@dataclass
class TfidfSpec:
    """What the features are: hashed word n-grams of three views of the opinion, each L2-normalised and weighted."""

    PARAMETER_RULES = {"n_features": Sklearn("sklearn.feature_extraction.text:HashingVectorizer", "n_features"),
                       "view_weights": Each(Range(0), exactly=3)}  # see baselines.core.params

    ngram_max: int = 2  # word 1..ngram_max-grams
    n_features: int = 2 ** 20  # hashed columns per view
    min_df: int = 2  # columns kept: in at least this many training opinions
    head_chars: int = 4000  # the opening view: the first head_chars characters
    tail_chars: int = 4000  # the closing view: the last tail_chars characters
    view_weights: tuple = (1.0, 0.6, 0.6)  # whole, opening, closing

    def fingerprint(self) -> str:
        """A digest of the spec, keying the on-disk cache (the weights keep the key they had from the start)."""
        described = asdict(self)
        described["weights"] = described.pop("view_weights")
        return hashlib.sha1(json.dumps(described, sort_keys=True, default=list).encode()).hexdigest()[:12]


def views(text: str, spec: TfidfSpec) -> tuple[str, str, str]:
    """The whole opinion, its first head_chars and its last tail_chars characters (0: an empty view, as for the head)."""
    return text, text[: spec.head_chars], text[len(text) - spec.tail_chars:] if spec.tail_chars else ""


def _hash_chunk(texts: list[str], spec: TfidfSpec) -> sp.csr_matrix:
    from sklearn.feature_extraction.text import HashingVectorizer

    hasher = HashingVectorizer(n_features=spec.n_features, ngram_range=(1, spec.ngram_max), alternate_sign=False,
                               norm=None, dtype=np.float32)
    parts = [views(t, spec) for t in texts]
    return sp.hstack([hasher.transform([p[v] for p in parts]) for v in range(3)], format="csr")


def hashed_counts(texts: list[str], spec: TfidfSpec, n_jobs: int = 1) -> sp.csr_matrix:
    """(len(texts), 3 * n_features) term counts of the three views, hashed chunk by chunk."""
    from joblib import Parallel, delayed

    if not texts:
        return sp.csr_matrix((0, 3 * spec.n_features), dtype=np.float32)
    chunks = [texts[start:start + CHUNK] for start in range(0, len(texts), CHUNK)]
    if n_jobs == 1 or len(chunks) == 1:
        blocks = [_hash_chunk(chunk, spec) for chunk in chunks]
    else:
        blocks = Parallel(n_jobs=n_jobs)(delayed(_hash_chunk)(chunk, spec) for chunk in chunks)
    return sp.vstack(blocks, format="csr")


class TfidfFeatures:
    """Fitted on the training opinions: which hashed columns to keep (document frequency) and their idf."""

    def __init__(self, spec: TfidfSpec, n_jobs: int = 1):
        self.spec = spec
        self.n_jobs = n_jobs
        self.columns_: np.ndarray | None = None
        self.idf_: np.ndarray | None = None

    def fit_transform(self, texts: list[str]) -> sp.csr_matrix:
        """Fit the kept columns and idf on `texts` and return their features."""
        counts = hashed_counts(texts, self.spec, self.n_jobs)
        df = np.bincount(counts.indices, minlength=counts.shape[1])
        self.columns_ = np.flatnonzero(df >= self.spec.min_df).astype(np.int64)
        n = counts.shape[0]
        self.idf_ = (np.log((1 + n) / (1 + df[self.columns_])) + 1).astype(np.float32)
        return self._weighted(counts)

    def transform(self, texts: list[str]) -> sp.csr_matrix:
        return self._weighted(hashed_counts(texts, self.spec, self.n_jobs))

    def _weighted(self, counts: sp.csr_matrix) -> sp.csr_matrix:
        """Sublinear tf x idf per kept column, each view L2-normalised and weighted."""
        from sklearn.preprocessing import normalize

        counts = counts[:, self.columns_]
        counts.data = 1 + np.log(counts.data)
        counts = counts.multiply(self.idf_).tocsr()
        view_of = np.minimum(self.columns_ // self.spec.n_features, 2)
        out = []
        for v, weight in enumerate(self.spec.view_weights):
            block = normalize(counts[:, np.flatnonzero(view_of == v)]) * weight
            out.append(block)
        return sp.hstack(out, format="csr", dtype=np.float32)

    def state(self) -> dict:
        return {"spec": asdict(self.spec), "columns": self.columns_, "idf": self.idf_}

    @classmethod
    def from_state(cls, state: dict) -> "TfidfFeatures":
        spec = dict(state["spec"])
        earlier = spec.pop("weights", None)  # the field's name in models saved by earlier versions
        spec["view_weights"] = tuple(spec.get("view_weights", earlier))
        features = cls(TfidfSpec(**spec))
        features.columns_, features.idf_ = state["columns"], state["idf"]
        return features

    def key(self) -> str:
        digest = hashlib.sha1(self.columns_.tobytes() + self.idf_.tobytes()).hexdigest()[:12]
        return f"{self.spec.fingerprint()}-{digest}"


def cached_fit(texts: list[str], keys: list[str], spec: TfidfSpec, use_cache: bool = True,
               n_jobs: int = 1) -> tuple[TfidfFeatures, sp.csr_matrix]:
    """TfidfFeatures fitted on `texts` and their rows, reloaded from the cache for the same opinions (plain files:
    fit-<key>.json/.npz; the fit-<key>.joblib pickles of earlier releases are never read)."""
    folder = cache_root() / "caselawqa-tfidf"
    name = hashlib.sha1(("|".join(keys) + spec.fingerprint()).encode()).hexdigest()[:16]
    if use_cache and (folder / f"fit-{name}.json").is_file():
        features = TfidfFeatures.from_state(load_plain(folder, f"fit-{name}"))
        features.n_jobs = n_jobs
        return features, cached_transform(features, texts, keys)
    features = TfidfFeatures(spec, n_jobs)
    matrix = features.fit_transform(texts)
    if use_cache:
        save_plain(folder, f"fit-{name}", features.state())
        _save_rows(matrix, folder / f"rows-{_rows_name(features, keys)}.npz")
    return features, matrix


def cached_transform(features: TfidfFeatures, texts: list[str], keys: list[str], use_cache: bool = True) -> sp.csr_matrix:
    """features.transform(texts), reloaded from the cache for the same opinions and fitted features."""
    if not use_cache:
        cache_use.note(TFIDF_ROWS, 0, len(texts))
        return features.transform(texts)
    path = cache_root() / "caselawqa-tfidf" / f"rows-{_rows_name(features, keys)}.npz"
    if path.is_file():
        cache_use.note(TFIDF_ROWS, len(keys), 0)
        return sp.load_npz(path).tocsr()
    cache_use.note(TFIDF_ROWS, 0, len(texts))
    matrix = features.transform(texts)
    _save_rows(matrix, path)
    return matrix


def _rows_name(features: TfidfFeatures, keys: list[str]) -> str:
    return hashlib.sha1(("|".join(keys) + features.key()).encode()).hexdigest()[:16]


def _save_rows(matrix: sp.csr_matrix, path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + ".tmp.npz")
    sp.save_npz(tmp, matrix)
    tmp.replace(path)
