"""Reader 7, by family: held-out wordings (fixtures/reading/round_three.jsonl, written before the code that reads
them, each with the answer it commits to or none) and the per-language answer markers, each read with the examples
it carries. Nothing is read as another answer than the one the text commits to."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from reading_corpus import corpus, ours

from baselines.evaluation.reading import read_answer
from baselines.evaluation.reading.catalogue import EXAMPLE_CHOICES, EXAMPLE_LABELS
from baselines.evaluation.reading.languages import LANGUAGES, fold

CONTEXTS, _ = corpus()
HELD_OUT = [json.loads(line) for line in
            (Path(__file__).parent / "fixtures" / "reading" / "round_three.jsonl").read_text(encoding="utf-8").splitlines()]
FAMILIES = sorted({row["family"] for row in HELD_OUT})


def outcome(row: dict) -> str:
    answer, _ = ours(row, CONTEXTS[row["context"]])
    return "right" if answer == row["answer"] else "not read" if answer is None else "misread"


def test_the_held_out_set_spans_families_and_languages():
    assert len(HELD_OUT) >= 120 and len(FAMILIES) >= 15
    assert {"zh", "ja", "ko", "ru", "el", "ar", "hi", "es", "fr", "de", "pt", "it"} <= {row["lang"] for row in HELD_OUT}


@pytest.mark.parametrize("family", FAMILIES)
def test_no_held_out_wording_is_misread(family):
    rows = [row for row in HELD_OUT if row["family"] == family]
    misread = [(row["raw"], ours(row, CONTEXTS[row["context"]])) for row in rows if outcome(row) == "misread"]
    assert not misread


def test_the_held_out_set_is_nearly_all_read():
    """Coverage: of the held-out wordings that commit to an answer, at most 2 are not read (reader 6: 70 of 188
    read right, 48 misread)."""
    counts = Counter(outcome(row) for row in HELD_OUT)
    assert counts["misread"] == 0 and counts["not read"] <= 2, counts


@pytest.mark.parametrize("language, raw, label", [(name, raw, label) for name, language in LANGUAGES.items()
                                                  for raw, label in language.reads + language.refuses])
def test_each_language_reads_its_examples_and_refuses_its_vetoes(language, raw, label):
    assert read_answer(raw, EXAMPLE_LABELS).label == label


@pytest.mark.parametrize("raw, folded", [
    ("Ａｎｓｗｅｒ：Ｅ", "Answer:E"), ("𝐂", "C"), ("Ⓒ", "C"), ("🅒", "C"), ("An\u200bswer", "Answer"),
    ("A\u200dB", "AB"), ("答案是C。", "答案是 C. "), ("Ответ: В", "Ответ: C"), ("The answer is \u0421.", "The answer is C."),
    ("The \u0421ourt", "The \u0421ourt"), ("В", "В"), ("А", "A"), ("Απάντηση: Γ", "Απάντηση: C"),
])
def test_unicode_is_folded_and_a_letter_of_another_script_read_only_where_one_reading_is_left(raw, folded):
    assert fold(raw) == folded


@pytest.mark.parametrize("raw, label", [
    ('{"final_answer": {"letter": "C"}}', "C"), ('[{"option": "A", "correct": false}, {"option": "C", "correct": true}]', "C"),
    ('{"name": "submit", "arguments": "{\\"answer\\": \\"C\\"}"}', "C"), ("<answer><letter>C</letter></answer>", "C"),
    ("final_answer:\n  letter: C", "C"), ('{"answer": "C", "final_answer": "D"}', None), ('{"answer": "C", "answer": "D"}', None),
    ('{"example": {"answer": "C"}}', None), ('{"answer": {"rejected": "C"}}', None),
])
def test_structured_answers_are_read_at_any_depth_and_conflicting_keys_name_nothing(raw, label):
    assert read_answer(raw, EXAMPLE_LABELS).label == label


LATER = [json.loads(line) for line in
         (Path(__file__).parent / "fixtures" / "reading" / "round_three_later.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("row", LATER, ids=[row["raw"][:40] for row in LATER])
def test_wordings_written_after_the_code_are_read_as_committed_or_not_at_all(row):
    """97 wordings of the same families written after the code (its first readings misread 9: a cross opening the
    line, "✖", "🙅", "should look like", "Template:", "The government's view:", "Draft answer:", "A," cut off, two boxes); each is its answer or none."""
    assert read_answer(row["raw"], EXAMPLE_LABELS, choices=EXAMPLE_CHOICES).label in (row["answer"], None)


def test_the_evaluator_page_has_the_table_of_every_language():
    page = (Path(__file__).parent.parent / "docs" / "evaluator.md").read_text(encoding="utf-8")
    for code, language in LANGUAGES.items():
        markers, examples = [line for line in page.splitlines() if f"(`{code}`) |" in line]
        assert all(noun in markers for noun in language.nouns) and all(word in markers for word in language.vetoes), code
        assert all(phrase in examples for phrase in language.after_label), code
        assert all(f"`{raw}`" in examples for raw, _ in language.reads + language.refuses), code
