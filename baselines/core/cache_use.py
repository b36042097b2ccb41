"""What the on-disk caches of per-item work served while a step ran: items read back, items computed.

The sentence encodings (baselines.encoders.sentence) and CaselawQA's TF-IDF rows are cached on disk, keyed by
their text. A prediction step that reads them back costs less than one that computes them, so a run's cost
records how much the caches served (baselines.runs.cost), and the tables say so beside the figure. Counted in
this process only: work done in worker processes is not tallied. An item counts as served only when the cache
held it before the timed step began: a text asked for twice, or computed earlier in the same step (each fold of
a cross-validated run), was computed once and is counted so.
"""
from __future__ import annotations

from collections import Counter

_served: Counter = Counter()
_computed: Counter = Counter()
_fresh: dict[str, set] = {}  # kind -> keys computed since the outermost timed step began
_depth = [0]  # timed steps open (baselines.runs.cost.Stopwatch)


def step_begins() -> None:
    """A timed step opens: at the outermost, nothing computed so far counts as computed in it."""
    if _depth[0] == 0:
        _fresh.clear()
    _depth[0] += 1


def step_ends() -> None:
    _depth[0] = max(0, _depth[0] - 1)


def note_keys(kind: str, keys: list, computed: list) -> None:
    """Items of `kind` asked for by `keys`, of which `computed` were computed now: the distinct others are served,
    unless this step computed them earlier."""
    fresh = _fresh.setdefault(kind, set())
    new = set(computed)
    note(kind, len(set(keys) - new - fresh), len(new))
    fresh |= new


def note(kind: str, served: int, computed: int) -> None:
    """`served` items of `kind` read from the cache, `computed` computed (and kept) by this process."""
    _served[kind] += served
    _computed[kind] += computed


def tally() -> dict[str, tuple[int, int]]:
    """(served, computed) per kind so far."""
    return {kind: (_served[kind], _computed[kind]) for kind in set(_served) | set(_computed)}


def since(before: dict[str, tuple[int, int]]) -> dict[str, dict[str, int]]:
    """What each cache served and computed after `before` (a `tally()`), for the kinds used meanwhile."""
    used = {}
    for kind, (served, computed) in tally().items():
        served0, computed0 = before.get(kind, (0, 0))
        if served - served0 or computed - computed0:
            used[kind] = {"served": served - served0, "computed": computed - computed0}
    return used


def served_share(used: dict[str, dict[str, int]]) -> float:
    """The share of the cached items of a step that the caches served (0 when none was cached or computed)."""
    served = sum(counts["served"] for counts in used.values())
    total = served + sum(counts["computed"] for counts in used.values())
    return served / total if total else 0.0
