"""Probes of the near-duplicate sketches behind the overlap with training data: normalisation, fixed hashes,
containment of copies, halves, light and heavy edits."""
from __future__ import annotations

import os
import random
import subprocess
import sys

from baselines.runs.near_duplicates import MIN_SAMPLE, SKETCH_SIZE, Sketches, normal_words, shingle_hashes, sketch_hex
from baselines.runs.overlap import unit_digest

WORDS = [f"word{k}" for k in range(3000)]
SENTENCE = "The judgment of the Court was delivered by Khanna, J. — Appeal allowed."


def text(seed: int, length: int = 600) -> list[str]:
    rng = random.Random(seed)
    return [rng.choice(WORDS) for _ in range(length)]


def containment(scored: list[str], *fitted: list[str]) -> float:
    return Sketches.from_hex([sketch_hex(shingle_hashes(words)) for words in fitted]).best_containment(
        shingle_hashes(scored))[0]


def test_normalisation_folds_case_drops_punctuation_and_collapses_white_space():
    assert normal_words("  APPEAL\tallowed . ") == normal_words("Appeal allowed.") == ["appeal", "allowed"]
    assert normal_words("Sec. 47(a) of the B&O Excise_Act") == ["sec", "47a", "of", "the", "bo", "exciseact"]
    assert normal_words("Cour d'appel — arrêt") == ["cour", "dappel", "arrêt"]


def test_hashes_are_fixed_across_processes_and_releases():
    """Sketches and unit digests saved by one process are compared in another: Python's salted hash() would
    break that, so the values are pinned."""
    words = normal_words(SENTENCE)
    pinned = ("1e6e7b233f8da78245ea56a658d551956e488a5a9c1261bcafe72a2abf89354c", "83744ba5c9476c60")
    assert (sketch_hex(shingle_hashes(words)), unit_digest(words)) == pinned
    code = ("from baselines.runs.near_duplicates import *; from baselines.runs.overlap import unit_digest; "
            f"w = normal_words({SENTENCE!r}); print(sketch_hex(shingle_hashes(w)), unit_digest(w))")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": "123"})
    assert tuple(other.stdout.split()) == pinned


def test_a_copy_a_half_and_a_light_edit_are_contained_other_texts_are_not():
    original, others = text(0), [text(seed) for seed in range(1, 20)]
    assert containment(original, *others, original) == 1.0
    assert containment(original[:300], *others, original) >= 0.9  # a half: all its shingles are the original's
    edited = list(original)
    for k in range(0, 600, 120):  # 5 words of 600 changed: 25 of 596 shingles lost
        edited[k] = "changed"
    assert containment(edited, *others, original) >= 0.9
    heavy = [("changed" if k % 10 == 0 else word) for k, word in enumerate(original)]  # 1 word in 10
    assert 0.3 < containment(heavy, *others, original) < 0.9
    assert containment(text(99), *others, original) == 0.0


def test_sketches_keep_the_smallest_hashes_and_short_texts_whole():
    hashes = shingle_hashes(text(0))
    kept = Sketches.from_hex([sketch_hex(hashes)])
    assert len(kept.values) == SKETCH_SIZE and list(kept.values) == sorted(set(hashes.tolist()))[:SKETCH_SIZE]
    short = text(1, length=30)  # 26 shingles: all kept, compared exactly
    assert containment(short[:25], short) == 1.0 and containment(short[:10], short) == 0.0  # 6 < MIN_SAMPLE
    assert MIN_SAMPLE > 6


def test_a_text_far_shorter_than_the_fitted_one_is_not_compared():
    """Too few of its shingles fall under the fitted sketch's largest hash to estimate a share (RR's sentences
    and exact units cover such excerpts)."""
    long_text = text(0, length=6000)
    assert containment(long_text[:200], long_text) == 0.0
    assert containment(long_text[:3000], long_text) == 1.0
