"""What a comparison holds: one task's systems side by side on the same references, the reference and the paired
statistics. leaderboard.Comparison adds how it is shown and saved; the modules that render it (render.py,
markdown.py, charts.py) read this, so they do not import the module that builds it."""
from __future__ import annotations

from dataclasses import dataclass, field

from baselines.comparison.paired import Paired
from baselines.comparison.systems import System
from baselines.registry import Task


@dataclass
class Compared:
    """Everything `baselines compare` shows and writes."""

    task: Task
    split: str
    reference: System
    systems: list[System]  # best main metric first; full runs, then in-sample (--allow-overlap) ones, then partial
    paired: dict[str, Paired]
    notes: list[str] = field(default_factory=list)
    replicates: int = 1000
    seed: int = 0  # of the paired bootstrap
