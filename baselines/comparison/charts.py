"""Charts of a comparison as PNG bytes: each system's main metric with its interval, and per-group accuracy of
one system against the reference."""
from __future__ import annotations

import io

import numpy as np

from baselines.core.errors import BaselinesError, unknown_name
from baselines.comparison.compared import Compared
from baselines.comparison.systems import System


def scatter_system(comparison: Compared, name: str | None) -> System:
    """The system plotted per group against the reference: the one named, else the best other one."""
    others = [s for s in comparison.systems if s is not comparison.reference]
    if name is None:
        return others[0]
    for system in others:
        if system.name == name:
            return system
    raise unknown_name("system (--scatter; not the reference)", name, [s.name for s in others])


def _figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=120)
    FigureCanvasAgg(figure)
    return figure


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    figure.tight_layout()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def interval_png(comparison: Compared, partial_mark: str) -> bytes:
    """The main metric of each system (best on top) with its 95% bootstrap interval."""
    systems = comparison.systems[::-1]
    figure = _figure(7.5, 1.2 + 0.42 * len(systems))
    axes = figure.add_subplot()
    for y, system in enumerate(systems):
        low, high = system.figures["interval"]
        if low is None:  # a single resampling unit: no interval to draw
            low = high = system.value
        colour = {"ours": "tab:blue", "llm": "tab:orange"}.get(system.producer, "tab:green")
        axes.errorbar(100 * system.value, y, xerr=[[100 * (system.value - low)], [100 * (high - system.value)]],
                      fmt="o", color=colour, capsize=4, markersize=6 if system is not comparison.reference else 9)
        axes.annotate(f"{100 * system.value:.1f}", (100 * system.value, y), textcoords="offset points",
                      xytext=(0, 7), ha="center", fontsize=8)
    axes.set_yticks(range(len(systems)), [s.name + (f" {partial_mark}" if s.partial else "") +
                                          (" (reference)" if s is comparison.reference else "") for s in systems])
    axes.set_ylim(-0.7, len(systems) - 0.3)
    axes.set_xlabel(f"{comparison.task.main_metric} (%), 95% bootstrap interval")
    axes.set_title(f"{comparison.task.name} ({comparison.split}): blue = ours, orange = LLM, green = other")
    axes.grid(axis="x", alpha=0.3)
    return _png(figure)


def scatter_png(comparison: Compared, system: System) -> bytes:
    """Per-group accuracy of `system` against the reference on the items both answered; area ~ group size."""
    from baselines.comparison.paired import group_accuracy

    shared = np.intersect1d(comparison.reference.ids, system.ids)
    if len(shared) == 0:
        raise BaselinesError(f"{system.name} and {comparison.reference.name} share no item to plot")
    groups, n, x = group_accuracy(comparison.reference, shared)
    _, _, y = group_accuracy(system, shared)
    x, y = 100 * x, 100 * y
    figure = _figure(6.5, 6.5)
    axes = figure.add_subplot()
    axes.plot([0, 100], [0, 100], color="grey", linewidth=1, linestyle="--")
    axes.scatter(x, y, s=np.minimum(150, 8 + 2 * np.sqrt(n)), alpha=0.6)
    gaps = np.argsort(-np.abs(y - x))
    for rank, k in enumerate([k for k in gaps if abs(y[k] - x[k]) >= 5][:4]):
        axes.annotate(groups[k], (x[k], y[k]), fontsize=7, textcoords="offset points",
                      xytext=(5, 5 if rank % 2 == 0 else -11))
    axes.set_xlim(-2, 102)
    axes.set_ylim(-2, 102)
    group = comparison.task.subtasks.group_name
    axes.set_xlabel(f"{comparison.reference.name}: accuracy per {group} (%)")
    axes.set_ylabel(f"{system.name}: accuracy per {group} (%)")
    on = "" if len(shared) == len(comparison.reference.ids) == len(system.ids) else f", on {len(shared)} shared items"
    better = int(np.sum(y > x))
    axes.set_title(f"{comparison.task.name}: {system.name} is better on {better} of {len(groups)} {group}s{on}",
                   fontsize=10)
    return _png(figure)


def cost_png(comparison: Compared) -> bytes | None:
    """The main metric of each run against its seconds per 1,000 items (log scale), the Pareto front joined; None
    when fewer than two runs recorded a cost. Ours are measured CPU-seconds, an LLM's estimated A100-seconds."""
    from baselines.comparison.cost import pareto_front, run_cost

    costed = [(s, run_cost(s)) for s in comparison.systems]
    runs = [(s, cost) for s, cost in costed if cost is not None and cost.seconds > 0]
    free = [s.name for s, cost in costed if cost is not None and cost.seconds <= 0]  # no place on a log scale
    if len(runs) < 2:
        return None
    points = [(cost.seconds, 100 * s.value) for s, cost in runs]
    figure = _figure(7.5, 5.0)
    axes = figure.add_subplot()
    front = pareto_front(points)
    axes.step([points[k][0] for k in front], [points[k][1] for k in front], where="post", color="grey",
              linewidth=1, linestyle="--")
    for (system, cost), (x, y) in zip(runs, points):
        colour = {"ours": "tab:blue", "llm": "tab:orange"}.get(system.producer, "tab:green")
        axes.scatter([x], [y], color=colour, marker="s" if cost.estimate else "o", s=40,
                     facecolors="none" if cost.estimate else colour, zorder=3)
    axes.set_xscale("log")
    kinds = ["ours" + (" and LLMs run here" if any(cost.llm for _, cost in runs) else "") + " CPU-s measured (dots)"] \
        + (["LLMs A100-s estimated (squares)"] if any(cost.estimate for _, cost in runs) else [])
    axes.set_xlabel(f"seconds per 1,000 items (log): {', '.join(kinds)}"
                    + (f"\nnot shown, 0 s (off a log scale): {', '.join(free)}" if free else ""), fontsize=8)
    axes.set_ylabel(f"{comparison.task.main_metric} (%)")
    axes.set_title(f"{comparison.task.name} ({comparison.split}): {comparison.task.main_metric} against cost "
                   "(dashed: the Pareto front)", fontsize=10)  # a title, not a legend that could hide a point
    axes.grid(alpha=0.3)
    axes.margins(0.08)  # no point on the frame
    labels_apart(figure, axes, [system.name + (" †" if system.partial else "") for system, _ in runs], points)
    return _png(figure)


# text offsets from the point, in points: beside it first, then farther away with a leader line to it
LABEL_OFFSETS = [(5, 4), (5, -10), (-5, 4), (-5, -10)] + [(dx, dy) for dy in (18, -24, 32, -38, 46, -52)
                                                             for dx in (14, -14, 40, -40)]


def labels_apart(figure, axes, texts: list[str], points: list[tuple[float, float]]) -> None:
    """Annotate each point with its text at the first offset (LABEL_OFFSETS) that keeps clear of the other points
    and of the labels placed before it, inside the axes (else the offset that overlaps least), so that a label
    is never read as another point's."""
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox

    figure.tight_layout()
    figure.canvas.draw()  # final axis limits and layout: the boxes below are measured in pixels
    renderer, frame = figure.canvas.get_renderer(), axes.get_window_extent()
    clear = [Bbox([[x - 12, y - 12], [x + 12, y + 12]]) for x, y in axes.transData.transform(points)]  # (n,)
    placed = []
    for k, (text, point) in enumerate(zip(texts, points)):
        obstacles = placed + clear[:k] + clear[k + 1:]
        best = None
        for dx, dy in LABEL_OFFSETS:
            leader = dict(arrowstyle="-", color="grey", linewidth=0.5, shrinkA=1, shrinkB=4) if abs(dy) > 10 else None
            label = axes.annotate(text, point, textcoords="offset points", xytext=(dx, dy), fontsize=7,
                                  ha="left" if dx > 0 else "right", arrowprops=leader)
            label.update_positions(renderer)
            box = Text.get_window_extent(label, renderer)  # the text alone, not its leader line
            overlap = sum(_overlap_area(box, other) for other in obstacles) + _area(box) - _overlap_area(box, frame)
            if best is not None and overlap >= best[0]:
                label.remove()
                continue
            if best is not None:
                best[1].remove()
            best = (overlap, label, box)
            if overlap == 0:
                break
        placed.append(best[2])


def _area(box) -> float:
    return box.width * box.height


def _overlap_area(a, b) -> float:
    """Area shared by two display boxes (pixels squared)."""
    width = min(a.x1, b.x1) - max(a.x0, b.x0)
    height = min(a.y1, b.y1) - max(a.y0, b.y0)
    return max(width, 0) * max(height, 0)
