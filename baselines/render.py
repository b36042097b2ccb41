"""Presenting a comparison: leaderboard and breakdown tables (terminal, Markdown, CSV) and PNG charts."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .compare import Comparison
from .systems import System
from .errors import BaselinesError, unknown_name
from .io import atomic_path

UNITS = {True: "items within each CaselawQA task", False: "items"}


@dataclass
class Table:
    """A breakdown: raw cells (floats are shares shown as percentages)."""

    title: str
    slug: str
    columns: list[str]
    rows: list[list]


def leaderboard_records(comparison: Comparison) -> list[dict]:
    """One raw row per system, best first: the leaderboard's CSV."""
    records = []
    for rank, system in enumerate(comparison.systems, start=1):
        result, paired = system.result, comparison.paired.get(system.name)
        record = {"rank": rank, "system": system.name, "kind": system.kind,
                  result["main_metric"]: system.value, "ci_low": result["interval"][0],
                  "ci_high": result["interval"][1]}
        record.update({name: value for name, value in result["metrics"].items() if name != result["main_metric"]})
        record.update({"coverage": result["coverage"], "n": result["n"], "reference": comparison.reference.name,
                       "shared_n": paired.shared if paired else (result["n"] if system is comparison.reference else 0),
                       "difference": paired.difference if paired else None,
                       "difference_low": paired.interval[0] if paired else None,
                       "difference_high": paired.interval[1] if paired else None,
                       "p_bootstrap": paired.p_bootstrap if paired else None,
                       "p_mcnemar": paired.p_mcnemar if paired else None,
                       "command": result.get("meta", {}).get("command") or ""})
        records.append(record)
    return records


def leaderboard_display(comparison: Comparison, command: bool) -> tuple[list[str], list[list[str]]]:
    """Leaderboard columns and formatted rows (percentages; differences in points)."""
    main = comparison.task.main_metric
    secondary = list(dict.fromkeys(m for s in comparison.systems for m in s.result["metrics"] if m != main))
    exact = any(p.p_mcnemar is not None for p in comparison.paired.values())
    columns = ["#", "system", "kind", f"{main} %", "95% CI", *(f"{m} %" for m in secondary), "coverage %", "n",
               f"Δ vs {comparison.reference.name} (points)", "Δ 95% CI", "p boot"]
    columns += ["p McNemar"] if exact else []
    columns += ["command"] if command else []
    rows = []
    for record, system in zip(leaderboard_records(comparison), comparison.systems):
        low, high = record["ci_low"], record["ci_high"]
        row = [str(record["rank"]), system.name, record["kind"], _pct(system.value), f"[{_pct(low)}, {_pct(high)}]" if low is not None else "none (one unit)",
               *(_pct(record.get(m)) for m in secondary), _pct(record["coverage"]), str(record["n"])]
        row += _difference_cells(comparison, system, record, exact)
        if command:
            row.append(f"`{record['command']}`" if record["command"] else "")
        rows.append(row)
    return columns, rows


def _difference_cells(comparison: Comparison, system: System, record: dict, exact: bool) -> list[str]:
    if system is comparison.reference:
        cells = ["reference", "", ""]
    elif record["difference"] is None:
        cells = ["not compared (no shared ids)", "", ""]
    else:
        shared = "" if record["shared_n"] == record["n"] == comparison.reference.result["n"] else \
            f" on {record['shared_n']} {'in the union' if comparison.task.kind == 'segmentation' else 'shared'}"
        floor = 2 / (comparison.replicates + 1)  # the smallest bootstrap p-value B replicates can give
        p_value = record["p_bootstrap"]
        p_boot = "–" if p_value is None else f"≤{floor:.3f}" if p_value <= floor + 1e-12 else _p(p_value)
        interval = ("none (one unit)" if record["difference_low"] is None else
                    f"[{_pts(record['difference_low'])}, {_pts(record['difference_high'])}]")
        cells = [_pts(record["difference"]) + shared, interval, p_boot]
    if exact:
        cells.append(_p(record["p_mcnemar"]) if record["difference"] is not None else "")
    return cells


def breakdowns(comparison: Comparison) -> list[Table]:
    """CaselawQA: accuracy per court and per task; RR: F1 per label; one column per system."""
    systems, names = comparison.systems, [s.name for s in comparison.systems]
    if comparison.task.grouped:
        courts = sorted({c for s in systems for c in s.result.get("per_supergroup", {})})
        rows = []
        for court in courts:
            for key, label in (("mean_task_accuracy", "mean over tasks"), ("accuracy", "example-weighted")):
                rows.append([court, label, *(s.result.get("per_supergroup", {}).get(court, {}).get(key)
                                             for s in systems)])
        rows.append(["all", "mean over tasks", *(s.result["metrics"].get("mean_task_accuracy") for s in systems)])
        rows.append(["all", "example-weighted", *(s.result["metrics"].get("accuracy") for s in systems)])
        tasks = sorted({t for s in systems for t in s.result.get("per_group", {})})
        per_task = [[t, comparison.task.supergroup(t) if comparison.task.supergroup else "",
                     _first_n([comparison.reference, *systems], "per_group", t),
                     *(s.result.get("per_group", {}).get(t, {}).get("accuracy") for s in systems)] for t in tasks]
        return [Table("accuracy per court", "per_court", ["court", "measure", *names], rows),
                Table("accuracy per task", "per_task", ["task", "court", "n", *names], per_task)]
    if comparison.task.kind == "sequence-labelling":
        labels = sorted({lab for s in systems for lab in s.result.get("per_label", {})},
                        key=lambda lab: (-(_first_n([comparison.reference, *systems], "per_label", lab, "support") or 0),
                                         lab))  # ties by name: the same order in every run
        rows = [[lab, _first_n([comparison.reference, *systems], "per_label", lab, "support"),
                 *(s.result.get("per_label", {}).get(lab, {}).get("f1") for s in systems)] for lab in labels]
        return [Table("F1 per label", "per_label", ["label", "support", *names], rows)]
    return []


def _first_n(systems: list[System], table: str, key: str, field: str = "n"):
    return next((s.result[table][key][field] for s in systems if key in s.result.get(table, {})), None)


def to_markdown(comparison: Comparison) -> str:
    """The leaderboard (with the command behind each row), the method, notes and breakdowns."""
    task = comparison.task
    columns, rows = leaderboard_display(comparison, command=True)
    lines = [f"### {task.name} ({comparison.split}): {task.main_metric}", "", *_md_table(columns, rows), ""]
    unit = "documents" if task.resample_groups else UNITS[task.grouped]
    on = ("on the union of both systems' boundary items" if task.kind == "segmentation"
          else "on the ids both were scored on")
    lines.append(f"Reference: **{comparison.reference.name}**. Δ = system − reference {on}; "
                 f"paired bootstrap over {unit} ({comparison.replicates} replicates): 95% percentile interval and "
                 "two-sided p" + ("; McNemar: exact test on item correctness." if task.main_metric in
                                  ("accuracy", "mean_task_accuracy") else "."))
    lines += [""] + [f"- {note}" for note in comparison.notes] + ([""] if comparison.notes else [])
    for table in breakdowns(comparison):
        cells = [[_cell(value, column) for value, column in zip(row, table.columns)] for row in table.rows]
        lines += [f"#### {table.title} (%)", "", *_md_table(table.columns, cells), ""]
    return "\n".join(lines)


def _md_table(columns: list[str], rows: list[list[str]]) -> list[str]:
    escape = lambda text: str(text).replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join(map(escape, columns)) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    return lines + ["| " + " | ".join(map(escape, row)) + " |" for row in rows]


def print_comparison(comparison: Comparison) -> None:
    """Leaderboard, notes and breakdowns as rich tables on the terminal."""
    from rich.console import Console
    from rich.table import Table as RichTable

    console = Console()
    if not console.is_terminal:
        console = Console(width=200)  # piped or captured: do not squeeze the table into 80 columns
    columns, rows = leaderboard_display(comparison, command=False)
    table = RichTable(title=f"{comparison.task.name} / {comparison.split}: {comparison.task.main_metric}", title_justify="left")
    for k, column in enumerate(columns):
        table.add_column(column, justify="left" if k in (1, 2) else "right")
    for row in rows:
        table.add_row(*row)
    console.print(table)
    for note in comparison.notes:
        console.print(f"note: {note}")
    for breakdown in breakdowns(comparison):
        table = RichTable(title=f"{breakdown.title} (%)", title_justify="left")
        for column in breakdown.columns:
            table.add_column(column, justify="right" if column not in ("task", "court", "measure", "label") else "left")
        for row in breakdown.rows:
            table.add_row(*(_cell(value, column) for value, column in zip(row, breakdown.columns)))
        console.print(table)


def write_files(comparison: Comparison, out: Path, scatter: str | None = None) -> list[Path]:
    """<task>.md, <task>.csv, breakdown CSVs and PNG charts in `out`; all rendered before any is written."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise BaselinesError(f"--out {out} exists and is not a folder")
    stem = comparison.task.name if comparison.split == comparison.task.eval_split else f"{comparison.task.name}_{comparison.split}"
    records = leaderboard_records(comparison)
    files = {f"{stem}.md": to_markdown(comparison).encode(),
             f"{stem}.csv": _csv(list(records[0]), [list(r.values()) for r in records])}
    for table in breakdowns(comparison):
        files[f"{stem}_{table.slug}.csv"] = _csv(table.columns, table.rows)
    files[f"{stem}.png"] = interval_png(comparison)
    if comparison.task.grouped and len(comparison.systems) > 1:
        files[f"{stem}_scatter.png"] = scatter_png(comparison, scatter_system(comparison, scatter))
    written = []
    for name, data in files.items():
        with atomic_path(out / name) as tmp:
            tmp.write_bytes(data)
        written.append(out / name)
    return written


def scatter_system(comparison: Comparison, name: str | None) -> System:
    """The system plotted per task against the reference: the one named, else the best other one."""
    others = [s for s in comparison.systems if s is not comparison.reference]
    if name is None:
        return others[0]
    for system in others:
        if system.name == name:
            return system
    raise unknown_name("system (--scatter; not the reference)", name, [s.name for s in others])


def _csv(columns: list[str], rows: list[list]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([["" if v is None else v for v in row] for row in rows])
    return buffer.getvalue().encode()


def _cell(value, column: str) -> str:
    if value is None:
        return "–"
    if isinstance(value, float) and column not in ("n", "support"):
        return _pct(value)
    return str(value)


def _pct(value) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def _pts(value: float) -> str:
    return f"{100 * value:+.1f}"


def _p(value) -> str:
    if value is None:
        return ""
    return "<0.001" if value < 0.001 else f"{value:.3f}"


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


def interval_png(comparison: Comparison) -> bytes:
    """The main metric of each system (best on top) with its 95% bootstrap interval."""
    systems = comparison.systems[::-1]
    figure = _figure(7.5, 1.2 + 0.42 * len(systems))
    axes = figure.add_subplot()
    for y, system in enumerate(systems):
        low, high = system.result["interval"]
        if low is None:  # a single resampling unit: no interval to draw
            low = high = system.value
        colour = {"ours": "tab:blue", "llm": "tab:orange"}.get(system.kind, "tab:green")
        axes.errorbar(100 * system.value, y, xerr=[[100 * (system.value - low)], [100 * (high - system.value)]],
                      fmt="o", color=colour, capsize=4, markersize=6 if system is not comparison.reference else 9)
        axes.annotate(f"{100 * system.value:.1f}", (100 * system.value, y), textcoords="offset points",
                      xytext=(0, 7), ha="center", fontsize=8)
    axes.set_yticks(range(len(systems)),
                    [s.name + (" (reference)" if s is comparison.reference else "") for s in systems])
    axes.set_ylim(-0.7, len(systems) - 0.3)
    axes.set_xlabel(f"{comparison.task.main_metric} (%), 95% bootstrap interval")
    axes.set_title(f"{comparison.task.name} ({comparison.split}): blue = ours, orange = LLM, green = other")
    axes.grid(axis="x", alpha=0.3)
    return _png(figure)


def scatter_png(comparison: Comparison, system: System) -> bytes:
    """Per-task accuracy of `system` against the reference on the items both answered; area ~ task size."""
    from .paired import group_accuracy

    shared = np.intersect1d(comparison.reference.ids, system.ids)
    if len(shared) == 0:
        raise BaselinesError(f"{system.name} and {comparison.reference.name} share no item to plot")
    tasks, n, x = group_accuracy(comparison.reference, shared)
    _, _, y = group_accuracy(system, shared)
    x, y = 100 * x, 100 * y
    figure = _figure(6.5, 6.5)
    axes = figure.add_subplot()
    axes.plot([0, 100], [0, 100], color="grey", linewidth=1, linestyle="--")
    axes.scatter(x, y, s=np.minimum(150, 8 + 2 * np.sqrt(n)), alpha=0.6)
    gaps = np.argsort(-np.abs(y - x))
    for rank, k in enumerate([k for k in gaps if abs(y[k] - x[k]) >= 5][:4]):
        axes.annotate(tasks[k], (x[k], y[k]), fontsize=7, textcoords="offset points",
                      xytext=(5, 5 if rank % 2 == 0 else -11))
    axes.set_xlim(-2, 102)
    axes.set_ylim(-2, 102)
    axes.set_xlabel(f"{comparison.reference.name}: accuracy per task (%)")
    axes.set_ylabel(f"{system.name}: accuracy per task (%)")
    on = "" if len(shared) == len(comparison.reference.ids) == len(system.ids) else f", on {len(shared)} shared items"
    axes.set_title(f"{comparison.task.name}: {system.name} is better on {int(np.sum(y > x))} of {len(tasks)} tasks{on}",
                   fontsize=10)
    return _png(figure)
