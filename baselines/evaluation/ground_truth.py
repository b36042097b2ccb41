"""How far an outside file's own gold answers may differ from our references before it is refused.

A file of model outputs that carries its own ground truth (Lawma's released responses, lm-evaluation-harness
sample logs) is checked against our gold answers item by item: a file of another task, of other data, or of the
same items with their choices in another order disagrees on many items, and scoring it against our gold would give
a figure about nothing. GROUND_TRUTH_TOLERANCE is the share of its compared items that may disagree; past it the
file is refused. Measured on Lawma's released files (baselines/tasks/caselawqa/lawma.py): every file agrees on
every compared item (0%), a file read as another task disagrees on 7% and up; our harness exports carry our gold
exactly, so a log of them disagrees on none. 2% leaves room for a few items relabelled between two releases of the
same data.
"""
from __future__ import annotations

GROUND_TRUTH_TOLERANCE = 0.02


def over_tolerance(disagreeing: int, compared: int) -> bool:
    """Whether `disagreeing` of `compared` items is more than the tolerated share."""
    return compared > 0 and disagreeing > GROUND_TRUTH_TOLERANCE * compared
