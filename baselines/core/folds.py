"""Seeded k-fold assignment of items, shared by cross-validation and methods' inner model selection."""
from __future__ import annotations

import numpy as np


def fold_assignment(n: int, folds: int, seed: int) -> np.ndarray:
    """(n,) fold index of each item: a seeded permutation dealt round-robin into `folds` folds."""
    order = np.random.default_rng(seed).permutation(n)
    assignment = np.empty(n, dtype=np.int64)
    assignment[order] = np.arange(n) % folds
    return assignment
