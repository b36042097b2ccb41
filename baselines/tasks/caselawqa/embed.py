"""CaselawQA `embed-linear`: sentence embeddings of a fixed budget of opinion chunks, pooled -> per-task heads.

Budget: each opinion is cut into chunks of `chunk_words` words; the first `head_chunks` (where the
facts and question are set out) and the last `tail_chunks` (where the disposition is stated) are
encoded, each group mean-pooled, and the two means concatenated. Chunk embeddings are cached on disk
(baselines.encoders.sentence), so each chunk is encoded once across runs and tasks. The default budget (2 + 2
chunks of 96 words, 128 tokens) is 4 short chunks per opinion, about 11,800 for all 2,952 opinions.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from baselines.core.errors import BaselinesError
from baselines.core.params import OneOf, Range
from baselines.encoders.onnx_backend import BACKENDS, DEFAULT_BACKEND
from baselines.core.records import ChoiceItem
from baselines.methods.blocks import apply_flat
from baselines.tasks.caselawqa.common import unique_opinions
from baselines.tasks.caselawqa.recognise import recognise
from baselines.tasks.caselawqa.linear import PerTaskHeads, fit_heads, heads_summary, predict_heads
from baselines.methods.plain_state import load_state_file, save_plain

BATCH = 64  # opinions encoded at a time: memory holds one batch of chunk vectors


def opinion_chunks(text: str, chunk_words: int, head_chunks: int, tail_chunks: int) -> tuple[list[str], list[str]]:
    """(opening chunks, closing chunks) of one opinion; a short opinion may share chunks between both."""
    words = text.split()
    chunks = [" ".join(words[i:i + chunk_words]) for i in range(0, len(words), chunk_words)] or [""]
    return chunks[:head_chunks], chunks[-tail_chunks:] if tail_chunks else []


def pooled_embeddings(texts: list[str], method) -> np.ndarray:
    """(len(texts), 2 * dim) opening/closing mean embeddings, encoded batch by batch through the cache."""
    from baselines.encoders.sentence import EncodingCache

    cache = EncodingCache(method.encoder, method.max_seq_length, backend=method.encode_backend)

    def encode(chunks: list[str]) -> np.ndarray:
        return cache.encode(chunks, batch_size=method.batch_size, progress=False)

    out = None
    for start in range(0, len(texts), BATCH):
        parts = [opinion_chunks(t, method.chunk_words, method.head_chunks, method.tail_chunks)
                 for t in texts[start:start + BATCH]]
        blocks = apply_flat(encode, [head + tail for head, tail in parts])  # per opinion (chunks, dim)
        dim = blocks[0].shape[1]
        if out is None:
            out = np.zeros((len(texts), 2 * dim), dtype=np.float32)
        for row, ((head, tail), block) in enumerate(zip(parts, blocks), start=start):
            out[row, :dim] = block[:len(head)].mean(axis=0)
            if tail:
                out[row, dim:] = block[len(head):].mean(axis=0)
    return out if out is not None else np.zeros((0, 0), dtype=np.float32)


@dataclass
class CaselawEmbedLinear(PerTaskHeads):
    """Pooled MiniLM embeddings of the opening and closing chunks of each opinion -> per-task linear heads.

    k_features keeps its default 0 (every column): embeddings are signed, and chi2 selection needs non-negative values."""

    PARAMETER_RULES = {"encode_backend": OneOf(BACKENDS), "head_chunks": Range(1)}  # see baselines.core.params

    encoder: str | None = None  # None: the packaged all-MiniLM-L6-v2; or a local folder (hub name: torch backend)
    max_seq_length: int = 128
    encode_backend: str = DEFAULT_BACKEND  # auto (int8 where faithful) | onnx-int8 | onnx | torch
    chunk_words: int = 96
    head_chunks: int = 2
    tail_chunks: int = 2
    batch_size: int = 32

    def fit(self, train: list[ChoiceItem], val: list[ChoiceItem] | None = None):
        if not train:
            raise BaselinesError(f"{self.name}: no training examples")
        self.roles_ = recognise(train)
        _, texts, rows = unique_opinions(train)
        X_val = rows_val = None
        if val:
            _, val_texts, rows_val = unique_opinions(val)
            X_val = pooled_embeddings(val_texts, self)
        self.heads_ = fit_heads(self, train, val, pooled_embeddings(texts, self), rows, X_val, rows_val)
        return self

    def predict(self, records: list[ChoiceItem]) -> list[dict]:
        _, texts, rows = unique_opinions(records)
        return predict_heads(self.heads_, records, pooled_embeddings(texts, self), rows)

    def save_state(self, folder: Path) -> None:
        import json

        save_plain(folder, "state", {"heads": self.heads_})
        (folder / "heads.json").write_text(json.dumps(heads_summary(self.heads_), indent=1))

    def load_state(self, folder: Path) -> None:
        self.heads_ = load_state_file(folder, "state", legacy="state.joblib")["heads"]
