"""Gold sentence spans of documents, and what they allow a segmenter (the task's diagnostics)."""
from __future__ import annotations


def gold_pairs(docs) -> list[tuple[str, list[tuple[int, int]]]]:
    """(text, gold sentence spans) of each document."""
    return [(d.text, [(s.start, s.end) for s in d.sentences]) for d in docs]


def boundary_diagnostics(docs) -> dict:
    """What the gold spans allow: boundaries after a cue, and where breaks fall at numbered paragraph lines."""
    from segmentation.spans import cue_share, numbered_paragraphs

    pairs = gold_pairs(docs)
    return {"gold_boundaries_after_cue": cue_share(pairs), "gold_breaks_at_numbered_lines": numbered_paragraphs(pairs)}
