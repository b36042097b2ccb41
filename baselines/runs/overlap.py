"""How much of what a model is scored on it was fit on: normalised units and near-duplicate documents.

The contamination report of every run of a saved model (`meta.train_overlap` of results.json):

- Units, the pieces a figure is made of: an RR document's sentences, the opinion of a CaselawQA example (a record
  with a context), a SCALR question. Each is normalised (read as the Latin letters it is drawn like, case
  folded, punctuation dropped, white space collapsed: near_duplicates.normal_words)
  and hashed (sha256, first UNIT_HEX hex digits); units of fewer than MIN_UNIT_WORDS words are not counted, on
  either side of the fraction: "Appeal allowed.", "JUDGMENT" and numbers repeat across unrelated judgments.
- Near-duplicates, the documents those units make up (an RR document, an opinion, a question), compared with
  each fitted one over word 5-gram shingles (near_duplicates.py): one with NEAR_DUPLICATE of its shingles in a
  single fitted document counts whole, so a lightly edited copy is found where no unit is the same.
- The overlap: the share of the scored units that are a fitted unit, or belong to a near-duplicate document.
  Above OVERLAP_LIMIT, eval and score refuse unless --allow-overlap is given.

Measured on the official splits (the figures that set the limits, normalisation version 2): RR dev against
train, 5.1% of the 2,657 sentences of 5 words or more (85 the same once normalised: template sentences of Odisha
excise-act judgments, "the judgment of the court was delivered by ..."; 2 of the 30 documents near-duplicates,
both templates, 77% and 57% of their shingles in one train document); CaselawQA test against train and val,
1.17% (short per curiam opinions shared with other cases; 2 of 427 opinions near-duplicates); SCALR has no
training split (`--cv` is out of fold), and no question of its 399 has over 43% of its shingles in another.
Lightly edited copies (two words deleted from every sentence: 56% to 91%; Cyrillic or full-width letters: the
same units once normalised) come out at 100%.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterator

from baselines.runs.near_duplicates import (SHINGLE_WORDS, SKETCH_SIZE, Sketches, WordHashes, normal_words,
                                            shingle_hashes, sketch_hex)

OVERLAP_VERSION = 2  # of the normalisation, hashes and sketches below (2: the confusables skeleton)
MEASURED_VERSIONS = (1, 2)  # the versions of saved models that are measured (each with its own normalisation)
MIN_UNIT_WORDS = 5  # shorter units ("Appeal allowed.", "JUDGMENT", "3") are boilerplate, not contamination
OVERLAP_LIMIT = 0.10  # the share of scored units above which a run is refused: 3 times RR dev's natural 3.2%
NEAR_DUPLICATE = 0.4  # share of a scored document's shingles in one fitted document (calibration: the docstring)
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
    concatenated) and one sketch per distinct document (sorted)."""
    units, sketches, cache = set(), set(), WordHashes()
    for unit_words, _ in _documents(records, contents):
        units.update(unit_digest(words) for words in unit_words)
        hashes = shingle_hashes([word for words in unit_words for word in words], cache)
        if len(hashes):
            sketches.add(sketch_hex(hashes))
    return {"overlap_version": OVERLAP_VERSION, "unit_name": contents.unit_name if records else None,
            "units": "".join(sorted(units)), "sketch_size": SKETCH_SIZE, "documents": sorted(sketches)}


def measure(fitted: dict, records, contents) -> dict:
    """The scored records' overlap with a model's fitted units and documents (`fitted`: fit_units' record)."""
    packed = fitted["units"]
    units = {packed[i:i + UNIT_HEX] for i in range(0, len(packed), UNIT_HEX)}
    sketches = Sketches.from_hex(fitted["documents"], fitted.get("sketch_size", SKETCH_SIZE))
    counted = exact = overlapping = near = closest = documents = 0
    cache = WordHashes()
    for unit_words, times in _documents(records, contents, fitted.get("overlap_version", 1)):
        documents += 1
        counted_here = [words for words in unit_words if len(words) >= MIN_UNIT_WORDS]
        same = sum(unit_digest(words) in units for words in counted_here)
        share, _ = sketches.best_containment(shingle_hashes([w for words in unit_words for w in words], cache))
        closest = max(closest, share)
        counted, exact = counted + times * len(counted_here), exact + times * same
        overlapping += times * (len(counted_here) if share >= NEAR_DUPLICATE else same)
        near += share >= NEAR_DUPLICATE
    names = (contents.unit_name, contents.document_name) if documents else (fitted.get("unit_name"), "documents")
    return {"units": names[0], "overlap": round(overlapping / counted, 4) if counted else 0.0,
            "over_limit": counted > 0 and overlapping / counted > OVERLAP_LIMIT, "scored_units": counted,
            "overlapping_units": overlapping, "exact_units": exact, "document_kind": names[1],
            "scored_documents": documents, "near_duplicates": near, "closest_document": round(closest, 4),
            "threshold": OVERLAP_LIMIT, "near_duplicate_threshold": NEAR_DUPLICATE, "min_words": MIN_UNIT_WORDS,
            "shingle_words": SHINGLE_WORDS}


def describe(report: dict) -> str:
    """'3.2% of the 2657 scored sentences of 5 words or more (85 the same once normalised, 0 of the 30 documents
    near-duplicates)' for a measured report."""
    return (f"{100 * report['overlap']:.1f}% of the {report['scored_units']} scored {report['units']} of "
            f"{report['min_words']} words or more ({report['exact_units']} the same once normalised, "
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
