"""Sentence features of the BiLSTM-CRF tagger: a frozen sentence embedding, position and surface cues,
and optionally the judgment's layout around the sentence (structure.py) and a TF-IDF vector reduced by SVD
(fit on the training documents, explicitly)."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from baselines.tasks.rr.data import Document, model_input
from baselines.core.params import OneOf
from baselines.encoders.onnx_backend import BACKENDS, DEFAULT_BACKEND
from baselines.methods.blocks import apply_flat
from baselines.tasks.rr.structure import STRUCTURE_NAMES, structure_features

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


@dataclass
class FeatureSettings:
    """What describes a sentence (parameters of the tagger)."""

    PARAMETER_RULES = {"encode_backend": OneOf(BACKENDS)}  # see baselines.core.params; tfidf_dims: at least 0

    encoder: str = "minilm"  # local folder, 'minilm' (packaged all-MiniLM-L6-v2), or a hub name (torch backend)
    max_seq_length: int | None = None  # None: the encoder's own limit
    encode_backend: str = DEFAULT_BACKEND  # auto (int8 where faithful) | onnx-int8 | onnx | torch
    encode_batch_size: int = 64
    surface_features: bool = True  # relative position, length, casing and a few legal cue words
    tfidf_dims: int = 0  # > 0: also a TF-IDF n-gram vector reduced to this many SVD dimensions (fit on train)
    neighbour_context: bool = False  # also embed each sentence between its neighbours ('prev [SEP] it [SEP] next')
    structure_features: bool = False  # paragraphs, headings and quotations around the sentence (structure.py)


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


def handmade_features(doc: Document, settings) -> np.ndarray:
    """(n_sentences, k) the surface and structure features `settings` switch on, in that order (k may be 0)."""
    blocks = [np.zeros((len(doc.sentences), 0), dtype=np.float32)]
    if getattr(settings, "surface_features", True):
        blocks.append(sentence_features(doc))
    if getattr(settings, "structure_features", False):
        blocks.append(structure_features(doc))
    return np.hstack(blocks)


def sentence_texts(doc: Document) -> list[str]:
    """What the encoder reads for each sentence of `doc`."""
    return [model_input(s.text) or "." for s in doc.sentences]


def context_texts(doc: Document) -> list[str]:
    """Each sentence between its neighbours, 'prev [SEP] sentence [SEP] next' (an empty side at the edges)."""
    texts = sentence_texts(doc)
    return [f"{texts[i - 1] if i else ''} [SEP] {text} [SEP] {texts[i + 1] if i + 1 < len(texts) else ''}".strip()
            for i, text in enumerate(texts)]


def embed_documents(docs: list[Document], encoder: str, max_seq_length: int | None, batch_size: int,
                    progress: bool = True, backend: str = DEFAULT_BACKEND, texts_of=sentence_texts) -> list[np.ndarray]:
    """Per document, a (n_sentences, dim) array of cached, normalised embeddings of texts_of(document)."""
    from baselines.encoders.sentence import encode

    def embed(texts: list[str]) -> np.ndarray:
        return encode(texts, encoder, max_seq_length=max_seq_length, batch_size=batch_size, progress=progress,
                      backend=backend)

    return apply_flat(embed, [texts_of(doc) for doc in docs])


class TfidfProjection:
    """Word 1-2-gram TF-IDF of each sentence reduced by SVD to unit-length vectors; fit on training documents."""

    def __init__(self, vectorizer, svd):
        self.vectorizer, self.svd = vectorizer, svd

    @classmethod
    def fit(cls, docs: list[Document], dims: int, seed: int) -> "TfidfProjection":
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfVectorizer

        vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=2, max_features=100000, sublinear_tf=True)
        svd = TruncatedSVD(dims, random_state=seed)
        svd.fit(vectorizer.fit_transform([model_input(s.text) for d in docs for s in d.sentences]))
        return cls(vectorizer, svd)

    def transform(self, docs: list[Document]) -> list[np.ndarray]:
        """Per document (n_sentences, dims)."""
        return apply_flat(self._reduce, [[model_input(s.text) for s in d.sentences] for d in docs])

    def _reduce(self, texts: list[str]) -> np.ndarray:
        from sklearn.preprocessing import normalize

        if not texts:
            return np.zeros((0, self.svd.n_components))
        return normalize(self.svd.transform(self.vectorizer.transform(texts)))

    def state(self) -> tuple:
        """(vectorizer, svd): what tfidf.json/.npz hold (tfidf.joblib in folders of earlier releases)."""
        return self.vectorizer, self.svd

    @classmethod
    def from_state(cls, state: tuple) -> "TfidfProjection":
        return cls(*state)


def feature_names(settings) -> list[str]:
    """Names of the column blocks of a tagger's input, in order (for the model folder's state.json)."""
    names = ["embedding"]
    if getattr(settings, "neighbour_context", False):
        names.append("context_embedding")
    if getattr(settings, "surface_features", True):
        names += FEATURE_NAMES
    if getattr(settings, "structure_features", False):
        names += STRUCTURE_NAMES
    if getattr(settings, "tfidf_dims", 0) > 0:
        names.append(f"tfidf_svd[{settings.tfidf_dims}]")
    return names


def document_features(docs: list[Document], settings: FeatureSettings, projection: TfidfProjection | None,
                      progress: bool = True) -> list[np.ndarray]:
    """Per document a (n_sentences, embedding dim [+ surface] [+ tfidf]) float32 matrix."""
    embed_args = (settings.encoder, settings.max_seq_length, settings.encode_batch_size, progress,
                  settings.encode_backend)
    parts = [embed_documents(docs, *embed_args)]
    if settings.neighbour_context:
        parts.append(embed_documents(docs, *embed_args, texts_of=context_texts))
    parts.append([handmade_features(d, settings) for d in docs])
    if projection is not None:
        parts.append(projection.transform(docs))
    return [np.hstack(blocks).astype(np.float32) for blocks in zip(*parts)]
