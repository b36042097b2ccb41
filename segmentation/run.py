"""Choosing a segmenter by name, gold spans of documents, and what the gold spans allow a segmenter."""
from __future__ import annotations

from pathlib import Path

from baselines.core.errors import BaselinesError

SEGMENTERS = ("rule", "trained")


def segmenter_folder(models_dir=None) -> Path:
    """models/segmenter/trained under --models-dir / $BASELINES_MODELS / ./models."""
    from baselines.core.paths import models_root

    return models_root(models_dir) / "segmenter" / "trained"


def get_segmenter(name: str | None = None, models_dir=None):
    """'rule', 'trained' (the saved senter), a saved senter folder, or None: trained if saved, else rule."""
    from segmentation.rules import RuleSegmenter
    from segmentation.trained import TrainedSegmenter

    folder = segmenter_folder(models_dir)
    if name in (None, "", "auto"):
        name = "trained" if (folder / "config.cfg").is_file() else "rule"
    if name == "rule":
        return RuleSegmenter()
    path = folder if name == "trained" else Path(name)
    if not (path / "config.cfg").is_file():
        hint = "run `baselines train segmenter` first" if name == "trained" else "not a saved spaCy pipeline"
        raise BaselinesError(f"no trained segmenter in {path}: {hint} (or use --segmenter rule)")
    return TrainedSegmenter.load(path)


def gold_pairs(docs) -> list[tuple[str, list[tuple[int, int]]]]:
    """(text, gold sentence spans) of each document."""
    return [(d.text, [(s.start, s.end) for s in d.sentences]) for d in docs]


def boundary_diagnostics(docs) -> dict:
    """What the gold spans allow: boundaries after a cue, and where breaks fall at numbered paragraph lines."""
    from segmentation.spans import cue_share, numbered_paragraphs

    pairs = gold_pairs(docs)
    return {"gold_boundaries_after_cue": cue_share(pairs), "gold_breaks_at_numbered_lines": numbered_paragraphs(pairs)}
