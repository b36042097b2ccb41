"""The learned SCALR chooser: fit/predict/save/load round trip, CV determinism, and real-data accuracy."""
from __future__ import annotations

import numpy as np
import pytest

from baselines import api
from baselines.runs import predicting, run
from baselines.core.errors import BaselinesError
from baselines.methods.base import Method
from baselines.tasks.scalr.features import within_question
from baselines.tasks.scalr.learned import LearnedChooser
from baselines.core.records import ChoiceItem
from baselines.registry import get_task

TOPICS = ["prison exhaustion remedies appeal", "employee retaliation contractor protection",
          "insurance preemption statute provider", "fourth amendment passenger traffic stop",
          "sentence felony drug offense prior conviction", "agency jurisdiction deference review",
          "copyright fair use parody", "tax refund limitations period", "immigration removal crime",
          "arbitration clause class waiver", "death penalty jury instruction", "patent obviousness test"]


def _items(n: int = 36, seed: int = 1) -> list[ChoiceItem]:
    """Questions whose answer shares the question's rare words; distractors share only common ones."""
    rng = np.random.default_rng(seed)
    items = []
    for k in range(n):
        topic, other = TOPICS[k % len(TOPICS)], TOPICS[(k * 5 + 3) % len(TOPICS)]
        answer = int(rng.integers(5))
        choices = [f"holding that the court {other} rule {j} applies to the case" for j in range(5)]
        choices[answer] = f"holding that {topic} requires the rule"
        items.append(ChoiceItem(id=str(k), question=f"Does the court hold {topic} in this case?",
                                choices=choices, labels=list("01234"), answer=[answer], split="test"))
    return items


FAST = dict(features=["lexical", "length"], inner_folds=3, l2_grid=[0.01, 0.1], hgb_iter_grid=[20])


@pytest.mark.parametrize("model", ["logit", "hgb", "both"])
def test_fit_predict_save_load_identical(tmp_path, model):
    items = _items()
    method = LearnedChooser(**FAST, model=model).fit(items[:30])
    before = method.predict(items[30:])
    assert [row["id"] for row in before] == [item.id for item in items[30:]]
    assert all(len(row["scores"]) == 5 and row["prediction"] in "01234" for row in before)
    method.save(tmp_path / "model")
    after = Method.load(tmp_path / "model").predict(items[30:])
    assert after == before


def test_learns_the_fixture_pattern():
    items = _items(60)
    rows = LearnedChooser(**FAST).fit(items[:40]).predict(items[40:])
    correct = sum(row["prediction"] == item.labels[item.answer[0]] for row, item in zip(rows, items[40:]))
    assert correct >= 16


def test_cv_is_deterministic(monkeypatch):
    items = _items()
    task = get_task("scalr")
    overrides = {**FAST, "model": "both"}
    first = predicting.cross_val_predict(task, "learned", items, 3, 7, None, overrides)
    second = predicting.cross_val_predict(task, "learned", list(items), 3, 7, None, overrides)
    assert first == second


def test_within_question_features():
    features = within_question(np.array([0.1, 0.5, 0.3]))
    assert features[:, 2].tolist() == [0, 1, 0] and features[:, 3].tolist() == [1, 0, 0]
    assert features[:, 1].tolist() == [0.0, 1.0, 0.5]
    assert np.allclose(within_question(np.ones(4))[:, 0], 0)


def test_bad_parameters_are_errors():
    with pytest.raises(BaselinesError, match="unknown or empty"):
        LearnedChooser(features=["syntax"]).fit(_items())
    with pytest.raises(BaselinesError, match="model must be"):
        LearnedChooser(model="svm").fit(_items())


def test_cv_beats_tfidf_on_real_data(data_dir):
    """MiniLM-only cross-validated accuracy is clearly above the plain TF-IDF chooser's."""
    learned, _ = api.evaluate("scalr", "learned", data_dir, cv=5, name="learned-test",
                              overrides={"inner_folds": 3, "l2_grid": [0.003, 0.03], "hgb_iter_grid": [100]})
    tfidf, _ = api.evaluate("scalr", "tfidf", data_dir)
    learned_acc, tfidf_acc = learned.to_dict()["metrics"]["accuracy"], tfidf.to_dict()["metrics"]["accuracy"]
    assert learned_acc > tfidf_acc + 0.2
