"""The reader of raw generations (baselines.evaluation.reading): a choice is read only where the text commits to it.

Each committing form of the catalogue reads its examples and refuses its counter-examples, recording the rule it
names; each veto takes a form back; reasoning sections, struck text, corrections, checklists and unknown wordings
are read as the docs say. No test here asserts a score."""
from __future__ import annotations

import pytest

from baselines.evaluation.reading import read_answer, strict_rule
from baselines.evaluation.reading.catalogue import EXAMPLE_CHOICES, EXAMPLE_LABELS, FORMS, VETOES

LETTERS = list(EXAMPLE_LABELS)
SCALR = [str(k) for k in range(5)]
SCALR_ALIASES = dict(zip("ABCDE", SCALR))


def read(raw: str, **options):
    return tuple(read_answer(raw, LETTERS, choices=EXAMPLE_CHOICES, **options))


@pytest.mark.parametrize("form, raw, label", [(form.name, raw, label) for form in FORMS for raw, label in form.reads])
def test_each_committing_form_reads_its_examples(form, raw, label):
    found, rule = read(raw)
    assert found == label and rule.split(":")[0].split("+")[0] == form, (raw, found, rule)


@pytest.mark.parametrize("form, raw, rule", [(form.name, raw, rule) for form in FORMS for raw, rule in form.refuses])
def test_each_committing_form_refuses_its_counter_examples(form, raw, rule):
    assert read(raw) == (None, rule)


def test_every_veto_is_documented_and_used_by_an_example():
    recorded = {rule.split(":")[1] for form in FORMS for _, rule in form.refuses if rule and ":" in rule}
    assert recorded <= {veto.name for veto in VETOES}
    assert {"questioned", "conditional", "attributed", "doubted", "qualified"} <= recorded


@pytest.mark.parametrize("raw, expected", [
    ("<think>\nI think the final answer is B.\n</think>\n\n**Answer: D**", "D"),
    ("<thinking>The answer is A.</thinking>\nThe answer is C.", "C"),
    ("<think>Weighing B and D. The answer is D.</think>", "D"),  # nothing follows: the section is read
    ("Long reasoning, and the answer is B.</think>\n\nFinal answer: E", "E"),  # no opening tag
    ("<reasoning>B fits.</reasoning>\n\nI cannot tell.", None),
    ("<think>\nI'm fairly confident the answer is A. But let me double-check B", None),  # cut off while checking
    ("<think>\nSo the final answer is 1.\n\nFinal answer: 1", None),  # letters: 1 is no label here
    ("<|channel|>analysis<|message|>A or B.<|end|><|start|>assistant<|channel|>final<|message|>B<|return|>", "B"),
])
def test_the_answer_is_what_follows_the_reasoning(raw, expected):
    assert read(raw)[0] == expected


def test_an_unfinished_reasoning_section_keeps_only_an_answer_statement():
    assert read("<think>\nB is wrong, A is wrong. So C.")[:1] == (None,)
    assert read("<think>\nB is wrong, A is wrong.\n\nFinal answer: C") == ("C", "final_answer")


@pytest.mark.parametrize("raw, expected", [
    ("The petitioner argues for C.", (None, None)),
    ("My colleague thinks the answer is C.", (None, "answer_is:attributed")),
    ("The answer is B. The petitioner argues that the answer is C.", ("B", "answer_is")),
    ("According to the respondent, the answer is C.", (None, "answer_is:attributed")),
    ("The lower court's holding is D.", (None, "answer_is:qualified")),
    ("The earlier model's output was: \"Answer: B\". Please check it.", (None, "answer_is:attributed")),
    ("What would the dissent say? Probably B.", (None, "ending:attributed")),
])
def test_someone_elses_choice_is_not_the_answer(raw, expected):
    assert read(raw) == expected


@pytest.mark.parametrize("raw", [
    "E is unpersuasive.", "D is far from correct.", "I would not rely on E.", "There is little support for E.",
    "B misses the point entirely.", "C strikes me as a stretch.", "D ist falsch.", "D n'est pas correct.",
    "La respuesta no es C.", "Most would say A, but I'm unsure.", "It could be B. It could also be D.",
    "The answer is unlikely to be D.", "B > D > A", "✗ A\n✗ B\n✓ C\n✓ D", "Between A and D, I lean A, but I can't rule out D.",
])
def test_a_wording_that_commits_to_nothing_is_no_answer(raw):
    assert read(raw)[0] is None


@pytest.mark.parametrize("raw, expected", [
    ("✗ A\n✗ B\n✓ C\n✗ D\n✗ E", "C"), ("- [ ] A\n- [x] C\n- [ ] D", "C"), ("A ❌\nB ❌\nC ✅", "C"),
    ("| choice | verdict |\n|---|---|\n| A | ❌ |\n| C | ✅ |", "C"), ("Most likely: D. Least likely: E.", "D"),
    ("B is a close second, but D is the holding.", "D"), ('{"answer": "D", "runner_up": "B"}', "D"),
    ("Top pick: C\nBackup: D", "C"), ("- A\n- B\n- **C** ← this one\n- D", "C"),
])
def test_checklists_rankings_and_fields_give_their_one_marked_choice(raw, expected):
    assert read(raw)[0] == expected


@pytest.mark.parametrize("raw, expected", [
    ("The answer is A.\n\nThe answer is B.\n\nThe answer is C.\n\nThe answer is D.\n\nThe answer is E.",
     (None, "answer_is:several")),
    ("B\nD", (None, "ending:several")), ("The answer is C. C it is.", ("C", "answer_is")),
    ("The answer is B. After checking the rest, the final answer is D.", ("D", "final_answer")),
])
def test_two_answers_with_nothing_to_say_which_is_final_are_no_answer(raw, expected):
    assert read(raw) == expected


@pytest.mark.parametrize("raw, expected", [
    ("D.\n\nWait, no. B.", ("B", "ending+revised")),
    ("The answer is A. On reflection, the final answer is D", ("D", "final_answer+revised")),
    ("The answer is E. On closer reading, E is wrong.", (None, "revised")),
    ("Answer: C. (Edit: fixed a typo in the explanation.)", ("C", "answer_is")),
    ("Answer: A.\n\nCorrection: the case was decided in 1998, not 1989. The answer is unaffected.", ("A", "answer_is")),
    ("Actually, the Court decided this in 2006. The final answer is D", ("D", "final_answer")),
    ("~~C~~ D", ("D", "whole")), ("The answer is <del>B</del> E.", ("E", "answer_is")),
])
def test_a_correction_after_an_answer_makes_the_later_one_final(raw, expected):
    assert read(raw) == expected


def test_a_correction_marker_that_follows_no_answer_keeps_the_strict_reading():
    found, rule = read("Actually, the Court decided this in 2006. The final answer is D")
    assert strict_rule(rule) and found == "D"
    assert not strict_rule(read("The answer is A. Actually, the final answer is D.")[1])


@pytest.mark.parametrize("raw, expected", [
    ('4: "holding that, if the United States is a party, the six-year period applies"', "4"),
    ('3: "holding that the claim is not barred if it was filed within one year"', "3"),
    ('The answer is C ("holding that the Act applies unless the employer lacked notice").', "2"),
    ('Option 4 ("holding that the statute does not apply if the defendant lacked knowledge") is incorrect.', None),
    ('Choices C ("holding that ...") and D ("holding that ...") are mirror images.', None),
])
def test_quoted_choice_text_is_the_choices_not_the_writers_condition(raw, expected):
    assert read_answer(raw, SCALR, SCALR_ALIASES, numbering="legalbench").label == expected


def test_the_small_models_every_choice_in_turn_is_no_answer():
    raw = "The answer to the question is: A.\n\n" + "\n\n".join(f"The answer is:\n\n{c}." for c in "ABCDE")
    assert read(raw)[0] is None


def test_harness_log_think_blocks_are_read_like_any_generation():
    from baselines.evaluation.scoring import answer_and_rule
    from baselines.core.records import Reference

    reference = Reference(id="7", gold=("3",), labels=tuple(SCALR))
    row = {"id": "7", "raw": "<think>\nThe final answer is B.\n</think>\n\nThe final answer is D", "offered": list("ABCDE")}
    assert answer_and_rule(row, reference, SCALR_ALIASES) == ("3", "final_answer")


def test_the_evaluator_page_lists_every_form_and_veto():
    from pathlib import Path

    page = (Path(__file__).parent.parent / "docs" / "evaluator.md").read_text(encoding="utf-8")
    for name in [form.name for form in FORMS] + [veto.name for veto in VETOES]:
        assert f"| `{name}` |" in page, name
