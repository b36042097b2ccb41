"""The raw-generation answer extractor, on the forms LLMs really write."""
import pytest

from baselines.evaluation.reading import extract_answer, read_answer

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
    assert extract_answer("3", labels, SCALR_ALIASES, numbering="legalbench") == "3"  # LegalBench numbers them 0-4
    assert extract_answer("3", labels, SCALR_ALIASES, offered=list("01234")) == "3"  # the digits its prompt offered
    assert extract_answer("3", labels, SCALR_ALIASES, offered=list("ABCDE")) is None  # a prompt of letters alone
    assert extract_answer("Option 4", labels, SCALR_ALIASES, numbering="letters") == "3"  # the fourth letter, D


@pytest.mark.parametrize("raw", ["3", "Option 4", '{"choice": 3}', "\\boxed{4}", "The answer is 2.", "3 (C)", "Answer: 0"])
def test_a_bare_number_whose_numbering_is_unknown_is_not_read(raw):
    assert read_answer(raw, list("01234"), SCALR_ALIASES) == (None, "numbering_unknown")


@pytest.mark.parametrize("raw", ["The answer is D.", "D (2 precedents support it)", "\\boxed{D}"])
def test_a_letter_needs_no_numbering(raw):
    assert read_answer(raw, list("01234"), SCALR_ALIASES).label == "3"


def test_label_names_for_rhetorical_roles():
    labels = ["ANALYSIS", "FAC", "PREAMBLE"]
    assert extract_answer("The final answer is FAC", labels) == "FAC"
    assert extract_answer("This sentence is ANALYSIS.", labels) == "ANALYSIS"
    assert extract_answer("This sentence is analysis", labels) is None  # whole-word, case-sensitive
    assert extract_answer("Either FAC or ANALYSIS", labels) is None


# Extractor v2: one table of phrasings in the styles of several model families, one table of traps.

from baselines.evaluation.scoring import answer_and_rule, score_predictions  # noqa: E402
from baselines.evaluation.reading import EXTRACTOR_VERSION, extract_with_rule  # noqa: E402
from baselines.core.records import ChoiceItem, Reference  # noqa: E402
from baselines.registry import get_task  # noqa: E402

ELEVEN = list("ABCDEFGHIJK")  # e.g. sc_casedisposition
SCALR_LABELS = ["0", "1", "2", "3", "4"]
ROLES = ["ANALYSIS", "FAC", "PREAMBLE", "NONE", "RATIO", "RPC", "PRE_RELIED", "PRE_NOT_RELIED", "ARG_PETITIONER"]
AGENCIES = ["Federal Agency", "State Agency", "Local Government"]
TASKS = {  # name -> (labels, aliases, choices)
    "letters": (ELEVEN, {}, ()),
    "scalr": (SCALR_LABELS, SCALR_ALIASES, ()),
    "numbers": (NUMBERS, {}, ()),
    "roles": (ROLES, {}, ()),
    "agencies": (list("ABC"), {}, AGENCIES),
}


def extract(raw, task):
    labels, aliases, choices = TASKS[task]
    return extract_answer(raw, labels, aliases, choices)


@pytest.mark.parametrize("raw, task, expected", [
    # bare letters, as short-answer prompts and Lawma-style single tokens give them
    ("C", "letters", "C"), (" C", "letters", "C"), ("c", "letters", "C"), ("C.", "letters", "C"),
    ("(C)", "letters", "C"), ("[C]", "letters", "C"), ("`C`", "letters", "C"), (" I", "letters", "I"),
    ("I.", "letters", "I"), ("A", "letters", "A"), ("a", "letters", "A"), ("Option B", "letters", "B"),
    ("Answer: (C)", "letters", "C"), ("Answer: A", "letters", "A"),
    # markdown (chat models)
    ("**C**", "letters", "C"), ("**Answer:** C", "letters", "C"), ("**Answer: (C)**", "letters", "C"),
    ("The answer is: **D**", "letters", "D"), ("### Final Answer\n\n**B**", "letters", "B"),
    ("**Final Answer**\nThe correct choice is **E**.", "letters", "E"),
    ("**D** is the correct answer because the statute applies.", "letters", "D"),
    # LaTeX (math-tuned models)
    ("\\boxed{D}", "letters", "D"), ("$\\boxed{D}$", "letters", "D"), ("\\boxed{\\text{B}}", "letters", "B"),
    ("The final answer is $\\boxed{\\text{(A)}}$.", "letters", "A"),
    ("The statute applies to the agency, so \\boxed{c}", "letters", "C"),
    # chain of thought ending in a cue
    ("Reasoning... The final answer is C", "letters", "C"),
    ("The question asks about standing. Option A misstates the rule. Therefore, the answer is (B).", "letters", "B"),
    ("Let's think step by step.\n1. The court granted review.\n2. It reversed.\nSo the answer must be D.",
     "letters", "D"),
    ("Final Answer: The final answer is B. I hope it is correct.", "letters", "B"),
    ("Let's look at each option:\n(A) too broad\n(B) too narrow\n(C) matches the holding\nThe answer is (C).",
     "letters", "C"),
    ("The final answer is: B", "letters", "B"), ("The correct option is C.", "letters", "C"),
    ("I would go with option E.", "letters", "E"), ("Option A is correct.", "letters", "A"),
    ("A is the answer.", "letters", "A"),
    ("The answer to this question is B", "letters", "B"), ("I think B.", "letters", "B"),
    ("The answer is A. On reflection, the final answer is D", "letters", "D"),
    ("I believe the answer is (E) here.", "letters", "E"),
    ("Answer: I think it is C", "letters", "C"), ("The answer is I believe D", "letters", "D"),
    ("After weighing everything, the answer is a close call. I'd pick D", "scalr", "3"),
    ("The final answer is a difficult one, but probably C", "scalr", None),  # the statement's value is no choice
    # lowercase and the article-like "a" at the very end
    ("the answer is b", "letters", "B"), ("The answer is a.", "letters", "A"),
    # the label opens the generation
    ("C. First Amendment", "letters", "C"), ("C) because the statute is silent", "letters", "C"),
    ("(C) The holding concerns standing.", "letters", "C"),
    ("B\n\nExplanation: the lower court misread the statute.", "letters", "B"),
    # refusals
    ("I cannot determine the answer from the information given.", "letters", None),
    ("I'm sorry, but I can't answer that.", "letters", None),
    ("As an AI, I cannot provide legal advice.", "letters", None), ("no idea", "letters", None),
    # hedges
    ("Probably B.", "letters", "B"), ("It could be B or C.", "letters", None), ("Maybe B, maybe C.", "letters", None),
    ("The answer is either B or D", "letters", None), ("The answer is B (or possibly C).", "letters", None),
    # lists
    ("A) wrong\nB) wrong\nC) right\nD) wrong", "letters", None), ("Answer: A and C", "letters", None),
    # the text of a choice instead of its label
    ("State Agency", "agencies", "B"), ("state agency.", "agencies", "B"), ("**State Agency**", "agencies", "B"),
    ("The final answer is: Local Government", "agencies", "C"),
    # zero-padded numeric labels
    ("007", "numbers", "007"), ("7", "numbers", "007"), ("The final answer is 7.", "numbers", "007"),
    ("Answer: 12", "numbers", "012"), ("The answer is 12 or 13", "numbers", None),
    # SCALR: letters stand for the LegalBench indexes; a bare number names no choice while its numbering is unknown
    ("The final answer is C", "scalr", "2"), ("3", "scalr", None), ("(e)", "scalr", "4"),
    ("The answer is A, B, or C", "scalr", None),
    # rhetorical-role names
    ("The final answer is FAC", "roles", "FAC"), ("This sentence is ANALYSIS.", "roles", "ANALYSIS"),
    ("PRE_RELIED", "roles", "PRE_RELIED"), ("**RATIO**", "roles", "RATIO"), ("NONE", "roles", "NONE"),
    ("Label: ARG_PETITIONER", "roles", "ARG_PETITIONER"), ("The final answer is fac", "roles", "FAC"),
    ("The rhetorical role is RPC because it states the final order", "roles", "RPC"),
    ("None of these roles fit", "roles", None), ("The role is ANALYSIS, not FAC", "roles", "ANALYSIS"),
])
def test_phrasings_of_several_model_families(raw, task, expected):
    assert extract(raw, task) == expected


@pytest.mark.parametrize("raw, task, intended", [
    # English words that are also labels
    ("The answer is a difficult one.", "letters", None),
    ("The answer is a question of law, so B", "letters", "B"),
    ("A court may review agency action.", "letters", None),
    ("I agree with the lower court.", "letters", None), ("I think so.", "letters", None),
    ("I'd say D", "letters", "D"),
    # abbreviations
    ("The final answer is e.g. D", "letters", None), ("i.e.", "letters", None),  # an example is no commitment
    ("The answer is, e.g., not obvious.", "letters", None),
    ("The answer is the first one, i.e. A", "letters", None),  # an ordinal is not read
    ("The U.S.C. provision applies.", "letters", None),
    # several labels, negations
    ("Option A or B", "letters", None), ("A, B, or C", "letters", None), ("The answer is B and C", "letters", None),
    ("The answer is not A.", "letters", None), ("Not A.", "letters", None), ("not A", "letters", None),
    ("The answer is not A but B.", "letters", "B"), ("B, not A", "letters", "B"),
    ("Neither A nor B is correct; the answer is C.", "letters", "C"),
    ("Both A and B are wrong. The answer is D.", "letters", "D"),
    ("The answer is B; C is wrong because it misreads the statute.", "letters", "B"),
    ("The answer is B because option C misreads the statute", "letters", "B"),
    # roman numerals and names that contain a letter
    ("Title VII applies, so the answer is B", "letters", "B"), ("The answer is B under Title I.", "letters", "B"),
    ("See Article I.", "letters", None), ("The answer is IV", "letters", None),
    ("I. Background\nII. Analysis\nThe district court dismissed.", "letters", None),
    ("Part II.B of the opinion controls.", "letters", None), ("Exhibit A shows the contract.", "letters", None),
    ("Plan B was adopted.", "letters", None), ("Form I-9 was missing.", "letters", None),
    # label letters inside words and citations
    ("Because the Court relied on Brown, the case was remanded.", "letters", None),
    ("Under 42 U.S.C. § 1983(a), relief is available.", "letters", None),
    ("In 2005 the Court decided 4 cases.", "scalr", None), ("See footnote 12.", "numbers", None),
    ("The final answer is 999", "numbers", None),
])
def test_traps_never_yield_another_label(raw, task, intended):
    assert extract(raw, task) == intended


@pytest.mark.parametrize("raw, expected", [
    ("**B**", ("B", "whole")),
    ("State Agency", ("B", "choice_text")),
    ("Thinking... The final answer is (C)", ("C", "final_answer")),
    ("So we get \\boxed{A}", ("A", "boxed")),
    ("The answer is A, B, or C", (None, "answer_is:several")),
    ("I'd pick C", ("C", "pick")),
    ("C is correct", ("C", "verdict")),
    ("B. Federal courts lack jurisdiction", ("B", "leading")),
    ("Everything considered, C.", ("C", "ending")),
    ("no answer here", (None, None)),
])
def test_the_rule_that_decided_is_reported(raw, expected):
    assert extract_with_rule(raw, list("ABC"), {}, AGENCIES) == expected


def test_choice_texts_must_align_with_labels():
    with pytest.raises(ValueError, match="2 choice texts for 3 labels"):
        extract_answer("x", ["A", "B", "C"], choices=["one", "two"])


def test_choice_items_give_references_their_choice_texts():
    item = ChoiceItem(id="t/1", question="Who?", choices=AGENCIES, labels=list("ABC"), answer=[1], group="t")
    assert item.reference().choices == tuple(AGENCIES)


def test_samples_record_the_rule_for_raw_text_and_results_the_extractor_version():
    holdings = tuple(f"holding {letter}" for letter in "vwxyz")
    references = [Reference(id=str(k), gold=("1",), labels=tuple(SCALR_LABELS), choices=holdings) for k in range(3)]
    rows = [{"id": "0", "raw": "The final answer is B"}, {"id": "1", "raw": "holding w."}, {"id": "2", "raw": "A or B"}]
    result, samples = score_predictions(get_task("scalr"), rows, references, replicates=50)
    assert [(s["answer"], s["rule"]) for s in samples] == [("1", "final_answer"), ("1", "choice_text"),
                                                           (None, "ending:several")]
    assert result.to_dict()["extractor_version"] == EXTRACTOR_VERSION
    _, verbatim = score_predictions(get_task("scalr"), [{"id": "0", "prediction": "1"}], references[:1], replicates=50)
    assert "rule" not in verbatim[0] and verbatim[0]["answer"] == "1"
    assert answer_and_rule({"raw": "(B)"}, references[0], get_task("scalr").aliases) == ("1", "whole")


# Extractor v4: LegalBench's numbering, two choices named side by side, continuations of a few-shot prompt.

HOLDINGS = [f"holding that statute {k} reaches the conduct of party {k}" for k in range(5)]


@pytest.mark.parametrize("raw, expected", [
    ("3", ("3", "whole")), ("Answer: 3", ("3", "whole")), (f'3: "{HOLDINGS[3]}"', ("3", "leading")),
    (f"3: {HOLDINGS[3][:30]}", ("3", "leading")),  # the holding cut short still names choice 3
    ("3 (D)", ("3", "ending")), ("The answer is D, i.e. choice 3", ("3", "answer_is")),
    ("The most relevant holding is 3.", ("3", "answer_is")),
    ("3 (C)", (None, "ending:several")), ("Answer: 3 (C)", (None, "answer_is:several")),
    ("D: 2", (None, "ending:several")), ("The final answer is D, which is 2.", (None, "final_answer:several")),
    (f'3: "{HOLDINGS[2]}"', (None, "leading:several")),  # digit 3, holding of choice 2
    (f"D. {HOLDINGS[1]}", (None, "leading:several")),
    ("The answer is D, 2 cases agree", ("3", "answer_is")),  # a number before other words is no label
    ("D (2 precedents support it)", ("3", "leading")),
])
def test_two_numberings_name_one_choice_or_several(raw, expected):
    assert extract_with_rule(raw, SCALR_LABELS, SCALR_ALIASES, HOLDINGS, numbering="legalbench") == expected


@pytest.mark.parametrize("task, raw, expected", [
    ("scalr", "3\n\nQuestion: Whether a State may tax?\nChoices:\n0: holding that it may\nAnswer: 1", ("3", "whole+cut")),
    ("scalr", "Answer: B\n\nGiven the following question presented in a court case, select the most relevant "
              "holding:\n\nQuestion: x\nAnswer: 4", ("1", "whole+cut")),
    ("scalr", "I am not sure.\n\nQuestion: x\nChoices:\n0: a\nAnswer: 2", (None, "none+cut")),
    ("scalr", "Question: Whether the Act applies?\nThe Act applies to agencies. The final answer is C", ("2", "final_answer")),
    ("caselawqa", " B\n\nQuestion: What is the ideological direction of the decision?\nA. Conservative\nAnswer: A",
     ("B", "whole+cut")),
    ("caselawqa", "C\n\nWhat follows is an opinion from the Supreme Court of the United States. Your task is",
     ("C", "whole+cut")),
    ("rr", "FAC\n\nRoles:\nPREAMBLE: the opening\nFAC: facts\nAnswer: ANALYSIS", ("FAC", "whole+cut")),
    ("rr", "ANALYSIS\nBelow are consecutive sentences of an Indian court judgment.\n>>> x <<<\nAnswer: RPC",
     ("ANALYSIS", "whole+cut")),
])
def test_a_continuation_of_the_prompt_is_not_read(task, raw, expected):
    from baselines.evaluation.scoring import task_openers

    labels, aliases = {"scalr": (SCALR_LABELS, SCALR_ALIASES), "caselawqa": (list("ABC"), {}),
                       "rr": (ROLES, {})}[task]
    assert extract_with_rule(raw, labels, aliases, openers=task_openers(get_task(task)), numbering="legalbench") == expected
