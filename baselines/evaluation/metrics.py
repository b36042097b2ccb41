"""Metrics as plain functions of per-item outcomes, vectorised over bootstrap weights.

Every metric takes `Outcomes` and a weight matrix W of shape (B, n): row b gives how often each
item is counted in replicate b (all ones for the point estimate). Counts per label or group are
then matrix products, so a 1,000-replicate bootstrap over 100,000 items needs no Python loop per item.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

NO_ANSWER = -1


@dataclass
class Outcomes:
    """Per-item outcomes of one system on one task."""

    gold: np.ndarray  # (n,) int index into labels: the gold label the item is scored against
    pred: np.ndarray  # (n,) int index into labels, NO_ANSWER when no answer was extracted
    correct: np.ndarray  # (n,) bool: the prediction is one of the accepted answers
    group: np.ndarray  # (n,) int index into groups
    unit: np.ndarray  # (n,) int index of the resampling unit (item or document)
    labels: list[str]
    groups: list[str]

    @property
    def n(self) -> int:
        return len(self.gold)

    def onehot(self, index: np.ndarray, width: int, mask: np.ndarray | None = None) -> sparse.csr_matrix:
        """(n, width) sparse indicator of `index`, rows with index < 0 or mask False left empty."""
        keep = index >= 0 if mask is None else (index >= 0) & mask
        rows = np.flatnonzero(keep)
        data = np.ones(len(rows), dtype=np.float64)
        return sparse.csr_matrix((data, (rows, index[rows])), shape=(self.n, width))


def _label_counts(out: Outcomes, W: np.ndarray):
    """(B, L) true positives, gold support and predicted counts per label."""
    width = len(out.labels)
    tp = sparse_product(W, out.onehot(out.gold, width, out.correct))
    support = sparse_product(W, out.onehot(out.gold, width))
    predicted = sparse_product(W, out.onehot(out.pred, width))
    return tp, support, predicted


def sparse_product(W: np.ndarray, matrix: sparse.csr_matrix) -> np.ndarray:
    """W (B, n) @ matrix (n, k) -> dense (B, k)."""
    return np.asarray((matrix.T @ W.T).T)


def _f1(tp, support, predicted):
    denominator = support + predicted
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, 2 * tp / np.maximum(denominator, 1e-12), 0.0)


def accuracy(out: Outcomes, W: np.ndarray) -> np.ndarray:
    """Share of items whose prediction is an accepted answer."""
    return (W @ out.correct.astype(np.float64)) / W.sum(axis=1)


def balanced_accuracy(out: Outcomes, W: np.ndarray) -> np.ndarray:
    """Mean recall over the gold labels present (sklearn's balanced_accuracy_score)."""
    tp, support, _ = _label_counts(out, W)
    present = support > 0
    recall = np.where(present, tp / np.maximum(support, 1e-12), 0.0)
    return recall.sum(axis=1) / np.maximum(present.sum(axis=1), 1)


def macro_f1(out: Outcomes, W: np.ndarray) -> np.ndarray:
    """Unweighted mean F1 over labels that are gold or predicted (sklearn's average='macro')."""
    tp, support, predicted = _label_counts(out, W)
    seen = (support + predicted) > 0
    return (_f1(tp, support, predicted) * seen).sum(axis=1) / np.maximum(seen.sum(axis=1), 1)


def micro_f1(out: Outcomes, W: np.ndarray) -> np.ndarray:
    """F1 over every label's counts pooled (sklearn's average='micro'): the accuracy when every item has an answer,
    lower when some have none (an item without one adds to the gold counts only)."""
    tp, support, predicted = _label_counts(out, W)
    return _f1(tp.sum(axis=1), support.sum(axis=1), predicted.sum(axis=1))


def weighted_f1(out: Outcomes, W: np.ndarray) -> np.ndarray:
    """Support-weighted mean F1 over gold labels (sklearn's average='weighted', the LegalEval metric)."""
    tp, support, predicted = _label_counts(out, W)
    return (_f1(tp, support, predicted) * support).sum(axis=1) / np.maximum(support.sum(axis=1), 1e-12)


def mean_group_accuracy(out: Outcomes, W: np.ndarray) -> np.ndarray:
    """Mean over groups of each group's accuracy (CaselawQA's headline: the mean over its tasks)."""
    width = len(out.groups)
    right = sparse_product(W, out.onehot(out.group, width, out.correct))
    total = sparse_product(W, out.onehot(out.group, width))
    present = total > 0
    per_group = np.where(present, right / np.maximum(total, 1e-12), 0.0)
    return per_group.sum(axis=1) / np.maximum(present.sum(axis=1), 1)


def _break_counts(out: Outcomes, W: np.ndarray):
    """(B,) true positives, gold and predicted counts of the label "break" (segmentation boundary items)."""
    tp, support, predicted = _label_counts(out, W)
    if "break" not in out.labels:
        zero = np.zeros(W.shape[0])
        return zero, zero, zero
    k = out.labels.index("break")
    return tp[:, k], support[:, k], predicted[:, k]


def boundary_precision(out: Outcomes, W: np.ndarray) -> np.ndarray:
    """Share of predicted sentence boundaries that are gold boundaries."""
    tp, _, predicted = _break_counts(out, W)
    return np.where(predicted > 0, tp / np.maximum(predicted, 1e-12), 0.0)


def boundary_recall(out: Outcomes, W: np.ndarray) -> np.ndarray:
    """Share of gold sentence boundaries that were predicted."""
    tp, support, _ = _break_counts(out, W)
    return np.where(support > 0, tp / np.maximum(support, 1e-12), 0.0)


def boundary_f1(out: Outcomes, W: np.ndarray) -> np.ndarray:
    """F1 of sentence boundaries (micro over documents)."""
    return _f1(*_break_counts(out, W))


METRICS = {
    "accuracy": accuracy,
    "balanced_accuracy": balanced_accuracy,
    "macro_f1": macro_f1,
    "micro_f1": micro_f1,
    "weighted_f1": weighted_f1,
    "mean_task_accuracy": mean_group_accuracy,
    "boundary_f1": boundary_f1,
    "boundary_precision": boundary_precision,
    "boundary_recall": boundary_recall,
}


def point(metric: str, out: Outcomes) -> float:
    """The metric on all items once."""
    return float(METRICS[metric](out, np.ones((1, out.n)))[0])


def per_label(out: Outcomes) -> dict[str, dict]:
    """Precision, recall, F1 and support of each label that is gold or predicted."""
    tp, support, predicted = (row[0] for row in _label_counts(out, np.ones((1, out.n))))
    f1 = _f1(tp, support, predicted)
    table = {}
    for k, label in enumerate(out.labels):
        if support[k] == 0 and predicted[k] == 0:
            continue
        table[label] = {
            "precision": float(tp[k] / predicted[k]) if predicted[k] else 0.0,
            "recall": float(tp[k] / support[k]) if support[k] else 0.0,
            "f1": float(f1[k]),
            "support": int(support[k]),
        }
    return table


def bootstrap_weights(out: Outcomes, replicates: int, rng: np.random.Generator, stratify: bool):
    """Yield (b, n) weight chunks: units resampled with replacement, within each group if `stratify`."""
    units, unit_index = np.unique(out.unit, return_inverse=True)
    unit_group = np.zeros(len(units), dtype=np.int64)
    unit_group[unit_index] = out.group if stratify else 0
    strata = [np.flatnonzero(unit_group == g) for g in np.unique(unit_group)]
    chunk = max(1, min(replicates, 2_000_000 // max(out.n, 1)))
    for start in range(0, replicates, chunk):
        size = min(chunk, replicates - start)
        unit_weights = np.zeros((size, len(units)))  # (b, units)
        for members in strata:
            unit_weights[:, members] = _resample_counts(rng, size, len(members))
        yield unit_weights[:, unit_index]  # (b, n)


def _resample_counts(rng: np.random.Generator, replicates: int, size: int) -> np.ndarray:
    """(replicates, size) counts of each unit in `size` draws with replacement (multinomial, uniform)."""
    draws = rng.integers(0, size, size=(replicates, size))  # (b, size) drawn unit indexes
    offsets = (np.arange(replicates) * size)[:, None]
    return np.bincount((draws + offsets).ravel(), minlength=replicates * size).reshape(replicates, size)


def single_unit_strata(out: Outcomes, stratify: bool) -> bool:
    """Every stratum (each group when `stratify`, else all items) has only one resampling unit."""
    strata = out.group if stratify else np.zeros(out.n, dtype=np.int64)
    pairs = np.unique(np.stack([strata, out.unit]), axis=1)  # (2, distinct (stratum, unit))
    return len(np.unique(pairs[0])) == pairs.shape[1]


def bootstrap_interval(metric: str, out: Outcomes, replicates: int = 1000, seed: int = 0,
                       stratify: bool = False, level: float = 0.95) -> tuple[float | None, float | None]:
    """Percentile bootstrap interval of `metric` (resampling units; see bootstrap_weights).

    (None, None) when every stratum holds a single unit (one document, say): resampling it would only
    repeat the point estimate, which is no interval at all."""
    if out.n == 0 or single_unit_strata(out, stratify):
        return (None, None)
    rng = np.random.default_rng(seed)
    values = np.concatenate([METRICS[metric](out, W) for W in bootstrap_weights(out, replicates, rng, stratify)])
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return (float(low), float(high))
