"""Plain functions behind `baselines train/eval segmenter`, and choosing a segmenter by name."""
from __future__ import annotations

import random
import time
from pathlib import Path

from baselines.errors import BaselinesError

SEGMENTERS = ("rule", "trained")


def segmenter_folder(models_dir=None) -> Path:
    """models/segmenter/trained under --models-dir / $BASELINES_MODELS / ./models."""
    from baselines.run import models_root

    return models_root(models_dir) / "segmenter" / "trained"


def get_segmenter(name: str | None = None, models_dir=None):
    """'rule', 'trained' (the saved senter), a saved senter folder, or None: trained if saved, else rule."""
    from .rules import RuleSegmenter
    from .trained import TrainedSegmenter

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


def train_segmenter(data_dir=None, *, models_dir=None, epochs: int = 6, sample: float = 1.0, width: int = 64,
                    depth: int = 3, seed: int = 0, val_docs: int = 20, log=print) -> Path:
    """Train the senter on LegalEval train (minus `val_docs` documents kept for epoch selection) and save it."""
    from baselines.data.rr import load_rr
    from baselines.run import peak_memory_mib
    from baselines.tasks import data_root
    from baselines.versions import library_versions

    from .trained import train_senter

    started = time.time()
    docs = list(load_rr(data_root(data_dir), "train"))
    order = list(range(len(docs)))
    random.Random(seed).shuffle(order)
    val = [docs[i] for i in order[:val_docs]]
    train = [docs[i] for i in order[val_docs:]]
    params = {"epochs": epochs, "sample": sample, "width": width, "depth": depth, "seed": seed, "val_docs": val_docs}
    segmenter, info = train_senter(gold_pairs(train), gold_pairs(val), epochs=epochs, sample=sample, width=width,
                                   depth=depth, seed=seed, log=log)
    folder = segmenter_folder(models_dir)
    segmenter.save(folder, {"params": params, **info, "train_documents": len(train),
                            "train_seconds": round(time.time() - started, 1), "peak_memory_mib": peak_memory_mib(),
                            "versions": library_versions()})
    return folder


def evaluate_segmenters(data_dir=None, *, split: str = "dev", names=SEGMENTERS, models_dir=None) -> tuple[dict, Path]:
    """Boundary P/R/F1 of each segmenter on a split's gold sentences; written to models/segmenter/."""
    from baselines.data.rr import load_rr
    from baselines.io import write_json
    from baselines.run import models_root, run_meta
    from baselines.tasks import data_root

    from .spans import cue_share, numbered_paragraphs
    from .trained import evaluate_segmenter

    started = time.time()
    pairs = gold_pairs(load_rr(data_root(data_dir), split))
    results = {}
    for name in names:
        if name == "trained" and not (segmenter_folder(models_dir) / "config.cfg").is_file():
            continue
        begun = time.time()
        results[name] = evaluate_segmenter(get_segmenter(name, models_dir), pairs)
        results[name]["seconds"] = round(time.time() - begun, 2)
    if not results:
        raise BaselinesError("no segmenter to evaluate")
    path = models_root(models_dir) / "segmenter" / f"{split}.results.json"
    write_json(path, {"split": split, "documents": len(pairs), "boundary": results,
                      "gold_boundaries_after_cue": cue_share(pairs),
                      "gold_breaks_at_numbered_lines": numbered_paragraphs(pairs), "meta": run_meta(started)})
    return results, path
