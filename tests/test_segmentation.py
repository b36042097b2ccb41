"""Sentence segmentation: rule-based spans, the trained senter, alignment and boundary scores."""
from __future__ import annotations

import json

import pytest

from segmentation.rules import RuleSegmenter
from segmentation.spans import (after_cue, align, boundary_counts, cue_share, numbered_paragraphs, prf, trim,
                                trim_all)
from segmentation.trained import TrainedSegmenter, evaluate_segmenter, train_senter, windows

JUDGMENT = ("IN THE HIGH COURT OF KARNATAKA\n\nCrl. Appeal No. 12 of 2019\n\n"
            "1. The appellant was convicted u/s. 302 r/w 34 IPC by the Sessions Judge. "
            "Hon'ble Mr. Justice S. K. Rao heard the appeal. "
            "Reliance was placed on Maneka Gandhi v. Union of India (1978) 1 SCC 248. "
            "Was the conviction right? We think not.\n"
            "2. The appeal is allowed.")


def texts(text, spans):
    return [text[s:e] for s, e in spans]


def test_rule_segmenter_keeps_legal_abbreviations_together():
    sentences = texts(JUDGMENT, RuleSegmenter().segment(JUDGMENT))
    assert "1. The appellant was convicted u/s. 302 r/w 34 IPC by the Sessions Judge." in sentences
    assert "Hon'ble Mr. Justice S. K. Rao heard the appeal." in sentences
    assert "Reliance was placed on Maneka Gandhi v. Union of India (1978) 1 SCC 248." in sentences
    assert "Was the conviction right?" in sentences and "We think not." in sentences
    assert sentences[-1] == "2. The appeal is allowed."


def test_segmenters_handle_empty_and_tiny_texts():
    segmenter = RuleSegmenter()
    assert segmenter.segment("") == [] and segmenter.segment(" \n ") == []
    assert segmenter.segment("Appeal dismissed") == [(0, 16)]


def test_trim_and_align():
    text = "  Ab. \n Cd ef.  "
    assert trim(text, 0, 6) == (2, 5) and trim(text, 0, 2) is None
    assert trim_all(text, [(6, 16), (0, 6)]) == [(2, 5), (8, 14)]
    gold = [(0, 10), (10, 20), (20, 30), (40, 50)]
    predicted = [(0, 12), (12, 30)]
    assert align(gold, predicted) == [0, 1, 1, None]


def test_boundary_scores():
    text = "A b. C d. E f."
    gold = [(0, 4), (5, 9), (10, 14)]
    tp, n_pred, n_gold = boundary_counts(text, gold, [(0, 9), (10, 14)])
    assert (tp, n_pred, n_gold) == (1, 1, 2)
    scores = prf(tp, n_pred, n_gold)
    assert scores["precision"] == 1.0 and scores["recall"] == 0.5 and abs(scores["f1"] - 2 / 3) < 1e-9


def toy_corpus(n):
    """Texts where sentences end in '.' but 'No.' never ends one."""
    docs = []
    for k in range(n):
        parts = [f"Case No. {k} was heard today.", f"The court met on day {k}.", "It ruled for Mr. Rao."]
        text, spans, offset = "", [], 0
        for part in parts:
            spans.append((offset, offset + len(part)))
            text += part + " "
            offset += len(part) + 1
        docs.append((text, spans))
    return docs


def test_cue_share_counts_boundaries_after_punctuation_or_line_breaks():
    text = "It was filed. The court\nheard it; then we argue that"
    gold = [(0, 13), (14, 23), (24, 33), (34, 47), (48, len(text))]  # the last break follows no cue
    assert [text[s:e] for s, e in gold][2:] == ["heard it;", "then we argue", "that"]
    assert [after_cue(text, s) for s, _ in gold] == [True, True, True, True, False]
    assert cue_share([(text, gold)]) == {"gold": 4, "after_cue": 3, "share": 3 / 4}


def test_numbered_paragraph_breaks_are_counted_by_side():
    text = "Intro.\n1. The first.\n2. The second.\n3. The third."
    one, two, three = (text.index(f"{k}. The") for k in (1, 2, 3))
    gold = [(0, 6), (one, two - 1), (two + 3, three - 1), (three, len(text))]  # "2." left outside, as a gap
    assert numbered_paragraphs([(text, gold)]) == {"before": 2, "after": 1, "both": 0, "neither": 0}


def test_trained_senter_learns_from_gold_spans(tmp_path):
    import spacy

    corpus = toy_corpus(60)
    assert windows(spacy.blank("en"), *corpus[0], width=2)
    segmenter, info = train_senter(corpus[:50], corpus[50:], epochs=4, width=32, depth=2, embed_size=500,
                                   batch=8, log=lambda *_: None)
    assert evaluate_segmenter(segmenter, corpus[50:])["f1"] >= 0.9
    folder = segmenter.save(tmp_path / "senter", {"stale": True})
    assert segmenter.save(folder, {"history": info["history"]}) == folder  # replaces the earlier save
    assert sorted(p.name for p in tmp_path.iterdir()) == ["senter"]  # no temporary folder left beside it
    assert "stale" not in json.loads((folder / "training.json").read_text())
    reloaded = TrainedSegmenter.load(folder)
    text = corpus[55][0]
    assert reloaded.segment(text) == segmenter.segment(text)


@pytest.mark.slow
def test_segmenters_on_real_dev_slice(data_dir):
    from baselines.tasks.rr.data import load_rr
    from baselines.tasks.segmenter.gold import gold_pairs

    pairs = gold_pairs(load_rr(data_dir, "dev")[:3])
    scores = evaluate_segmenter(RuleSegmenter(), pairs)
    assert scores["gold"] > 100 and scores["f1"] > 0.6
