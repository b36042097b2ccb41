"""The segmenter's items: RR's judgments, read and fetched by RR's own loader and download (a dependency between
benchmarks listed in the import contracts); their gold sentence spans, and what they allow a segmenter (the
task's diagnostics)."""
from __future__ import annotations


def load_judgments(data_dir, split: str, path=None, **options):
    """The LegalEval judgments of `split` (or of the file `path`), with their gold sentences."""
    from baselines.tasks.rr.data import load_rr

    return load_rr(data_dir, split, path, **options)


def download_judgments(dest):
    """Fetch the LegalEval files, as `baselines data download rr` does."""
    from baselines.tasks.rr.download import download_rr

    return download_rr(dest)


def gold_pairs(docs) -> list[tuple[str, list[tuple[int, int]]]]:
    """(text, gold sentence spans) of each document."""
    return [(d.text, [(s.start, s.end) for s in d.sentences]) for d in docs]


def boundary_diagnostics(docs) -> dict:
    """What the gold spans allow: boundaries after a cue, and where breaks fall at numbered paragraph lines."""
    from segmentation.spans import cue_share, numbered_paragraphs

    pairs = gold_pairs(docs)
    return {"gold_boundaries_after_cue": cue_share(pairs), "gold_breaks_at_numbered_lines": numbered_paragraphs(pairs)}
