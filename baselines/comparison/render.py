"""Presenting a comparison: leaderboard and breakdown tables (terminal, Markdown, CSV) and PNG charts.

Every figure comes from `System.figures`, recomputed from the samples (systems.py), never from a results file."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


from baselines.comparison.compared import Compared
from baselines.comparison.systems import System
from baselines.core.errors import BaselinesError
from baselines.core.labels import label_as_offered
from baselines.comparison.charts import interval_png, scatter_png, scatter_system
from baselines.comparison.cost import COST_COLUMN, cost_cell, memory_cell, training_cell
from baselines.comparison.details import PARTIAL, cost_fields, per_correct_cell, footer, missing_cell
from baselines.core.safe_write import write_output_folder
from baselines.runs.overlap import OVERLAP_MARK
from baselines.registry import ItemsFromPredictions


COMPARE_MANIFEST = "compare_manifest.json"  # the files `compare` wrote into --out: only those are ever replaced


ALL_ANSWERED = "all items answered %"  # compare's share of all the split's items with an answer (not a run's coverage)


@dataclass
class Table:
    """A breakdown: raw cells (floats are shares shown as percentages)."""

    title: str
    slug: str
    columns: list[str]
    rows: list[list]
    text_columns: int = 1  # the leading columns that name the row (left-aligned)


def recorded_command(system: System) -> str:
    """The command line that wrote a system's run, as its results file records it."""
    return system.result.get("meta", {}).get("command") or ""


EVAL_ONLY = {"--test-file", "--split", "--model", "--results-dir", "--segmenter", "--missing", "--cv", "--seed"}
EVAL_FLAGS = {"--allow-overlap", "--only-present", "--force", "--quiet"}


def train_command(system: System, shown: str) -> str | None:
    """For a run of a saved model that was trained (its results record the training), the `baselines train`
    command that saves that model, made from the run's `eval` command as shown (`shown`): the same task, method,
    config, overrides, data and name, without what only an evaluation takes; None for any other run."""
    train = (system.result.get("meta", {}).get("cost") or {}).get("train")
    tokens = shown.split()
    if not isinstance(train, dict) or tokens[:2] != ["baselines", "eval"]:
        return None
    kept, skip = ["baselines", "train"], False
    for token in tokens[2:]:
        name = token.split("=", 1)[0]
        if skip:
            skip = False
        elif name in EVAL_ONLY:
            skip = "=" not in token
        elif name not in EVAL_FLAGS:
            kept.append(token)
    return " ".join(kept)


def reproduce_lines(named: list[tuple[str, System]], command) -> list[str]:
    """'- NAME: `baselines train ...`, then `baselines eval ...`' for each run with a command (`command`: System ->
    the command shown): a method that learns shows the train command its eval needs first."""
    lines = []
    for label, system in named:
        shown = command(system)
        if shown:
            train = train_command(system, shown)
            lines.append(f"- {label}: " + (f"`{train}`, then " if train else "") + f"`{shown}`")
    return lines


def leaderboard_records(comparison: Compared, command=recorded_command) -> list[dict]:
    """One raw row per system, best first: the leaderboard's CSV (`command`: System -> the command shown)."""
    records = []
    main = comparison.task.main_metric
    for rank, system in enumerate(comparison.systems, start=1):
        figures, paired = system.figures, comparison.paired.get(system.name)
        record = {"rank": rank, "system": system.name, "producer": system.producer, main: system.value,
                  "ci_low": figures["interval"][0], "ci_high": figures["interval"][1]}
        record.update({name: value for name, value in figures["metrics"].items() if name != main})
        record.update({"all_items_answered": figures["all_items_answered"],
                       "strict": (figures.get("strict") or {}).get(main),
                       "truncated": system.result.get("truncated", 0), "n": figures["n"], "missing": figures["missing"],
                       "failed": figures["failed"],
                       "skipped": figures["skipped"], "reference": comparison.reference.name,
                       "shared_n": paired.shared if paired else (figures["n"] if system is comparison.reference else 0),
                       "difference": paired.difference if paired else None,
                       "difference_low": paired.interval[0] if paired else None,
                       "difference_high": paired.interval[1] if paired else None,
                       "p_bootstrap": paired.p_bootstrap if paired else None,
                       "p_mcnemar": paired.p_mcnemar if paired else None,
                       "train_overlap": system.measured_overlap, **cost_fields(system), "command": command(system)})
        records.append(record)
    return records


def leaderboard_display(comparison: Compared) -> tuple[list[str], list[list[str]]]:
    """The leaderboard's eight columns and formatted rows (percentages; differences in points): system, main
    metric and interval, Δ to the reference and its interval, n and cost. The other figures: details_display."""
    main = comparison.task.main_metric
    columns = ["#", "system", f"{main} %", "95% CI", f"Δ vs {comparison.reference.name} (points)", "Δ 95% CI", "n",
               COST_COLUMN]
    rows = []
    for record, system in zip(leaderboard_records(comparison, lambda s: ""), comparison.systems):
        low, high = record["ci_low"], record["ci_high"]
        difference, interval = _difference_cells(comparison, system, record)[:2]
        rows.append([str(record["rank"]), system_label(system),
                     _pct(system.value) + (f" {OVERLAP_MARK}" if system.overlap_note else ""),
                     f"[{_pct(low)}, {_pct(high)}]" if low is not None else "none (one unit)",
                     difference, interval, str(record["n"]), cost_cell(system)])
    return columns, rows


def system_label(system: System) -> str:
    """The system's name, its producer when not ours, and † when it was scored on the items it answered only."""
    producer = "" if system.producer == "ours" else f" ({'LLM' if system.producer == 'llm' else system.producer})"
    return system.name + producer + (f" {PARTIAL}" if system.partial else "")


def details_display(comparison: Compared) -> tuple[list[str], list[list[str]]]:
    """The figures the leaderboard leaves out, per system: the other metrics, the share of all items answered,
    missing references (failed requests apart) and the p-values of the paired tests."""
    main = comparison.task.main_metric
    secondary = list(dict.fromkeys(m for s in comparison.systems for m in s.figures["metrics"] if m != main))
    exact = any(p.p_mcnemar is not None for p in comparison.paired.values())
    missing = any(s.figures["missing"] for s in comparison.systems)
    strict = any(s.strict_value is not None for s in comparison.systems)
    columns = ["system", *(f"{m} %" for m in secondary), ALL_ANSWERED, *([f"strict {main} %"] if strict else []),
               *(["missing"] if missing else []), "p boot", *(["p McNemar"] if exact else []), "$ per correct",
               "peak memory", "training"]
    rows = []
    for record, system in zip(leaderboard_records(comparison, lambda s: ""), comparison.systems):
        row = [system_label(system), *(_pct(record.get(m)) for m in secondary), _pct(record["all_items_answered"])]
        if strict:
            row.append(_pct(record["strict"]) if record["strict"] is not None else "–")
        if missing:
            row.append(missing_cell(record))
        p_boot, p_exact = _difference_cells(comparison, system, record)[2:]
        rows.append(row + [p_boot] + ([p_exact] if exact else []) + [per_correct_cell(record), memory_cell(system),
                                                                      training_cell(system)])
    return columns, rows


def _difference_cells(comparison: Compared, system: System, record: dict) -> list[str]:
    """Δ (with the shared items when not all), its interval, the bootstrap p and McNemar's p."""
    if system is comparison.reference:
        return ["reference", "", "", ""]
    if record["difference"] is None:
        return ["not compared (no shared ids)", "", "", ""]
    union = comparison.task.capability(ItemsFromPredictions) is not None
    shared = "" if record["shared_n"] == record["n"] == comparison.reference.figures["n"] else \
        f" on {record['shared_n']} {'in the union' if union else 'shared'}"
    floor = 2 / (comparison.replicates + 1)  # the smallest bootstrap p-value B replicates can give
    p_value = record["p_bootstrap"]
    p_boot = "–" if p_value is None else f"≤{floor:.3f}" if p_value <= floor + 1e-12 else _p(p_value)
    interval = ("none (one unit)" if record["difference_low"] is None else
                f"[{_pts(record['difference_low'])}, {_pts(record['difference_high'])}]")
    return [_pts(record["difference"]) + shared, interval, p_boot, _p(record["p_mcnemar"])]


def breakdowns(comparison: Compared) -> list[Table]:
    """The breakdown tables the task's record names (Task.breakdowns), one column per system."""
    tables = {"per_supergroup": _per_supergroup, "per_group": _per_group, "per_label": _per_label}
    return [tables[name](comparison) for name in comparison.task.breakdowns]


def _per_supergroup(comparison: Compared) -> Table:
    """Accuracy per supergroup (mean over its groups, and example-weighted), then over all."""
    systems, subtasks = comparison.systems, comparison.task.subtasks
    measures = (("mean_task_accuracy", f"mean over {subtasks.group_name}s"), ("accuracy", "example-weighted"))
    rows = []
    for key in sorted({c for s in systems for c in s.figures["per_supergroup"]}):
        for measure, label in measures:
            rows.append([key, label, *(s.figures["per_supergroup"].get(key, {}).get(measure) for s in systems)])
    for measure, label in measures:
        rows.append(["all", label, *(s.figures["metrics"].get(measure) for s in systems)])
    return Table(f"accuracy per {subtasks.supergroup_name}", f"per_{subtasks.supergroup_name}",
                 [subtasks.supergroup_name, "measure", *(s.name for s in systems)], rows, text_columns=2)


def _per_group(comparison: Compared) -> Table:
    """Accuracy per group, with its supergroup (when the task has them) and size."""
    systems, subtasks = comparison.systems, comparison.task.subtasks
    wider = [subtasks.supergroup_name] if subtasks.supergroup else []
    rows = [[group, *([subtasks.supergroup(group)] if subtasks.supergroup else []),
             _first_n([comparison.reference, *systems], "per_group", group),
             *(s.figures["per_group"].get(group, {}).get("accuracy") for s in systems)]
            for group in sorted({g for s in systems for g in s.figures["per_group"]})]
    return Table(f"accuracy per {subtasks.group_name}", f"per_{subtasks.group_name}",
                 [subtasks.group_name, *wider, "n", *(s.name for s in systems)], rows, text_columns=1 + len(wider))


def _per_label(comparison: Compared) -> Table:
    """F1 per label, labels by support (the reference's first), ties by name: the same order in every run. Each
    label is shown as the prompt offered it (SCALR: "B (1)")."""
    systems, first = comparison.systems, [comparison.reference, *comparison.systems]
    labels = sorted({lab for s in systems for lab in s.figures["per_label"]},
                    key=lambda lab: (-(_first_n(first, "per_label", lab, "support") or 0), lab))
    aliases = comparison.task.aliases
    rows = [[label_as_offered(lab, aliases), _first_n(first, "per_label", lab, "support"),
             *(s.figures["per_label"].get(lab, {}).get("f1") for s in systems)] for lab in labels]
    return Table("F1 per label", "per_label", ["label", "support", *(s.name for s in systems)], rows)


def _first_n(systems: list[System], table: str, key: str, field: str = "n"):
    return next((s.figures[table][key][field] for s in systems if key in s.figures[table]), None)


def print_comparison(comparison: Compared) -> None:
    """Leaderboard, notes and breakdowns as rich tables on the terminal."""
    from rich.console import Console
    from rich.table import Table as RichTable

    console = Console()
    if not console.is_terminal:
        console = Console(width=200)  # piped or captured: do not squeeze the table into 80 columns
    for title, (columns, rows) in ((f"{comparison.task.name} / {comparison.split}: {comparison.task.main_metric}",
                                    leaderboard_display(comparison)),
                                   ("more figures per run", details_display(comparison))):
        table = RichTable(title=title, title_justify="left")
        for k, column in enumerate(columns):
            table.add_column(column, justify="left" if columns[k] == "system" else "right")
        for row in rows:
            table.add_row(*row)
        console.print(table)
    for note in footer(comparison) + comparison.notes:
        console.print(f"note: {note}")
    for breakdown in breakdowns(comparison):
        table = RichTable(title=f"{breakdown.title} (%)", title_justify="left")
        for k, column in enumerate(breakdown.columns):
            table.add_column(column, justify="left" if k < breakdown.text_columns else "right")
        for row in breakdown.rows:
            table.add_row(*(_cell(value, column) for value, column in zip(row, breakdown.columns)))
        console.print(table)


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
