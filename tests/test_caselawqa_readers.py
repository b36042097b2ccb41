"""CaselawQA `readers`: what the party reader and the court-below reader take from inline opinions, and how
their weights are chosen."""
import numpy as np

from baselines.tasks.caselawqa.choose import Grids, ValChooser
from baselines.tasks.caselawqa.combine import TaskParts
from baselines.tasks.caselawqa.readers import disposition_tokens, dispositions, generic_tokens, party_tokens


def test_an_appositive_is_read_as_words_about_its_side():
    tokens = party_tokens("Petitioner, a state prisoner, filed a petition for habeas corpus. Respondent, the "
                          "Secretary of Labor, opposed.")
    assert {"pet_app_state", "pet_app_prisoner", "res_app_secretary", "res_app_labor"} <= set(tokens)
    assert not any(t.startswith("res_app_prisoner") for t in tokens)


def test_a_name_after_the_role_word_is_read_as_the_party_name():
    tokens = party_tokens("Petitioner Ansonia Board of Education has employed respondent Ronald Philbrook since "
                          "1962.")
    assert {"pet_name_ansonia", "pet_name_board", "pet_name_education"} <= set(tokens)
    assert {"res_name_ronald", "res_name_philbrook"} <= set(tokens)
    assert "pet_name_employed" not in tokens  # the name ends where the lower-case words begin


def test_words_before_the_role_word_and_opening_mentions_are_tagged():
    tokens = party_tokens("His widow, petitioner in this action, received a benefit.")
    assert "pet_b_widow" in tokens and "first_pet_b_widow" in tokens
    late = party_tokens("x " * 2000 + "His widow, petitioner in this action, received a benefit.")
    assert "pet_b_widow" in late and "first_pet_b_widow" not in late  # past the opening passage


def test_appellants_and_appellees_are_the_two_sides_and_counts_are_bucketed():
    tokens = party_tokens("Appellants, the State of Texas and its Attorney General, sued appellee.")
    assert {"pet_pl", "pet_app_texas", "res_sg", "pet_count_0", "res_count_0"} <= set(tokens)


def test_the_solicitor_general_and_a_state_are_counted_as_generic_parties():
    tokens = generic_tokens("The Solicitor General argues for the United States; the Government agrees. The "
                            "State of Ohio disagrees.")
    assert "doc_government_2" in tokens  # 3 mentions: the bucket of 2 to 3
    assert "doc_state_1" in tokens and "doc_union_0" in tokens


def test_the_court_below_disposes_and_this_court_does_not():
    text = ("The District Court granted summary judgment. The Court of Appeals for the Ninth Circuit affirmed in part "
            "and reversed in part. We granted certiorari. The judgment of the Court of Appeals is reversed.")
    assert dispositions(text) == [("appeals", "affirm+in_part+revers")]
    tokens = disposition_tokens(text)
    assert {"lc_first_affirm+in_part+revers", "lc_last_appeals", "lc_count_1"} <= set(tokens)


def test_first_and_last_dispositions_are_told_apart():
    text = ("The trial court dismissed the complaint. The Supreme Court of Ohio reversed. We reverse the judgment "
            "of the Supreme Court of Ohio.")
    assert dispositions(text) == [("trial", "dismiss"), ("state_high", "revers")]
    tokens = disposition_tokens(text)
    assert {"lc_first_trial_dismiss", "lc_last_state_high_revers", "lc_count_2"} <= set(tokens)


def test_no_disposition_leaves_only_the_count():
    assert disposition_tokens("Nothing happened below.") == ["lc_count_0"]


def test_a_reader_view_is_weighted_only_where_it_helps():
    rng = np.random.default_rng(0)
    answers = [[int(a)] for a in rng.integers(0, 3, 60)]
    head = np.full((60, 3), 1 / 3) + rng.normal(0, 0.01, (60, 3))
    informative = np.eye(3)[[a[0] for a in answers]] * 0.9 + 0.05
    noise = rng.dirichlet(np.ones(3), 60)
    parts = {"sc_a": TaskParts(head, readers={"parties": informative}),
             "sc_b": TaskParts(head.copy(), readers={"parties": noise})}
    weights, steps = ValChooser(parts, {"sc_a": answers, "sc_b": answers}).choose(Grids(prior=(0.0,)), min_val=30)
    assert weights["sc_a"].readers["parties"] > 0 and weights["sc_a"].val["combined"] == 1.0
    assert weights["sc_b"].readers["parties"] == 0
    assert list(steps)[-1] == "+parties"


def test_the_sentences_that_introduce_each_side_are_read_whole():
    tokens = party_tokens("In 1990 a jury convicted the man who is now petitioner. Petitioner appealed. Petitioner "
                          "lost. The warden, respondent here, kept him.")
    assert {"pet_s_jury", "pet_s_convicted", "pet_s_appealed", "res_s_warden", "res_s_kept"} <= set(tokens)
    assert "pet_s_lost" not in tokens  # the third mention of the side: its sentence is not read whole
