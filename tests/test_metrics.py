"""Metrics equal scikit-learn's definitions; bootstrap intervals behave."""
import numpy as np
import pytest
from sklearn.metrics import balanced_accuracy_score, f1_score

from baselines.evaluation import metrics as M


def outcomes(gold, pred, labels, group=None, unit=None):
    index = {label: k for k, label in enumerate(labels)}
    g = np.array([index[x] for x in gold])
    p = np.array([index[x] if x is not None else M.NO_ANSWER for x in pred])
    n = len(gold)
    group = np.zeros(n, dtype=int) if group is None else np.array(group)
    unit = np.arange(n) if unit is None else np.array(unit)
    groups = [str(k) for k in range(group.max() + 1)]
    return M.Outcomes(g, p, g == p, group, unit, list(labels), groups)


@pytest.mark.filterwarnings("ignore:y_pred contains classes not in y_true")
@pytest.mark.parametrize("seed", range(5))
def test_f1_and_balanced_accuracy_match_sklearn(seed):
    rng = np.random.default_rng(seed)
    labels = ["a", "b", "c", "d"]
    gold = list(rng.choice(labels[:3], 200))
    pred = list(rng.choice(labels, 200))
    out = outcomes(gold, pred, labels)
    assert M.point("weighted_f1", out) == pytest.approx(f1_score(gold, pred, average="weighted"))
    assert M.point("macro_f1", out) == pytest.approx(f1_score(gold, pred, average="macro"))
    assert M.point("balanced_accuracy", out) == pytest.approx(balanced_accuracy_score(gold, pred))
    assert M.point("accuracy", out) == pytest.approx(np.mean(np.array(gold) == np.array(pred)))


def test_unanswered_items_count_as_wrong():
    out = outcomes(["a", "b", "a", "b"], ["a", None, None, "b"], ["a", "b"])
    assert M.point("accuracy", out) == 0.5
    assert M.per_label(out)["a"] == {"precision": 1.0, "recall": 0.5, "f1": pytest.approx(2 / 3), "support": 2}


def test_mean_over_groups_is_unweighted():
    # group 0: 1/1 right; group 1: 1/3 right -> mean 2/3, example-weighted 2/4
    out = outcomes(["a", "a", "a", "a"], ["a", "a", "b", "b"], ["a", "b"], group=[0, 1, 1, 1])
    assert M.point("mean_task_accuracy", out) == pytest.approx((1 + 1 / 3) / 2)
    assert M.point("accuracy", out) == pytest.approx(0.5)


def test_bootstrap_interval_brackets_point_and_is_seeded():
    rng = np.random.default_rng(1)
    gold = list(rng.choice(["a", "b"], 300))
    pred = [g if rng.random() < 0.7 else ("b" if g == "a" else "a") for g in gold]
    out = outcomes(gold, pred, ["a", "b"])
    low, high = M.bootstrap_interval("accuracy", out, replicates=500, seed=3)
    assert low < M.point("accuracy", out) < high
    assert high - low < 0.15
    assert (low, high) == M.bootstrap_interval("accuracy", out, replicates=500, seed=3)


def test_cluster_bootstrap_resamples_whole_units():
    # two documents, one all right, one all wrong: every replicate is 0, 0.5 or 1
    out = outcomes(["a"] * 4, ["a", "a", "b", "b"], ["a", "b"], unit=[0, 0, 1, 1])
    W = next(M.bootstrap_weights(out, 50, np.random.default_rng(0), stratify=False))
    values = set(np.round(M.accuracy(out, W), 6))
    assert values <= {0.0, 0.5, 1.0}
