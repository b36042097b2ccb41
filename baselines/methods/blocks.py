"""Work done once over a flat list (encoding, vectorising), its rows then split back per item or document."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np


def split_rows(rows, lengths: Sequence[int]) -> list:
    """Consecutive blocks of `rows` (an array or a sparse matrix) holding lengths[0], lengths[1], ... rows."""
    bounds = np.cumsum([0, *lengths]).tolist()
    return [rows[begin:end] for begin, end in zip(bounds[:-1], bounds[1:])]


def apply_flat(function: Callable, groups: Sequence[Sequence]) -> list:
    """`function` called once on every group's elements in order; its result's rows split back per group."""
    return split_rows(function([element for group in groups for element in group]), [len(g) for g in groups])
