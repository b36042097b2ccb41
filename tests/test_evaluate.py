"""The common evaluator: joins by id, missing/duplicate policies, raw generations."""
import pytest

from baselines.core.errors import BaselinesError
from baselines.evaluation.scoring import score_predictions
from baselines.core.records import Reference
from baselines.registry import get_task

SCALR = get_task("scalr")
LABELS = ("0", "1", "2", "3", "4")


def refs(golds):
    return [Reference(id=str(i), gold=(g,), labels=LABELS) for i, g in enumerate(golds)]


def test_raw_generations_score_as_hand_computed():
    references = refs(["2", "0", "4", "1", "3", "2"])
    rows = [
        {"id": "0", "raw": "... The final answer is C"},  # right (C -> 2)
        {"id": "1", "raw": "(A)"},  # right
        {"id": "2", "raw": "Answer: B."},  # wrong
        {"id": "3", "raw": "**B**"},  # right
        {"id": "4", "raw": "D. Fourth Amendment"},  # right
        {"id": "5", "raw": "I cannot tell."},  # no answer
    ]
    result, samples = score_predictions(SCALR, rows, references, replicates=200)
    assert result.metrics["accuracy"] == pytest.approx(4 / 6)
    assert result.coverage == pytest.approx(5 / 6)
    assert [s["answer"] for s in samples] == ["2", "0", "1", "1", "3", None]


def test_missing_ids_are_an_error_naming_them_unless_policy_says_otherwise():
    references = refs(["0", "1", "2"])
    rows = [{"id": "0", "prediction": "0"}, {"id": "1", "prediction": "1"}]
    with pytest.raises(BaselinesError, match="1 of 3 references have no prediction: '2'"):
        score_predictions(SCALR, rows, references)
    wrong, _ = score_predictions(SCALR, rows, references, missing="wrong", replicates=100)
    assert wrong.metrics["accuracy"] == pytest.approx(2 / 3) and wrong.missing == 1
    skipped, _ = score_predictions(SCALR, rows, references, missing="skip", replicates=100)
    assert skipped.metrics["accuracy"] == 1.0 and skipped.n == 2


def test_duplicate_and_stray_ids_are_errors():
    references = refs(["0", "1"])
    with pytest.raises(BaselinesError, match="duplicate prediction ids: '0'"):
        score_predictions(SCALR, [{"id": "0", "prediction": "0"}, {"id": "0", "prediction": "1"}], references)
    with pytest.raises(BaselinesError, match="no prediction id matches"):
        score_predictions(SCALR, [{"id": "x", "prediction": "0"}], references)
    with pytest.raises(BaselinesError, match="empty"):
        score_predictions(SCALR, [], references)


def test_multi_label_gold_accepts_any_answer():
    task = get_task("caselawqa")
    references = [Reference("t/1", ("A", "C"), ("A", "B", "C"), group="t"),
                  Reference("t/2", ("B",), ("A", "B", "C"), group="t")]
    rows = [{"id": "t/1", "prediction": "C"}, {"id": "t/2", "raw": "The final answer is A"}]
    result, _ = score_predictions(task, rows, references, replicates=100)
    assert result.metrics["accuracy"] == 0.5
    assert result.per_group["t"]["n"] == 2
    assert result.per_supergroup["sc"]["tasks"] == 1


def test_one_document_gets_no_interval():
    from baselines.core.records import Reference
    from baselines.registry import get_task

    labels = ("A", "B")
    refs = [Reference(id=f"d/{k}", gold=(labels[k % 2],), labels=labels, group="d", unit="d") for k in range(6)]
    rows = [{"id": ref.id, "prediction": "A"} for ref in refs]
    result, _ = score_predictions(get_task("rr"), rows, refs)
    assert result.interval == (None, None) and result.metrics["accuracy"] == 0.5
    two = [Reference(id=r.id, gold=r.gold, labels=labels, group=f"d{k % 2}", unit=f"d{k % 2}")
           for k, r in enumerate(refs)]
    low, high = score_predictions(get_task("rr"), rows, two)[0].interval
    assert low is not None and low <= high


def test_verbatim_labels_tolerate_white_space_and_zero_padding():
    from baselines.evaluation.scoring import verbatim_label
    from baselines.core.records import Reference

    numbered = Reference(id="t/1", gold=("007",), labels=("001", "007", "010"))
    lettered = Reference(id="t/2", gold=("A",), labels=("A", "B"))
    assert verbatim_label(7, numbered, {}) == "007" and verbatim_label(" 7 ", numbered, {}) == "007"
    assert verbatim_label(" A", lettered, {}) == "A" and verbatim_label("7", lettered, {}) is None
    assert verbatim_label(11, numbered, {}) is None and verbatim_label(True, numbered, {}) is None
