"""The sentence segmenters as methods of the `segmenter` task: raw judgment text in, character spans out."""
from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from pathlib import Path

from baselines.core import progress
from baselines.core.params import Range
from baselines.methods.base import Method

log = logging.getLogger(__name__)


def span_rows(docs, segmenter) -> list[dict]:
    """{"id": document id, "spans": [[start, end], ...]} of each document, cut by `segmenter`."""
    return [{"id": doc.id, "spans": [list(span) for span in segmenter.segment(doc.text)]} for doc in docs]


@dataclass
class RuleSegmenterMethod(Method):
    """spaCy's blank English tokenizer plus legal rules (abbreviations, paragraph numbers); nothing to fit."""

    needs_fit = False

    def predict(self, records, progress: bool = True) -> list[dict]:
        from segmentation.rules import RuleSegmenter

        return span_rows(records, RuleSegmenter())


@dataclass
class TrainedSegmenterMethod(Method):
    """A spaCy `senter` learned from the gold train sentences around every candidate boundary.

    `val_docs` train documents (chosen with `seed`) are held out to pick the best epoch."""

    PARAMETER_RULES = {"epochs": Range(1), "sample": Range(0, 1, above=True),  # see baselines.core.params
                       "width": Range(1), "depth": Range(1)}

    epochs: int = 6
    sample: float = 1.0
    width: int = 64
    depth: int = 3
    seed: int = 0
    val_docs: int = 20

    def fit(self, train, val=None):
        from baselines.tasks.segmenter.gold import gold_pairs
        from segmentation.trained import train_senter

        docs = list(train)
        order = list(range(len(docs)))
        random.Random(self.seed).shuffle(order)
        held_out = [docs[i] for i in order[:self.val_docs]]
        kept = [docs[i] for i in order[self.val_docs:]]
        self.segmenter_, self.training_ = train_senter(
            gold_pairs(kept), gold_pairs(held_out), epochs=self.epochs, sample=self.sample, width=self.width,
            depth=self.depth, seed=self.seed, log=log.info, bar=progress.bar)
        self.training_["train_documents"] = len(kept)
        return self

    def predict(self, records, progress: bool = True) -> list[dict]:
        return span_rows(records, self.segmenter_)

    def save_state(self, folder: Path) -> None:
        """The spaCy pipeline itself fills the folder, so `--segmenter FOLDER` and spacy.load read it too."""
        from baselines.core.io import write_json

        self.segmenter_.nlp.to_disk(folder)
        write_json(folder / "training.json", self.training_)

    def load_state(self, folder: Path) -> None:
        from baselines.core.io import read_json
        from segmentation.trained import TrainedSegmenter

        self.segmenter_ = TrainedSegmenter.load(folder)
        self.training_ = read_json(folder / "training.json") if (folder / "training.json").is_file() else {}
