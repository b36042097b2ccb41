"""One majority strategy for every task: DummyClassifier(strategy="most_frequent"), per group."""
import json

import numpy as np
import pytest

from baselines.tasks.rr.data import Document, Sentence
from baselines.core.errors import BaselinesError
from baselines.methods.base import Method
from baselines.tasks.caselawqa.majority import CaselawMajority
from baselines.methods.floors import MajorityChooser
from baselines.methods.majority import MajorityFloor, most_frequent
from baselines.tasks.rr.simple import RRMajority
from baselines.core.records import ChoiceItem, letter_labels


@pytest.mark.parametrize("seed", range(20))
def test_most_frequent_is_dummy_classifiers_rule(seed):
    from sklearn.dummy import DummyClassifier

    rng = np.random.default_rng(seed)
    labels = [str(v) for v in rng.integers(0, 4, size=int(rng.integers(1, 12)))]
    counts = {label: labels.count(label) for label in labels}
    expected = DummyClassifier(strategy="most_frequent").fit(np.zeros((len(labels), 1)), labels).predict([[0]])[0]
    assert most_frequent(counts) == expected


def choice_items(answers, group="", width=3):
    return [ChoiceItem(id=f"{group}{k}", question="q", choices=[f"c{j}" for j in range(width)],
                       labels=letter_labels(width), answer=[a], group=group) for k, a in enumerate(answers)]


def rr_doc(doc_id, labels):
    sentences = [Sentence(f"{doc_id}/{k}", k, k + 1, "x", label) for k, label in enumerate(labels)]
    return Document(doc_id, "x" * len(labels), sentences)


def test_every_floor_breaks_ties_towards_the_smallest_outcome():
    """Two of each answer: every task's floor answers the first one."""
    assert MajorityChooser().fit(choice_items([2, 1, 2, 1])).answer() == "B"
    caselaw = CaselawMajority().fit(choice_items([2, 1, 2, 1], group="sc_x"))
    assert caselaw.answer("sc_x") == 1 and caselaw.predict(choice_items([0], group="sc_x"))[0]["prediction"] == "B"
    rr = RRMajority().fit([rr_doc("d", ["RPC", "FAC", "RPC", "FAC"])])
    assert rr.answer() == "FAC" and {r["prediction"] for r in rr.predict([rr_doc("e", ["RPC"])])} == {"FAC"}
    assert all(issubclass(k, MajorityFloor) for k in (MajorityChooser, CaselawMajority, RRMajority))


def test_grouped_counts_round_trip_with_integer_outcomes(tmp_path):
    items = choice_items([0, 2, 2], group="sc_a") + choice_items([1, 1, 0], group="sc_b")
    floor = CaselawMajority().fit(items)
    assert floor.counts_ == {"sc_a": {0: 1, 2: 2}, "sc_b": {1: 2, 0: 1}}
    reloaded = Method.load(floor.save(tmp_path / "m"))
    assert reloaded.counts_ == floor.counts_ and reloaded.predict(items) == floor.predict(items)


def test_the_earlier_one_group_state_files_still_load(tmp_path):
    floor = MajorityChooser().fit(choice_items([0, 1, 1]))
    folder = floor.save(tmp_path / "scalr")
    (folder / "state.json").write_text(json.dumps({"answer": "B", "counts": {"A": 1, "B": 2}}))
    assert Method.load(folder).answer() == "B"


def test_training_data_without_answers_is_an_error():
    with pytest.raises(BaselinesError, match="majority: the training data have no answers"):
        MajorityChooser().fit([])
    with pytest.raises(BaselinesError, match="majority: no trained answer for task"):
        CaselawMajority().fit(choice_items([0], group="sc_a")).predict(choice_items([0], group="sc_b"))
