"""Probes of issue 22, cases 2, 8 and 14: NaN or tied log-likelihoods are no answer, SCALR's digits are
LegalBench's zero-based choices (and nothing where a prompt offered letters alone), and the reader reads a
long generation in linear time with a size limit."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import run_results
from typer.testing import CliRunner

from baselines.evaluation.reading import forms
from baselines.evaluation.reading.text import Text
from baselines.cli import app
from baselines.core.errors import BaselinesError
from baselines.evaluation.scoring import answer_and_rule
from baselines.evaluation.reading import MAX_GENERATION_CHARS, extract_answer, extract_with_rule
from baselines.core.paths import results_root
from baselines.core.records import Reference
from baselines.registry import get_task

N = 5  # questions of the tiny SCALR file; gold of question k is k
SCALR = [str(k) for k in range(5)]
ALIASES = get_task("scalr").aliases


@pytest.fixture
def scalr_file(tmp_path) -> Path:
    path = tmp_path / "tiny.jsonl"
    path.write_text("".join(json.dumps({"index": f"q{k}", "question": f"Question {k}?", "answer": str(k),
                                        **{f"choice_{c}": f"holding {k}-{c}" for c in range(5)}}) + "\n"
                            for k in range(N)))
    return path


def score(path: Path, scalr_file: Path, name: str, *options: str):
    return CliRunner().invoke(app, ["score", "scalr", str(path), "--test-file", str(scalr_file), "--name", name,
                                    *options])


def choice_sample(k: int, logprobs: list) -> dict:
    """A harness multiple-choice sample of question k, logprobs written as strings ("nan", "-inf")."""
    doc = {"index": f"q{k}", "question": f"Question {k}?", "answer": str(k)}
    return {"doc_id": k, "doc": doc, "target": str(k), "filter": "none",
            "arguments": {f"gen_args_{c}": {"arg_0": "Answer:", "arg_1": f" {'ABCDE'[c]}"} for c in range(5)},
            "resps": [[[str(v), "False"]] for v in logprobs], "filtered_resps": [[str(v), "False"] for v in logprobs]}


@pytest.mark.parametrize("logprobs", [[float("nan")] * 5, [float("-inf")] * 5])
def test_case_2_nan_or_minus_inf_logprobs_are_no_answer_from_the_cli(tmp_path, scalr_file, logprobs):
    """Case 2: logprobs all NaN, or all -inf, are no answer (never choice A): a log of only those is refused,
    and beside one real answer they count as wrong and lower the coverage."""
    log = tmp_path / "samples_scalr_mc.jsonl"
    log.write_text("".join(json.dumps(choice_sample(k, logprobs)) + "\n" for k in range(N)))
    result = score(log, scalr_file, "mc")
    assert result.exit_code == 2 and "no answer" in result.output
    assert not (results_root() / "scalr" / "mc").exists()
    answered = [-5.0, -5.0, -5.0, -5.0, -1.0]  # question 4, gold 4: right
    log.write_text("".join(json.dumps(choice_sample(k, answered if k == 4 else logprobs)) + "\n" for k in range(N)))
    assert score(log, scalr_file, "mc").exit_code == 0
    saved = run_results("scalr", "mc")
    assert saved["coverage"] == 0.2 and saved["metrics"]["accuracy"] == 0.2


def test_case_2_two_equal_best_logprobs_are_no_answer(tmp_path, scalr_file):
    """Case 2: a tie for the best logprob chooses nothing; a unique best still chooses."""
    rows = [choice_sample(k, [-1.0, -1.0, -2.0, -3.0, -4.0] if k == 0 else [-5.0 + (c == k) for c in range(5)])
            for k in range(N)]
    log = tmp_path / "samples_scalr_tie.jsonl"
    log.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert score(log, scalr_file, "tie").exit_code == 0
    saved = run_results("scalr", "tie")
    assert saved["coverage"] == 0.8 and saved["metrics"]["accuracy"] == 0.8


def test_case_8_digits_are_legalbench_choices_from_the_cli(tmp_path, scalr_file):
    """Case 8, as LegalBench numbers SCALR's choices: a digit k is choice_k (zero-based), as letter k of A-E is;
    "choice 3" and "Option 3" are choice_3 = D. Gold of question k is k."""
    path = tmp_path / "llm.jsonl"
    answers = ["The answer is choice 0", "3", "The answer is choice 2", "Option 3", "The answer is choice E"]
    path.write_text("".join(json.dumps({"id": f"q{k}", "raw": raw}) + "\n" for k, raw in enumerate(answers)))
    assert score(path, scalr_file, "digits", "--numbering", "legalbench").exit_code == 0
    saved = run_results("scalr", "digits")
    assert saved["coverage"] == 1.0 and saved["metrics"]["accuracy"] == 0.8  # q1 answered 3
    outcome = score(path, scalr_file, "digits-unknown")  # reader 7: a bare number needs its numbering
    saved = run_results("scalr", "digits-unknown")
    assert saved["numbering_unknown"] == 4 and saved["coverage"] == 0.2 and "bare numbers" in outcome.output


@pytest.mark.parametrize("raw", ["The answer is choice 3", "3", "(3)", "Option 3", "The final answer is 3.",
                                 "\\boxed{3}", "I pick 3", "3 is correct", "3. Because the statute applies",
                                 "Answer: 3", '3: "holding that the court erred"', "3\n\nQuestion: Whether?\nAnswer: 1"])
def test_case_8_digits_are_zero_based_scalr_choices_in_every_rule(raw):
    """Case 8 (reversed by LegalBench's own prompt, which numbers the choices 0-4): on SCALR a digit k is
    choice_k in every rule, as letter k is; where the prompt offered letters alone, a digit names nothing; and on
    lettered CaselawQA tasks, a digit names no option."""
    assert extract_with_rule(raw, SCALR, ALIASES, numbering="legalbench")[0] == "3"
    assert extract_with_rule(raw, SCALR, ALIASES, offered=list("01234"))[0] == "3"
    assert extract_with_rule(raw, SCALR, ALIASES)[0] is None  # reader 7: its numbering unknown, a digit is not read
    assert extract_with_rule(raw, SCALR, ALIASES, offered=list("ABCDE"))[0] is None
    assert extract_answer(raw, list("ABCDEFGHIJK")) is None


def test_case_8_letters_and_given_labels_still_read_on_scalr():
    """Case 8: SCALR letters still map to the indexes, and a method's verbatim prediction "3" is still label 3."""
    reference = Reference(id="q3", gold=("3",), labels=tuple(SCALR))
    assert extract_answer("The answer is choice D", SCALR, ALIASES) == "3"
    assert answer_and_rule({"prediction": "3"}, reference, ALIASES) == ("3", None)


@pytest.mark.parametrize("labels, expected", [
    (["1", "2", "3", "4", "5"], "3"),  # a task whose prompt lists "1. ..." to "5. ..."
    ([str(i).zfill(3) for i in range(1, 279)], "003"),  # CaselawQA tasks with more than 26 choices
    ([str(i).zfill(2) for i in range(1, 65)], "03"),
])
def test_case_8_digits_still_read_where_the_prompt_offered_digits(labels, expected):
    """Case 8: numeric labels without letter aliases are offered as digits, and digits still read them."""
    assert extract_answer("The answer is choice 3", labels) == expected
    assert extract_answer("The final answer is 3.", labels) == expected


def flood(phrase: str, size: int = 1_000_000) -> str:
    return (phrase * (size // len(phrase) + 1))[:size]


def test_case_14_a_1_mb_flood_of_cues_reads_one_value_per_cue(monkeypatch):
    """Case 14: 1 MB of "the answer is " (once 325 s at 280 KB) reads one value per cue, each in a bounded number
    of words, not the rest of the text from each cue."""
    reads = []
    real_value = forms.value_at
    monkeypatch.setattr(forms, "value_at", lambda *args, **kw: reads.append(args[1]) or real_value(*args, **kw))
    raw = flood("the answer is ") + " The answer is B."
    holdings = [f"holding {c} of the court" for c in range(5)]
    assert extract_with_rule(raw, SCALR, ALIASES, holdings) == ("1", "answer_is")
    assert len(reads) <= raw.count("answer is") + 1


def test_case_14_a_1_mb_generation_of_random_words_is_read():
    """Case 14: 1 MB of random words ending in a final answer is read (in well under a second)."""
    rng = random.Random(0)
    words = ["the", "court", "held", "that", "a", "statute", "of", "review", "is", "answer", "(b)", "not", "C,", "I"]
    raw = " ".join(rng.choice(words) for _ in range(170_000))[:1_000_000] + "\nThe final answer is (D)."
    assert extract_with_rule(raw, SCALR, ALIASES) == ("3", "final_answer")


def test_case_14_generations_over_the_limit_are_refused_naming_the_id(tmp_path, scalr_file):
    """Case 14: a generation longer than MAX_GENERATION_CHARS is an error naming the item, never cut or read."""
    with pytest.raises(BaselinesError, match=r"id q1: the generation has 2,000,001 characters"):
        extract_with_rule("A" * (MAX_GENERATION_CHARS + 1), SCALR, ALIASES, item_id="q1")
    path = tmp_path / "huge.jsonl"
    rows = [{"id": f"q{k}", "raw": "The final answer is A" + " x" * (MAX_GENERATION_CHARS if k == 1 else 0)}
            for k in range(N)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    result = score(path, scalr_file, "huge")
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "at most 2,000,000" in result.output
    assert not (results_root() / "scalr" / "huge").exists()


WORD_TESTS = ("is_word", "is_break", "previous_word", "_glued", "strong")  # what Text looks at, word by word


@pytest.fixture
def word_tests(monkeypatch):
    """Calls of each of Text's word-by-word tests during the test, by name."""
    calls = dict.fromkeys(WORD_TESTS, 0)
    for name in WORD_TESTS:
        real = getattr(Text, name)

        def counted(self, *args, _name=name, _real=real):
            calls[_name] += 1
            return _real(self, *args)
        monkeypatch.setattr(Text, name, counted)
    return calls


@pytest.mark.parametrize("phrase, expected", [
    ("( A ) ", ("0", "ending")), ("(A) ", ("0", "ending")), ("A.\n", ("0", "ending")),
    ("A is correct. ", ("0", "verdict")), ("The answer is A or ", ("0", "answer_is")),
    ("A, ", (None, None)), ("Answer: A. Wait, no. ", (None, "revised")),
    ("**Option A**: wrong.\n", (None, None)), ("The petitioner argues the answer is A. ", (None, "answer_is:attributed")),
])
def test_a_flood_is_read_in_word_tests_linear_in_its_length(word_tests, phrase, expected):
    """A flood of one phrase is read with a number of word tests that grows with its length, not faster: twice the
    text takes at most about twice the tests (a quadratic reading would take four times as many)."""
    counts = []
    for size in (100_000, 200_000):
        for name in WORD_TESTS:
            word_tests[name] = 0
        assert extract_with_rule(phrase * (size // len(phrase)) + ".", SCALR, ALIASES) == expected
        counts.append(sum(word_tests.values()))
    assert counts[1] <= 2.2 * counts[0] + 100, counts
