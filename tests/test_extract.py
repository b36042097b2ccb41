"""The raw-generation answer extractor, on the forms LLMs really write."""
import pytest

from baselines.extract import extract_answer

LETTERS = list("ABCDE")
SCALR_ALIASES = {letter: str(i) for i, letter in enumerate("ABCDE")}
NUMBERS = [str(i).zfill(3) for i in range(1, 312)]


@pytest.mark.parametrize("raw, expected", [
    ("Reasoning... The final answer is C", "C"),
    ("The final answer is (C).", "C"),
    ("the final answer is **D**", "D"),
    ("The final answer is \\boxed{B}", "B"),
    ("C", "C"),
    (" C", "C"),
    ("(C)", "C"),
    ("Answer: C.", "C"),
    ("C. First Amendment", "C"),
    ("**C**", "C"),
    ("I believe the answer is (E) here.", "E"),
    ("The answer is A. On reflection, the final answer is D", "D"),
    ("no idea", None),
    ("", None),
    ("The final answer is Z", None),
])
def test_letter_forms(raw, expected):
    assert extract_answer(raw, LETTERS) == expected


@pytest.mark.parametrize("raw, expected", [
    ("07", "007"),
    ("The final answer is 007.", "007"),
    ("Answer: 12", "012"),
    ("The final answer is 999", None),
    ("I pick 045 because it fits", "045"),
])
def test_zero_padded_numbers(raw, expected):
    assert extract_answer(raw, NUMBERS) == expected


def test_scalr_letters_map_to_legalbench_indexes():
    labels = ["0", "1", "2", "3", "4"]
    assert extract_answer("The final answer is C", labels, SCALR_ALIASES) == "2"
    assert extract_answer("3", labels, SCALR_ALIASES) == "3"


def test_label_names_for_rhetorical_roles():
    labels = ["ANALYSIS", "FAC", "PREAMBLE"]
    assert extract_answer("The final answer is FAC", labels) == "FAC"
    assert extract_answer("This sentence is ANALYSIS.", labels) == "ANALYSIS"
    assert extract_answer("This sentence is analysis", labels) is None  # whole-word, case-sensitive
    assert extract_answer("Either FAC or ANALYSIS", labels) is None
