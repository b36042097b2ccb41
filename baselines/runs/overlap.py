"""How much of what a model is scored on it was fit on: normalised units and near-duplicate documents.

The contamination report of every run of a saved model (`meta.train_overlap` of results.json):

- Units, the pieces a figure is made of: an RR document's sentences, the opinion of a CaselawQA example (a record
  with a context), a SCALR question. Each is normalised (read as the Latin letters it is drawn like, case
  folded, punctuation dropped, white space collapsed: near_duplicates.normal_words)
  and hashed (sha256, first UNIT_HEX hex digits); units of fewer than MIN_UNIT_WORDS words are not counted, on
  either side of the fraction: "Appeal allowed.", "JUDGMENT" and numbers repeat across unrelated judgments.
- Near-duplicates, the documents those units make up (an RR document, an opinion, a question) of
  MIN_DOCUMENT_WORDS words or more, compared with each fitted one over pairs of nearby content words
  (near_duplicates.py): one with NEAR_DUPLICATE of its pairs in a single fitted document counts whole, so a
  copy with words deleted, inserted, swapped or replaced is found where no unit is the same. A shorter document
  (a one-line order) is boilerplate: it counts only when it is a fitted unit, as its few words.
- The overlap: the share of the scored units' words that are in a fitted unit, or in a near-duplicate document.
  Above OVERLAP_LIMIT, eval and score refuse unless --allow-overlap is given.

The calibration (tests/overlap_calibration.py, the table of docs/evaluator.md): RR dev against train, 4.9% of
its words (3 of its 30 judgments near-duplicates of the train set's Odisha excise-act templates, 78%, 67% and 37%
of their pairs; the next at 28%); CaselawQA test against train and val, 0.03% (3 short per curiam opinions).
Every single edit of 30 training documents (every sixth word deleted, filler words inserted, neighbours
swapped, the 20 most common words replaced) keeps 41% or more of its pairs and is caught whole.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterator

from baselines.runs.near_duplicates import (PAIR_WINDOW, SKETCH_SIZES, Sketches, WordHashes, document_hashes,
                                            normal_words, sketch_hex)

OVERLAP_VERSION = 3  # of the normalisation, shingles and sketches (2: the confusables skeleton; 3: word pairs)
MEASURED_VERSIONS = (1, 2, 3)  # the versions of saved models that are measured (each with its own normalisation)
MIN_UNIT_WORDS = 5  # shorter units ("Appeal allowed.", "JUDGMENT", "3") are boilerplate, not contamination
MIN_DOCUMENT_WORDS = 50  # a shorter document (a one-line order) counts only when it is the same text, not as a near copy
OVERLAP_LIMIT = 0.10  # the share of scored words above which a run is refused: twice RR dev's natural 4.9%
NEAR_DUPLICATE = {1: 0.4, 2: 0.4, 3: 0.35}  # share of a document's shingles in one fitted document, by version
UNIT_HEX = 16
OVERLAP_MARK = "‡"  # beside the figures of a run written past the limit with --allow-overlap, in every table


def unit_digest(words: list[str]) -> str:
    """The digest a unit is compared by: sha256 of its normalised words, first UNIT_HEX hex digits."""
    return hashlib.sha256(" ".join(words).encode()).hexdigest()[:UNIT_HEX]


def _documents(records, contents, version: int = OVERLAP_VERSION) -> Iterator[tuple[list[list[str]], int]]:
    """Per distinct document (`contents`: the benchmark's Contents), one at a time: its units' normalised words
    and how many scored records share it (an RR document counts once; a CaselawQA opinion, once per example
    about it)."""
    shared: dict[str, int] = {}  # a document -> the scored records about it
    for record in records:
        key = contents.document(record)
        shared[key] = shared.get(key, 0) + 1
    for record in records:
        times = shared.pop(contents.document(record), 0)  # the first record of it; the others find it gone
        if times:
            yield [normal_words(text, version) for text in contents.units(record)], times


def fit_units(records, contents) -> dict:
    """What a model keeps of the items it was fit on for the overlap: the distinct unit digests (sorted,
    concatenated) and one sketch per distinct document of MIN_DOCUMENT_WORDS words or more (sorted)."""
    units, sketches, cache, size = set(), set(), WordHashes(), SKETCH_SIZES[OVERLAP_VERSION]
    for unit_words, _ in _documents(records, contents):
        units.update(unit_digest(words) for words in unit_words)
        words = [word for words in unit_words for word in words]
        hashes = document_hashes(words, OVERLAP_VERSION, cache) if len(words) >= MIN_DOCUMENT_WORDS else []
        if len(hashes):
            sketches.add(sketch_hex(hashes, size))
    return {"overlap_version": OVERLAP_VERSION, "unit_name": contents.unit_name if records else None,
            "units": "".join(sorted(units)), "sketch_size": size, "documents": sorted(sketches)}


def measure(fitted: dict, records, contents) -> dict:
    """The scored records' overlap with a model's fitted units and documents (`fitted`: fit_units' record), in
    words: the share of the scored units' words that are in a unit the model was fit on, or in a document that is
    a near copy of one it was fit on (a document shorter than MIN_DOCUMENT_WORDS only when the same text)."""
    version = fitted.get("overlap_version", 1)
    packed, threshold = fitted["units"], NEAR_DUPLICATE[version]
    units = {packed[i:i + UNIT_HEX] for i in range(0, len(packed), UNIT_HEX)}
    sketches = Sketches.from_hex(fitted["documents"], fitted.get("sketch_size", SKETCH_SIZES[1]))
    tally = dict.fromkeys(("units", "words", "exact", "exact_words", "overlapping", "near", "documents"), 0)
    closest, cache = 0.0, WordHashes()
    for unit_words, times in _documents(records, contents, version):
        words = [word for words in unit_words for word in words]
        share = sketches.best_containment(document_hashes(words, version, cache))[0] \
            if len(words) >= MIN_DOCUMENT_WORDS else 0.0
        counted = [unit for unit in unit_words if len(unit) >= MIN_UNIT_WORDS]
        same = [unit for unit in counted if unit_digest(unit) in units]
        size = sum(map(len, counted))
        tally["documents"] += 1
        tally["near"] += share >= threshold
        tally["units"] += times * len(counted)
        tally["words"] += times * size
        tally["exact"] += times * len(same)
        tally["exact_words"] += times * sum(map(len, same))
        tally["overlapping"] += times * (size if share >= threshold else sum(map(len, same)))
        closest = max(closest, share)
    return _report(tally, closest, threshold, version, contents, fitted)


def _report(tally: dict, closest: float, threshold: float, version: int, contents, fitted: dict) -> dict:
    names = (contents.unit_name, contents.document_name) if tally["documents"] else (fitted.get("unit_name"),
                                                                                   "documents")
    share = tally["overlapping"] / tally["words"] if tally["words"] else 0.0
    return {"units": names[0], "overlap": round(share, 4), "over_limit": share > OVERLAP_LIMIT,
            "scored_units": tally["units"], "scored_words": tally["words"], "overlapping_words": tally["overlapping"],
            "exact_units": tally["exact"], "exact_words": tally["exact_words"], "document_kind": names[1],
            "scored_documents": tally["documents"], "near_duplicates": tally["near"],
            "closest_document": round(closest, 4), "threshold": OVERLAP_LIMIT, "near_duplicate_threshold": threshold,
            "min_words": MIN_UNIT_WORDS, "min_document_words": MIN_DOCUMENT_WORDS, "overlap_version": version,
            "shingles": f"word pairs within {PAIR_WINDOW} content words" if version >= 3 else "word 5-grams"}


def describe(report: dict) -> str:
    """'3.2% of the words of the 2657 scored sentences of 5 words or more (85 the same once normalised, 2 of the 30
    documents near-duplicates)' for a measured report."""
    return (f"{100 * report['overlap']:.1f}% of the words of the {report['scored_units']} scored {report['units']} "
            f"of {report['min_words']} words or more ({report['exact_units']} the same once normalised, "
            f"{report['near_duplicates']} of the {report['scored_documents']} {report['document_kind']} "
            "near-duplicates)")


def overlap_note(report: dict | None) -> str | None:
    """For a run written past the limit with --allow-overlap, what its figures must be read with; else None."""
    if not isinstance(report, dict) or report.get("allowed") is not True:
        return None
    share = report.get("overlap")
    if isinstance(share, (int, float)) and not isinstance(share, bool):
        return f"overlap with the model's training data: {100 * share:.1f}% of {report.get('units', 'units')}"
    return f"overlap with the model's training data: it {report.get('allowed_past', 'was fit on scored items')}"
