"""Choosing a segmenter by name, and where `baselines train segmenter` keeps the trained one."""
from __future__ import annotations

from pathlib import Path

from baselines.core.errors import BaselinesError


def segmenter_folder(models_dir=None) -> Path:
    """models/segmenter/trained under --models-dir / $BASELINES_MODELS / ./models."""
    from baselines.core.paths import models_root

    return models_root(models_dir) / "segmenter" / "trained"


def segmenter_in_effect(name: str | None, models_dir=None) -> tuple[str, Path | None]:
    """What `name` stands for, without loading it: ("rule", None), or ("trained" or the folder, the senter's
    folder); none given is the senter `baselines train segmenter` saved, else rule (as get_segmenter chooses)."""
    folder = segmenter_folder(models_dir)
    if name in (None, "", "auto"):
        name = "trained" if (folder / "config.cfg").is_file() else "rule"
    if name == "rule":
        return "rule", None
    return name, folder if name == "trained" else Path(name)


def get_segmenter(name: str | None = None, models_dir=None):
    """'rule', 'trained' (the saved senter), a saved senter folder, or None: trained if saved, else rule."""
    from segmentation.rules import RuleSegmenter
    from segmentation.trained import TrainedSegmenter

    name, path = segmenter_in_effect(name, models_dir)
    if path is None:
        return RuleSegmenter()
    if not (path / "config.cfg").is_file():
        hint = "run `baselines train segmenter` first" if name == "trained" else "not a saved spaCy pipeline"
        raise BaselinesError(f"no trained segmenter in {path}: {hint} (or use --segmenter rule)")
    return TrainedSegmenter.load(path)
