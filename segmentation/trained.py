"""A spaCy `senter` learned from gold sentence spans: the corpus decides what a sentence is."""
from __future__ import annotations

import json
import logging
import random
import shutil
import tempfile
import time
from pathlib import Path

from segmentation.base import SpacySegmenter
from segmentation.spans import CUE_ENDINGS, Span, boundary_counts, prf, trim_all

logger = logging.getLogger(__name__)


def model_config(width: int, depth: int, embed_size: int) -> dict:
    """The senter's thinc model: a tagger over a hashed-embedding CNN, wider and deeper than spaCy's default
    senter (width 12, depth 1), so that it sees +-depth tokens."""
    return {"model": {"@architectures": "spacy.Tagger.v2", "nO": None,
                      "tok2vec": {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None,
                                  "width": width, "depth": depth, "embed_size": embed_size, "window_size": 1,
                                  "maxout_pieces": 3, "subword_features": True}}}


def candidate(doc, i: int) -> bool:
    """Token i could start a sentence: it follows a line break, or a token ending in . ? ! : ; or a closer."""
    if i == 0 or doc[i].is_space:
        return False
    before = doc[i - 1]
    return "\n" in before.text or before.text[-1] in CUE_ENDINGS or (
        before.is_space and i > 1 and doc[i - 2].text[-1] in CUE_ENDINGS)


def windows(nlp, text: str, spans: list[Span], width: int) -> list[tuple[str, list[int]]]:
    """Pieces of `text` around every possible sentence start (+-`width` tokens, merged where they touch):
    (piece, gold sentence starts relative to the piece). Long stretches inside sentences are left out."""
    starts = {s for s, _ in trim_all(text, spans)}
    doc = nlp.make_doc(text)
    keep = [False] * len(doc)
    for i, token in enumerate(doc):
        if token.idx in starts or candidate(doc, i):
            for k in range(max(0, i - width), min(len(doc), i + width + 1)):
                keep[k] = True
    pieces, i = [], 0
    while i < len(doc):
        if not keep[i]:
            i += 1
            continue
        j = i
        while j < len(doc) and keep[j]:
            j += 1
        begin, end = doc[i].idx, doc[j - 1].idx + len(doc[j - 1].text)
        pieces.append((text[begin:end], [s - begin for s in starts if begin <= s < end]))
        i = j
    return pieces


def example(nlp, text: str, starts: list[int]):
    """A spaCy Example whose reference marks the tokens at which gold sentences start."""
    from spacy.training import Example

    doc = nlp.make_doc(text)
    wanted = set(starts)
    tags = [1 if token.idx in wanted and not token.is_space else -1 for token in doc]
    return Example.from_dict(doc, {"sent_starts": tags})


class TrainedSegmenter(SpacySegmenter):
    """A spaCy pipeline (tokenizer + senter) returning trimmed sentence character spans."""

    name = "trained"

    @classmethod
    def load(cls, folder: Path) -> "TrainedSegmenter":
        import spacy

        return cls(spacy.load(folder))

    def save(self, folder: Path, extra: dict | None = None) -> Path:
        """Write the spaCy pipeline and a training record (`extra`) as `folder`, replacing it.

        Both are written into a temporary folder beside it, renamed into place once complete."""
        folder = Path(folder)
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".tmp", dir=folder.parent))
        try:
            self.nlp.to_disk(tmp)
            (tmp / "training.json").write_text(json.dumps(extra or {}, indent=2, ensure_ascii=False) + "\n",
                                               encoding="utf-8")
            if folder.is_dir():
                shutil.rmtree(folder)
            tmp.rename(folder)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return folder


def evaluate_segmenter(segmenter, docs: list[tuple[str, list[Span]]]) -> dict:
    """Boundary precision/recall/F1 of a segmenter over (text, gold spans) pairs."""
    tp = n_pred = n_gold = 0
    for text, gold in docs:
        a, b, c = boundary_counts(text, gold, segmenter.segment(text))
        tp, n_pred, n_gold = tp + a, n_pred + b, n_gold + c
    return prf(tp, n_pred, n_gold)


def train_senter(train: list[tuple[str, list[Span]]], val: list[tuple[str, list[Span]]], *, epochs: int = 4,
                 window: int = 6, sample: float = 1.0, batch: int = 16, width: int = 64, depth: int = 3,
                 embed_size: int = 5000, dropout: float = 0.1, seed: int = 0, log=None, bar=None) -> tuple:
    """Fit a senter on (text, gold spans) pairs; keep the epoch with the best boundary F1 on `val`.

    Epoch lines go to `log`, by default this module's logger at INFO; `bar(iterable, desc=..., unit=...)` shows
    the epochs (default: a tqdm bar on a terminal, none elsewhere, so a log file gets no redrawn lines)."""
    import spacy
    from spacy.util import fix_random_seed, minibatch

    log = log or logger.info

    fix_random_seed(seed)
    rng = random.Random(seed)
    nlp = spacy.blank("en")
    nlp.add_pipe("senter", config=model_config(width, depth, embed_size))
    pieces = [p for text, spans in train for p in windows(nlp, text, spans, window)]
    pieces = rng.sample(pieces, max(1, int(len(pieces) * sample))) if sample < 1 else pieces
    examples = [example(nlp, text, starts) for text, starts in pieces]
    optimizer = nlp.initialize(lambda: examples[:100])
    segmenter, best, best_bytes, history = TrainedSegmenter(nlp), -1.0, None, []
    for epoch in (bar or _terminal_bar)(range(epochs), desc="fitting the senter", unit="epoch"):
        started, losses = time.time(), {}
        rng.shuffle(examples)
        for group in minibatch(examples, size=batch):
            nlp.update(group, sgd=optimizer, drop=dropout, losses=losses)
        scores = evaluate_segmenter(segmenter, val)
        history.append({"epoch": epoch + 1, "loss": round(losses.get("senter", 0.0), 2),
                        "val_f1": round(scores["f1"], 4), "seconds": round(time.time() - started, 1)})
        log(f"senter epoch {epoch + 1}: loss {history[-1]['loss']}, val boundary F1 {scores['f1']:.4f}")
        if scores["f1"] > best:
            best, best_bytes = scores["f1"], nlp.to_bytes()
    nlp.from_bytes(best_bytes)
    return segmenter, {"history": history, "best_val_f1": best, "examples": len(examples)}


def _terminal_bar(iterable, desc: str, unit: str):
    """A tqdm bar on a terminal; the plain iterable anywhere else."""
    import sys

    if not sys.stderr.isatty():
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, desc=desc, unit=unit)
