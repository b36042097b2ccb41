"""Document-structure features of the rhetorical-role taggers, on small judgments written out here."""
from __future__ import annotations

import numpy as np

from baselines.tasks.rr.documents import make_document
from baselines.tasks.rr.features import FEATURE_NAMES, FeatureSettings, feature_names
from baselines.tasks.rr.structure import STRUCTURE_NAMES, is_heading, structure_features

JUDGMENT = ("IN THE HIGH COURT OF KARNATAKA\nJUDGMENT\nThe appellant was convicted. He appealed.\n"
            "Section 34 reads: \u201cWhen a criminal act is done by several persons. Each is liable.\u201d "
            "We agree.\nThe appeal is dismissed.")
SENTENCES = ["IN THE HIGH COURT OF KARNATAKA", "JUDGMENT", "The appellant was convicted.", "He appealed.",
             "Section 34 reads: \u201cWhen a criminal act is done by several persons.", "Each is liable.\u201d",
             "We agree.", "The appeal is dismissed."]


def judgment():
    spans, offset = [], 0
    for sentence in SENTENCES:
        start = JUDGMENT.index(sentence, offset)
        spans.append((start, start + len(sentence), "FAC"))
        offset = start + len(sentence)
    return make_document("j", JUDGMENT, spans, "test")


def column(name):
    return structure_features(judgment())[:, STRUCTURE_NAMES.index(name)].tolist()


def test_paragraphs_come_from_the_line_breaks_of_the_judgment():
    assert column("para_start") == [1, 1, 1, 0, 1, 0, 0, 1]
    assert column("para_end") == [1, 1, 0, 1, 0, 0, 1, 1]
    assert column("para_rel") == [0, 0.25, 0.5, 0.5, 0.75, 0.75, 0.75, 1]
    assert column("in_para")[4:7] == [0, np.float32(np.log1p(1) / 4), np.float32(np.log1p(2) / 4)]


def test_headings_and_what_follows_them():
    assert column("heading") == [1, 1, 0, 0, 0, 0, 0, 0]
    assert column("after_judgment_heading") == [0, 0, 1, 1, 1, 1, 1, 1]  # from the sentence after the heading
    assert column("after_headnote") == [0] * 8
    assert is_heading("CORAM:") and is_heading("J U D G M E N T") and not is_heading("The appeal is dismissed.")


def test_quotations_are_followed_across_sentences():
    assert column("inside_quote") == [0, 0, 0, 0, 0, 1, 0, 0]
    assert column("closes_quote") == [0, 0, 0, 0, 0, 1, 0, 0]


def test_a_quotation_closed_before_a_line_break_and_a_stray_period_is_closed():
    text = 'It says "no transfer."\n .   Then more.'  # a sentence span of LegalEval's dev data ends so
    first = text.index(" .") + 2
    document = make_document("q", text, [(0, first, None), (first + 3, len(text), None)], "test")
    closes = structure_features(document)[:, STRUCTURE_NAMES.index("closes_quote")]
    assert closes.tolist() == [1, 0]


def test_an_unclosed_straight_quote_stops_counting_after_forty_sentences():
    text = 'He said "this. ' + "Another sentence. " * 45
    sentences, spans, offset = ['He said "this.'] + ["Another sentence."] * 45, [], 0
    for sentence in sentences:
        start = text.index(sentence, offset)
        spans.append((start, start + len(sentence), None))
        offset = start + len(sentence)
    inside = structure_features(make_document("q", text, spans, "test"))[:, STRUCTURE_NAMES.index("inside_quote")]
    assert inside[1:40].all() and not inside[40:].any()


def test_structure_features_are_a_block_of_their_own():
    assert feature_names(FeatureSettings(structure_features=True)) == ["embedding"] + FEATURE_NAMES + STRUCTURE_NAMES
    assert structure_features(judgment()).shape == (8, len(STRUCTURE_NAMES))


def test_tuned_tagger_puts_the_structure_block_after_the_surface_features():
    from baselines.tasks.rr.bilstm_crf_ft import FineTunedTagger
    from baselines.tasks.rr.features import handmade_features, sentence_features

    document = judgment()
    both = handmade_features(document, FineTunedTagger(structure_features=True))
    assert np.array_equal(both, np.hstack([sentence_features(document), structure_features(document)]))
    assert handmade_features(document, FineTunedTagger(surface_features=False)).shape == (8, 0)
