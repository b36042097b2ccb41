"""Sentence encoders (sentence-transformers, or ONNX Runtime: onnx_encoder) with an on-disk cache keyed by encoder,
backend and text."""
from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from baselines.core import cache_use, progress
from baselines.core.errors import BaselinesError
from baselines.encoders.names import DEFAULT_ENCODER, encoder_key, resolve_encoder  # noqa: F401  (re-exported)
from baselines.encoders.onnx_backend import DEFAULT_BACKEND
from baselines.core.paths import cache_root  # noqa: F401  (re-exported: the one place that reads $BASELINES_CACHE)

logger = logging.getLogger(__name__)
_MODELS: dict = {}


def load_encoder(name: str | None, max_seq_length: int | None = None):
    """A SentenceTransformer on CPU; a name that cannot be loaded offline says how to give a local path."""
    resolved = resolve_encoder(name)
    key = (resolved, max_seq_length)
    if key not in _MODELS:
        from sentence_transformers import SentenceTransformer

        progress.library_bars_off()
        try:
            model = SentenceTransformer(resolved, device="cpu")
        except Exception as exc:  # hub errors, missing files, bad folders
            raise BaselinesError(f"cannot load encoder {name!r} ({type(exc).__name__}: {str(exc)[:200]}); "
                                 "give a local model folder, e.g. one unpacked by get-mpnet") from None
        if max_seq_length:
            model.max_seq_length = max_seq_length
        _MODELS[key] = model
    return _MODELS[key]


# The cache folder's suffix per backend. int8 vectors are computed one text at a time (see OnnxEncoder.encode),
# so the batch-dependent ones that earlier releases cached under "-onnx-int8" are never read.
CACHE_SUFFIXES = {"torch": "", "onnx-int8": "-onnx-int8-alone"}


def _checksum(vectors: np.ndarray) -> str:
    """sha256 of a shard's float32 vectors, as stored."""
    return hashlib.sha256(np.ascontiguousarray(vectors, dtype=np.float32).tobytes()).hexdigest()


def _text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class EncodingCache:
    """Normalised embeddings on disk: one folder per encoder, appended in shards (.npy + .keys)."""

    def __init__(self, encoder: str | None, max_seq_length: int | None = None, root: Path | None = None,
                 backend: str = DEFAULT_BACKEND, read: bool = True):
        from baselines.encoders.onnx_backend import resolve_backend

        self.encoder = encoder
        self.max_seq_length = max_seq_length
        self.backend = resolve_backend([encoder], backend)
        key = encoder_key(encoder, max_seq_length) + CACHE_SUFFIXES.get(self.backend, f"-{self.backend}")
        self.folder = (root or cache_root()) / "encodings" / key
        self.index: dict[str, tuple[int, int]] = {}
        self.shards: list[np.ndarray] = []
        if read:
            self._load()

    def _load(self) -> None:
        if not self.folder.is_dir():
            return
        for keys_file in sorted(self.folder.glob("*.keys")):
            vectors_file = keys_file.with_suffix(".npy")
            if not vectors_file.is_file():
                continue
            keys = keys_file.read_text().split()
            vectors = self._checked_shard(vectors_file, keys)
            if vectors is None:
                continue  # damaged or interrupted: those texts are encoded again
            shard = len(self.shards)
            self.shards.append(vectors)
            self.index.update({key: (shard, row) for row, key in enumerate(keys)})

    def _checked_shard(self, vectors_file: Path, keys: list[str]) -> np.ndarray | None:
        """The shard's vectors when they are whole: readable, one per key, matching their checksum, unit length.
        A damaged shard is moved aside (*.damaged) with a warning, so its texts are encoded again."""
        problem = None
        try:
            vectors = np.load(vectors_file, mmap_mode="r")
        except (ValueError, OSError, EOFError) as exc:
            vectors, problem = None, f"unreadable ({exc})"
        if vectors is not None and (vectors.ndim != 2 or len(vectors) != len(keys)):
            return None  # an interrupted write (keys and vectors disagree): nothing to report
        sum_file = vectors_file.with_suffix(".sha256")
        if problem is None and sum_file.is_file() and sum_file.read_text().strip() != _checksum(vectors):
            problem = "its checksum does not match"
        if problem is None and len(vectors) and not np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3):
            problem = "it holds vectors that are not unit length"
        if problem is None:
            return vectors
        logger.warning("encoding cache shard %s is damaged (%s): its %d texts will be encoded again",
                       vectors_file, problem, len(keys))
        for part in (vectors_file, vectors_file.with_suffix(".keys"), sum_file):
            if part.exists():
                os.replace(part, part.with_name(part.name + ".damaged"))
        return None

    def encode(self, texts: list[str], batch_size: int = 64, progress: bool = True) -> np.ndarray:
        """(len(texts), dim) float32 unit vectors, encoding only texts not cached yet."""
        keys = [_text_key(text) for text in texts]
        todo = list(dict.fromkeys(k for k in keys if k not in self.index))
        cache_use.note_keys("sentence encodings", keys, todo)
        if todo:
            first = {k: t for k, t in zip(keys, texts)}
            vectors = self._encode_new([first[k] for k in todo], batch_size, progress)
            self._append(todo, vectors.astype(np.float32))
        if not keys:
            return np.zeros((0, self.dimension()), dtype=np.float32)
        return np.stack([self.shards[s][r] for s, r in (self.index[k] for k in keys)]).astype(np.float32)

    def _encode_new(self, texts: list[str], batch_size: int, progress: bool) -> np.ndarray:
        """Unit vectors of `texts` from this cache's backend (nothing cached)."""
        if self.backend != "torch":
            from baselines.encoders.onnx_backend import load_onnx_encoder

            return load_onnx_encoder(self.encoder, self.backend, self.max_seq_length).encode(texts, batch_size,
                                                                                             progress)
        from baselines.core.progress import shown

        model = load_encoder(self.encoder, self.max_seq_length)
        return model.encode(texts, batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True,
                            show_progress_bar=progress and shown())  # silenced by --quiet too

    def _append(self, keys: list[str], vectors: np.ndarray) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        stem = self.folder / f"{len(list(self.folder.glob('*.npy'))):05d}-{os.getpid()}"
        np.save(f"{stem}.npy.tmp.npy", vectors)
        os.replace(f"{stem}.npy.tmp.npy", f"{stem}.npy")
        Path(f"{stem}.sha256.tmp").write_text(_checksum(vectors) + "\n")
        os.replace(f"{stem}.sha256.tmp", f"{stem}.sha256")
        Path(f"{stem}.keys.tmp").write_text("\n".join(keys) + "\n")
        os.replace(f"{stem}.keys.tmp", f"{stem}.keys")
        shard = len(self.shards)
        self.shards.append(vectors)
        self.index.update({key: (shard, row) for row, key in enumerate(keys)})
        (self.folder / "encoder.json").write_text(json.dumps({"encoder": self.encoder, "backend": self.backend,
                                                              "max_seq_length": self.max_seq_length}))

    def dimension(self) -> int:
        if self.shards:
            return int(self.shards[0].shape[1])
        if self.backend != "torch":
            return int(self._encode_new(["."], 1, False).shape[1])
        return int(load_encoder(self.encoder, self.max_seq_length).get_sentence_embedding_dimension())


_CACHE_ON = contextvars.ContextVar("baselines_encoding_cache_on", default=True)


@contextlib.contextmanager
def uncached() -> Iterator[None]:
    """Inside (in this thread), `encode` neither reads nor writes the on-disk cache: for labelling a corpus,
    whose texts are seen once and whose cache, read whole at every batch, would grow with the corpus."""
    token = _CACHE_ON.set(False)
    try:
        yield
    finally:
        _CACHE_ON.reset(token)


def encode(texts: list[str], encoder: str | None = None, max_seq_length: int | None = None,
           batch_size: int = 64, progress: bool = True, backend: str = DEFAULT_BACKEND) -> np.ndarray:
    """Cached, normalised sentence embeddings of `texts` with `encoder` (default: packaged MiniLM),
    computed by `backend`: auto, torch (sentence-transformers), onnx or onnx-int8 (baselines.encoders.onnx_backend).
    Inside `uncached()`, computed afresh and not kept."""
    if not _CACHE_ON.get():
        fresh = EncodingCache(encoder, max_seq_length, backend=backend, read=False)
        if not texts:
            return np.zeros((0, fresh.dimension()), dtype=np.float32)
        cache_use.note("sentence encodings", 0, len(texts))
        return fresh._encode_new(list(texts), batch_size, progress).astype(np.float32)
    return EncodingCache(encoder, max_seq_length, backend=backend).encode(texts, batch_size=batch_size,
                                                                          progress=progress)
