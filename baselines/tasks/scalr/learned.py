"""A learned SCALR chooser: a listwise model over within-question similarity features.

Each (question, choice) pair is described by lexical, semantic, centrality and length signals,
normalised within the question (scalr_features). A conditional-logit model (softmax over a
question's choices of a linear score, L2-regularised) and/or gradient-boosted trees on the same
features pick the answer ("both": the mean of their probabilities). Corpus statistics, the
regularisation strength and the number of boosting rounds are chosen inside `fit` from the
training questions alone (inner cross-validation), so `--cv` figures are honest.

Saved state: arrays.npz and state.json are plain files, but state.joblib (the corpus statistics and the
boosted trees, for which scikit-learn has no plain format) is a pickle: loading a `learned` model folder
runs code from it, so load only folders you trust.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from baselines.core.errors import BaselinesError
from baselines.core.folds import fold_assignment
from baselines.core import progress
from baselines.core.params import Each, OneOf, Range, Sklearn
from baselines.encoders.onnx_backend import BACKENDS
from baselines.core.records import ChoiceItem
from baselines.methods.base import Method
from baselines.tasks.scalr.features import GROUPS, LexicalStats, check_groups, feature_matrix, item_texts, raw_signals
from baselines.tasks.scalr.similarity import choose

MODELS = ("logit", "hgb", "both")
HGB = "sklearn.ensemble:HistGradientBoostingClassifier"


def _segments(blocks: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Stacked rows and the start row of each item."""
    starts = np.cumsum([0] + [len(b) for b in blocks[:-1]])
    return np.vstack(blocks), starts


def _log_softmax(scores: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Log-probabilities of each row within its item."""
    owner = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(scores))))
    peak = np.maximum.reduceat(scores, starts)
    shifted = scores - peak[owner]
    return shifted - np.log(np.add.reduceat(np.exp(shifted), starts))[owner]


def _logit_objective(w, rows, starts, gold, l2):
    """Penalised mean negative log-likelihood, its gradient and its Hessian."""
    n = len(starts)
    logp = _log_softmax(rows @ w, starts)
    p = np.exp(logp)
    expected = np.add.reduceat(rows * p[:, None], starts)  # (items, features)
    value = -logp[gold].sum() / n + l2 * w @ w
    grad = (expected.sum(0) - rows[gold].sum(0)) / n + 2 * l2 * w
    hessian = ((rows * p[:, None]).T @ rows - expected.T @ expected) / n + 2 * l2 * np.eye(len(w))
    return value, grad, hessian


def fit_logit(rows: np.ndarray, starts: np.ndarray, gold: np.ndarray, l2: float) -> np.ndarray:
    """Weights of a conditional logit minimising mean negative log-likelihood + l2 * |w|^2 (damped Newton)."""
    w = np.zeros(rows.shape[1])
    value, grad, hessian = _logit_objective(w, rows, starts, gold, l2)
    for _ in range(100):
        step = np.linalg.solve(hessian, grad)
        t = 1.0
        while t > 1e-8:
            trial = _logit_objective(w - t * step, rows, starts, gold, l2)
            if trial[0] <= value - 1e-4 * t * grad @ step:
                break
            t /= 2
        else:
            break
        w, (value, grad, hessian) = w - t * step, trial
        if np.abs(grad).max() < 1e-9:
            break
    return w


@dataclass
class LearnedChooser(Method):
    """Listwise chooser over within-question similarity features, fit on labelled SCALR questions."""

    PARAMETER_RULES = {  # see baselines.core.params; l2_grid: each at least 0
        "features": Each(OneOf(GROUPS)), "encode_backend": OneOf(BACKENDS), "model": OneOf(MODELS),
        "inner_folds": Range(2), "hgb_iter_grid": Each(Sklearn(HGB, "max_iter")), "seed": Sklearn(HGB, "random_state"),
    }

    features: list[str] = field(default_factory=lambda: list(GROUPS))  # groups of scalr_features.GROUPS
    encoder: str = "minilm"  # sentence encoder of the semantic group
    extra_encoders: list[str] = field(default_factory=list)  # more encoders, given at run time: [DIR, ...]
    encode_backend: str = "torch"  # of every encoder: torch | auto | onnx | onnx-int8; int8 cost 2.3 points here
    model: str = "both"  # logit | hgb | both (mean of the two models' probabilities)
    l2_grid: list[float] = field(default_factory=lambda: [0.0003, 0.001, 0.003, 0.01, 0.03, 0.1])
    inner_folds: int = 5
    hgb_iter_grid: list[int] = field(default_factory=lambda: [50, 100, 200])
    seed: int = 0

    def _check(self) -> None:
        check_groups(self.features)
        if self.model not in MODELS:
            raise BaselinesError(f"learned: model must be one of {', '.join(MODELS)}, got {self.model!r}")

    def _features(self, items: list[ChoiceItem]) -> tuple[list[np.ndarray], list[str]]:
        signals = raw_signals(items, self.stats_, self.features, [self.encoder, *self.extra_encoders],
                              self.encode_backend)
        return feature_matrix(signals)

    def fit(self, train: list[ChoiceItem], val=None):
        """Fit corpus statistics, then the model(s), choosing hyperparameters by inner CV on `train`.

        IDF statistics and standardisation are fit once on all of `train` and shared by the inner
        folds, so the inner choice of l2 / boosting rounds is slightly optimistic; outer --cv figures
        are unaffected (everything here sees only the outer training fold).
        """
        self._check()
        train = [item for item in train if item.answer]
        if len(train) < 2 * self.inner_folds:
            raise BaselinesError(f"learned: needs at least {2 * self.inner_folds} labelled questions")
        with progress.stage(f"computing features of {len(train):,} questions"):
            self.stats_ = LexicalStats().fit(item_texts(train))
            blocks, self.feature_names_ = self._features(train)
        gold = np.array([item.answer[0] for item in train])
        rows, starts = _segments(blocks)
        self.mean_, self.scale_ = rows.mean(0), rows.std(0) + 1e-9
        blocks = [(b - self.mean_) / self.scale_ for b in blocks]
        self.l2_, self.weights_, self.hgb_, self.hgb_iter_ = None, None, None, None
        if self.model in ("logit", "both"):
            self.l2_ = self._choose(blocks, gold, self.l2_grid, self._logit_probs, "l2 of the logit model")
            rows, starts = _segments(blocks)
            self.weights_ = fit_logit(rows, starts, starts + gold, self.l2_)
        if self.model in ("hgb", "both"):
            self.hgb_iter_ = self._choose(blocks, gold, self.hgb_iter_grid, self._hgb_probs, "boosting rounds")
            self.hgb_ = self._fit_hgb(blocks, gold, self.hgb_iter_)
        return self

    def _choose(self, blocks, gold, grid, probs_fn, what: str):
        """The grid value with the best inner-CV mean log-likelihood (ties: the first); a bar named after `what`
        counts the fits (grid values x inner folds)."""
        assignment = fold_assignment(len(blocks), self.inner_folds, self.seed)
        scores = []
        with progress.bar(total=len(grid) * self.inner_folds, unit="fit",
                          desc=f"choosing {what} ({self.inner_folds}-fold inner CV)") as fits:
            for value in grid:
                total = 0.0
                for fold in range(self.inner_folds):
                    inner = [i for i in range(len(blocks)) if assignment[i] != fold]
                    held = [i for i in range(len(blocks)) if assignment[i] == fold]
                    probs = probs_fn([blocks[i] for i in inner], gold[inner], value, [blocks[i] for i in held])
                    total += sum(np.log(max(p[gold[i]], 1e-12)) for p, i in zip(probs, held))
                    fits.update()
                scores.append(total)
        return grid[int(np.argmax(scores))]

    @staticmethod
    def _logit_probs(train_blocks, gold, l2, test_blocks):
        rows, starts = _segments(train_blocks)
        weights = fit_logit(rows, starts, starts + gold, l2)
        return [_softmax(b @ weights) for b in test_blocks]

    def _fit_hgb(self, blocks, gold, iterations):
        from sklearn.ensemble import HistGradientBoostingClassifier

        rows, starts = _segments(blocks)
        target = np.zeros(len(rows), dtype=np.int64)
        target[starts + gold] = 1
        model = HistGradientBoostingClassifier(max_iter=iterations, learning_rate=0.05, max_leaf_nodes=8,
                                               min_samples_leaf=20, l2_regularization=1.0,
                                               early_stopping=False, random_state=self.seed)
        with _one_thread():
            return model.fit(rows, target)

    def _hgb_probs(self, train_blocks, gold, iterations, test_blocks):
        model = self._fit_hgb(train_blocks, gold, iterations)
        with _one_thread():
            return [_normalise(model.predict_proba(b)[:, 1]) for b in test_blocks]

    def predict(self, records: list[ChoiceItem]) -> list[dict]:
        blocks, names = self._features(records)
        if names != self.feature_names_:
            raise BaselinesError("learned: these items give other features than the fitted ones")
        blocks = [(b - self.mean_) / self.scale_ for b in blocks]
        probs = []
        for block in blocks:
            parts = []
            if self.weights_ is not None:
                parts.append(_softmax(block @ self.weights_))
            if self.hgb_ is not None:
                with _one_thread():
                    parts.append(_normalise(self.hgb_.predict_proba(block)[:, 1]))
            probs.append(np.mean(parts, axis=0))
        return choose(records, probs)

    def save_state(self, folder: Path) -> None:
        import joblib

        joblib.dump({"stats": self.stats_.state(), "hgb": self.hgb_}, folder / "state.joblib")
        arrays = {"mean": self.mean_, "scale": self.scale_}
        if self.weights_ is not None:
            arrays["weights"] = self.weights_
        np.savez(folder / "arrays.npz", **arrays)
        (folder / "state.json").write_text(json.dumps({"feature_names": self.feature_names_, "l2": self.l2_,
                                                       "hgb_iter": self.hgb_iter_}, indent=1))

    def load_state(self, folder: Path) -> None:
        import joblib

        state = joblib.load(folder / "state.joblib")
        self.stats_, self.hgb_ = LexicalStats.from_state(state["stats"]), state["hgb"]
        arrays = np.load(folder / "arrays.npz")
        self.mean_, self.scale_ = arrays["mean"], arrays["scale"]
        self.weights_ = arrays["weights"] if "weights" in arrays else None
        meta = json.loads((folder / "state.json").read_text())
        self.feature_names_, self.l2_, self.hgb_iter_ = meta["feature_names"], meta["l2"], meta["hgb_iter"]


def _one_thread():
    """Boosted trees on a few thousand rows: one OpenMP thread is faster than contended many."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(1, user_api="openmp")


def _softmax(scores: np.ndarray) -> np.ndarray:
    return np.exp(scores - np.logaddexp.reduce(scores))


def _normalise(values: np.ndarray) -> np.ndarray:
    total = values.sum()
    return values / total if total > 0 else np.full(len(values), 1 / len(values))
