"""Near-duplicate documents: normalised words, shingles, bottom-k MinHash sketches, containment.

Shingles (version 3): unordered pairs of content words (not a stop word, three letters or more) at most
PAIR_WINDOW content words apart. An edit that deletes every sixth word, inserts filler words, swaps neighbours or
replaces a few common words by synonyms leaves most such pairs in place, where it breaks most word 5-grams (the
shingles of versions 1 and 2, still used to measure models saved by earlier releases: `shingle_hashes`).

A fitted document is kept as a sketch: the sketch size's smallest 32-bit hashes of its shingles, all of them when
it has fewer. The share of a scored document's shingles that a
fitted document also has (its containment in it) is estimated on the scored document's shingles that hash at or
below the fitted sketch's largest hash: a uniform random sample of them, each of which is in the fitted document
exactly when it is in its sketch (bottom-k / threshold sampling; Broder 1997, Cohen and Kaplan 2007). The scored
document is at hand in full, so only the fitted side is sketched, and a lightly edited copy, a copy cut short or
a half of a fitted document all come out near 1.

Why a small module of our own rather than a MinHash library (datasketch): the sketch needs one hash per
shingle, where k-permutation MinHash needs k (CaselawQA's train and val opinions hold some 10 million shingles),
the sketches must compare across processes and releases (a fixed hash: blake2b of each word, mixed by fixed odd
constants, never Python's salted hash()), and this is the whole of it, in numpy.
"""
from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass

import numpy as np

from baselines.runs.confusables import skeleton

SHINGLE_WORDS = 5  # words per shingle of versions 1 and 2
PAIR_WINDOW = 3  # version 3: content words paired with the next three content words
SKETCH_SIZE = 128  # hashes kept per fitted document (version 3; 64 before)
SKETCH_SIZES = {1: 64, 2: 64, 3: 128}
MIN_SAMPLE = 16  # sampled shingles below which a pair is not compared (scored text under ~1/4 of the fitted one)
HASH_BITS = 32
_NON_WORD = re.compile(r"[^\w\s]|_")
_MIX = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93,
                 0xFF51AFD7ED558CCD], dtype=np.uint64)[:SHINGLE_WORDS]  # fixed odd constants, one per position


def normal_words(text: str, version: int = 2) -> list[str]:
    """The words of `text` read as the Latin letters they are drawn like (version 2: confusables.skeleton, so
    Cyrillic or full-width copies read as the text they copy), case folded, punctuation dropped, white space
    collapsed ('Appeal  allowed.' and 'appeal allowed' give the same words); version 1 (models saved by earlier
    releases) without the skeleton."""
    text = str(text)
    if version >= 2:
        text = skeleton(text)
    return _NON_WORD.sub("", text.casefold()).split()


class WordHashes(dict):
    """word -> its 64-bit hash (blake2b), computed on first use; one per call, shared by its documents."""

    def __missing__(self, word: str) -> int:
        self[word] = value = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
        return value


def shingle_hashes(words: list[str], cache: WordHashes | None = None) -> np.ndarray:
    """The HASH_BITS-bit hashes of the SHINGLE_WORDS-word shingles of `words`, in text order, repeats included
    (none for fewer words)."""
    n = len(words) - SHINGLE_WORDS + 1
    if n < 1:
        return np.zeros(0, dtype=np.uint64)
    hashed = np.array(list(map((WordHashes() if cache is None else cache).__getitem__, words)), dtype=np.uint64)
    with np.errstate(over="ignore"):
        mixed = _finalised(sum(hashed[k:k + n] * _MIX[k] for k in range(SHINGLE_WORDS)))
    return mixed >> np.uint64(64 - HASH_BITS)


def pair_hashes(words: list[str], cache: WordHashes | None = None) -> np.ndarray:
    """The HASH_BITS-bit hashes of the unordered pairs of content words at most PAIR_WINDOW content words apart
    (version 3), repeats included (none for fewer than two content words)."""
    content = [word for word in words if len(word) > 2 and word not in _stop_words()]
    if len(content) < 2:
        return np.zeros(0, dtype=np.uint64)
    hashed = np.array(list(map((WordHashes() if cache is None else cache).__getitem__, content)), dtype=np.uint64)
    parts = []
    with np.errstate(over="ignore"):
        for gap in range(1, min(PAIR_WINDOW, len(content) - 1) + 1):
            low, high = np.minimum(hashed[:-gap], hashed[gap:]), np.maximum(hashed[:-gap], hashed[gap:])
            parts.append(_finalised(low * _MIX[0] + high * _MIX[1]))
    return np.concatenate(parts) >> np.uint64(64 - HASH_BITS)


def document_hashes(words: list[str], version: int, cache: WordHashes | None = None) -> np.ndarray:
    """The shingle hashes a document of normalised `words` is compared by, in the scheme of `version`."""
    return pair_hashes(words, cache) if version >= 3 else shingle_hashes(words, cache)


def _finalised(mixed: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: every bit of the input reaches the top bits."""
    mixed ^= mixed >> np.uint64(31)
    mixed *= np.uint64(0xBF58476D1CE4E5B9)
    mixed ^= mixed >> np.uint64(27)
    mixed *= np.uint64(0x94D049BB133111EB)
    mixed ^= mixed >> np.uint64(31)
    return mixed


@functools.cache
def _stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


def sketch_hex(hashes: np.ndarray, size: int = SKETCH_SIZE) -> str:
    """A fitted document's sketch as hex, 8 digits a hash: the `size` smallest distinct of its shingle hashes,
    ascending."""
    head = np.partition(hashes, size)[:size + 1] if len(hashes) > size else hashes
    smallest = np.unique(head)  # the smallest distinct values, up to the partition's pivot
    if len(smallest) < size and len(head) < len(hashes):  # repeated shingles: take them all
        smallest = np.unique(hashes)
    return smallest[:size].astype(">u4").tobytes().hex()


@dataclass
class Sketches:
    """The sketches of the fitted documents, indexed for containment look-ups."""

    values: np.ndarray  # every kept hash, sorted
    owner: np.ndarray  # the fitted document of each kept hash
    limit: np.ndarray  # per fitted document, its largest kept hash (2**32 - 1 when it kept every shingle)

    @classmethod
    def from_hex(cls, sketches: list[str], size: int = SKETCH_SIZE) -> "Sketches":
        """From the hex sketches of `size` hashes (sketch_hex); a shorter one kept its document's every shingle."""
        parts = [np.frombuffer(bytes.fromhex(text), dtype=">u4").astype(np.uint64) for text in sketches]
        full = np.uint64(2 ** HASH_BITS - 1)
        limit = np.array([part[-1] if len(part) >= size else full for part in parts], dtype=np.uint64)
        values = np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)
        owner = np.repeat(np.arange(len(parts)), [len(part) for part in parts])
        order = np.argsort(values, kind="stable")
        return cls(values[order], owner[order], limit)

    def best_containment(self, hashes: np.ndarray) -> tuple[float, int]:
        """(the largest estimated share of a scored document's distinct shingles (`hashes`: shingle_hashes) found
        in one fitted document, that document's index); (0.0, -1) when no fitted document has MIN_SAMPLE of them
        to compare."""
        hashes = np.unique(hashes)
        if not len(self.limit) or not len(hashes):
            return 0.0, -1
        sampled = np.searchsorted(hashes, self.limit, side="right")  # scored hashes at or below each limit
        left = np.searchsorted(self.values, hashes, side="left")
        counts = np.searchsorted(self.values, hashes, side="right") - left
        starts = np.repeat(left, counts)
        offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        found = np.bincount(self.owner[starts + offsets], minlength=len(self.limit))
        share = np.where(sampled >= MIN_SAMPLE, found / np.maximum(sampled, 1), 0.0)
        best = int(np.argmax(share))
        return (float(share[best]), best) if share[best] > 0 else (0.0, -1)
