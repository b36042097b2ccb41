"""One linear head per CaselawQA task: chi2-selected features, C and class weighting chosen on val.

A head falls back to the task's majority answer when train has one class or too few examples, or
when no candidate beats the majority answer on val (3-fold cross-validation over train + val when val
is small); the reason is kept with the head.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from baselines.core.params import Each, OneOf, Sklearn
from baselines.tasks.caselawqa.common import capped_weights, majority_choice

CLASSIFIERS = ("svm", "logreg")


def head_estimator(params: dict) -> str:
    """The scikit-learn classifier whose C and class_weight a head's candidates are, as _classifier builds it."""
    return "sklearn.linear_model:LogisticRegression" if params.get("classifier") == "logreg" else "sklearn.svm:LinearSVC"


@dataclass
class HeadConfig:
    """Hyperparameters shared by all heads of one method (and parameters of the methods that fit heads)."""

    PARAMETER_RULES = {"classifier": OneOf(CLASSIFIERS), "Cs": Each(Sklearn(head_estimator, "C")),  # core.params
                       "class_weights": Each(Sklearn(head_estimator, "class_weight"))}

    classifier: str = "svm"  # svm (LinearSVC) | logreg (one-vs-rest logistic regression)
    Cs: tuple = (0.3, 1.0, 3.0, 10.0)  # candidate C values, chosen per task on val
    class_weights: tuple = (None, "balanced")  # candidate class weightings, chosen per task on val
    k_features: int = 0  # chi2-selected columns per task (0 = all)
    min_train: int = 20  # fewer training examples -> majority answer
    min_val: int = 30  # fewer val examples -> choose by 3-fold cross-validation on train + val
    cap_val_majority: bool = True  # weight val like Lawma's test sets (majority class at most half)
    refit_on_val: bool = True  # after choosing on val, fit the chosen head on train + val


@dataclass
class Head:
    """A fitted head: a model over the selected columns, or the majority answer."""

    task: str
    n_choices: int
    majority: int
    columns: np.ndarray | None = None
    model: object = None
    classes: np.ndarray | None = None
    chosen: dict = field(default_factory=dict)  # C, class_weight, val accuracies, fallback reason

    def scores(self, X) -> np.ndarray:
        """(n, n_choices) per-choice scores summing to 1; absent choices score 0."""
        out = np.zeros((X.shape[0], self.n_choices), dtype=np.float64)
        if self.model is None:
            out[:, self.majority] = 1.0
            return out
        out[:, self.classes] = _class_scores(self.model, X[:, self.columns])
        return out


def _class_scores(model, X) -> np.ndarray:
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X)
    margin = model.decision_function(X)
    if margin.ndim == 1:
        margin = np.stack([-margin, margin], axis=1)
    margin = np.exp(margin - margin.max(axis=1, keepdims=True))
    return margin / margin.sum(axis=1, keepdims=True)


def _expand(X, answers: list[list[int]]) -> tuple[sp.csr_matrix, np.ndarray]:
    """One training row per (example, gold answer): multi-label examples count for each answer."""
    rows = [i for i, a in enumerate(answers) for _ in a]
    return X[rows], np.array([c for a in answers for c in a], dtype=np.int64)


def _classifier(config: HeadConfig, C: float, class_weight):
    """The head's classifier, seeded: liblinear otherwise draws its shuffling seed from numpy's global generator,
    which differs from run to run and from worker to worker."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.svm import LinearSVC

    if config.classifier == "logreg":
        return OneVsRestClassifier(LogisticRegression(C=C, class_weight=class_weight, solver="liblinear",
                                                      random_state=0))
    return LinearSVC(C=C, class_weight=class_weight, max_iter=5000, random_state=0)


def chi2_scores(X, y: np.ndarray) -> np.ndarray:
    """Chi-squared statistic of each (non-negative) column against the labels, kept sparse throughout.

    With O the per-class column sums, p the class shares and f the column totals:
    sum_c (O_c - p_c f)^2 / (p_c f) = (sum_c O_c^2 / p_c) / f - f.
    """
    classes, index = np.unique(y, return_inverse=True)
    n = len(y)
    onehot = sp.csr_matrix((np.ones(n, dtype=np.float64), (index, np.arange(n))), shape=(len(classes), n))
    observed = (onehot @ X).tocsr()
    observed.data = observed.data.astype(np.float64) ** 2
    share = np.bincount(index) / n
    weighted = np.asarray((sp.diags(1.0 / share) @ observed).sum(axis=0)).ravel()
    total = np.asarray(X.sum(axis=0), dtype=np.float64).ravel()
    scores = np.zeros_like(total)
    present = total > 0
    scores[present] = weighted[present] / total[present] - total[present]
    return scores


def _select(X, y, k: int) -> np.ndarray:
    """The k columns with the highest chi2 score against the labels (all columns when k is 0 or larger)."""
    if not k or k >= X.shape[1]:
        return np.arange(X.shape[1])
    score = chi2_scores(X, y)
    return np.sort(np.argpartition(-score, k)[:k])


def _fit(config: HeadConfig, X, answers, C, class_weight):
    Xe, y = _expand(X, answers)
    columns = _select(Xe, y, config.k_features)
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():  # large C on separable data: the last iterations change little
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = _classifier(config, C, class_weight).fit(Xe[:, columns], y)
    _shrink(model)
    return columns, model, model.classes_


def _shrink(model) -> None:
    """Store coefficients as float32 (heads over hundreds of classes stay small on disk)."""
    for estimator in getattr(model, "estimators_", [model]):
        if hasattr(estimator, "coef_"):
            estimator.coef_ = estimator.coef_.astype(np.float32)


def _accuracy(scores: np.ndarray, answers: list[list[int]], weights: np.ndarray) -> float:
    hits = np.array([int(np.argmax(s)) in a for s, a in zip(scores, answers)], dtype=np.float64)
    return float((hits * weights).sum() / weights.sum())


def _stack(a, b):
    return sp.vstack([a, b], format="csr") if sp.issparse(a) else np.vstack([a, b])


def _cv_order(n: int) -> np.ndarray:
    """The seeded permutation of train + val that the 3 folds take every third item of."""
    return np.random.default_rng(0).permutation(n)


def _folds(config: HeadConfig, X_train, y_train, X_val, y_val) -> tuple[str, list]:
    """Where candidates are scored: val itself, or 3 folds of train + val when val is too small to choose on."""
    def weights(y):
        return capped_weights([a[0] for a in y]) if config.cap_val_majority else np.ones(len(y))

    if len(y_val) >= config.min_val:
        return "val", [(X_train, list(y_train), X_val, list(y_val), weights(y_val))]
    X, y = _stack(X_train, X_val), list(y_train) + list(y_val)
    order = _cv_order(len(y))
    folds = []
    for k in range(3):
        test, train = order[k::3], np.sort(np.setdiff1d(order, order[k::3]))
        folds.append((X[train], [y[i] for i in train], X[test], [y[i] for i in test], weights([y[i] for i in test])))
    return "cv3(train+val)", folds


def _score(task: str, n_choices: int, config: HeadConfig, folds: list, candidate) -> tuple[float, np.ndarray]:
    """Mean weighted accuracy over the folds of one candidate ((C, class weight), or None = majority), and the
    scores it gave each fold's held-out items, concatenated in fold order."""
    accuracies, held_out = [], []
    for Xtr, ytr, Xte, yte, weights in folds:
        counts = Counter(a for answer in ytr for a in answer)
        trial = Head(task, n_choices, majority_choice(counts, n_choices))
        if candidate is not None and len(counts) > 1:
            trial.columns, trial.model, trial.classes = _fit(config, Xtr, ytr, *candidate)
        held_out.append(trial.scores(Xte))
        accuracies.append(_accuracy(held_out[-1], yte, weights))
    return float(np.mean(accuracies)), np.vstack(held_out)


def _val_part(chosen_on: str, scores: np.ndarray, n_train: int, n_val: int) -> np.ndarray:
    """The held-out scores of the val items, in val order (out of fold under cross-validation)."""
    if chosen_on == "val":
        return scores
    order = _cv_order(n_train + n_val)
    held_out = np.concatenate([order[k::3] for k in range(3)])
    out = np.zeros((n_val, scores.shape[1]), dtype=scores.dtype)
    at_val = held_out >= n_train
    out[held_out[at_val] - n_train] = scores[at_val]
    return out


def fit_head_scored(task: str, n_choices: int, config: HeadConfig, X_train, y_train: list[list[int]],
                    X_val=None, y_val: list[list[int]] | None = None) -> tuple[Head, np.ndarray | None]:
    """The head of one task: the best (C, class weight) on val (or cross-validated), or the majority answer;
    and the (n_val, n_choices) val scores of the setting it chose: those of that setting fit on train alone when
    chosen on val, out of fold when chosen by cross-validation (None without val)."""
    counts = Counter(a for answer in y_train for a in answer)
    head = Head(task, n_choices, majority_choice(counts, n_choices))
    if len(counts) < 2 or len(y_train) < config.min_train:
        head.chosen = {"fallback": f"majority ({len(y_train)} train examples, {len(counts)} classes)"}
        return head, (head.scores(np.zeros((len(y_val), 0))) if y_val else None)
    candidates = [(C, w) for w in config.class_weights for C in config.Cs]
    if not y_val:
        head.columns, head.model, head.classes = _fit(config, X_train, y_train, *candidates[0])
        head.chosen = {"C": candidates[0][0], "class_weight": candidates[0][1], "note": "no val: first candidate"}
        return head, None
    chosen_on, folds = _folds(config, X_train, y_train, X_val, y_val)
    floor, floor_scores = _score(task, n_choices, config, folds, None)
    scored = [_score(task, n_choices, config, folds, candidate) for candidate in candidates]
    best = int(np.argmax([accuracy for accuracy, _ in scored]))
    summary = {"chosen_on": chosen_on, "majority_accuracy": round(floor, 4)}
    if scored[best][0] <= floor + 1e-9:
        head.chosen = {"fallback": f"majority (no candidate beat it on {chosen_on})", **summary}
        return head, _val_part(chosen_on, floor_scores, len(y_train), len(y_val))
    (C, w), final = candidates[best], (X_train, list(y_train))
    if config.refit_on_val or chosen_on != "val":
        final = (_stack(X_train, X_val), list(y_train) + list(y_val))
        head.majority = majority_choice(Counter(a for answer in final[1] for a in answer), n_choices)
    head.columns, head.model, head.classes = _fit(config, final[0], final[1], C, w)
    head.chosen = {"C": C, "class_weight": w, "accuracy": round(scored[best][0], 4), **summary}
    return head, _val_part(chosen_on, scored[best][1], len(y_train), len(y_val))
