"""A comparison as Markdown: the leaderboard (at most eight columns, commands in a list under it), what its
marks mean, and the other figures and breakdowns after it, in collapsible blocks on the results pages.

Every table is at most MAX_COLUMNS wide: a wider one (a breakdown with a column per system) is cut into tables
that each repeat the columns naming the row."""
from __future__ import annotations

from baselines.comparison.compared import Compared
from baselines.comparison.cost import cost_legend
from baselines.comparison.render import (breakdowns, details_display, footer, leaderboard_display, recorded_command,
                                         reproduce_lines,
                                         system_label, _cell)
from baselines.core.errors import BaselinesError
from baselines.registry import ItemsFromPredictions


MAX_COLUMNS = 8


def md_table(columns: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table; more than MAX_COLUMNS columns is a bug of the caller (use md_tables)."""
    if len(columns) > MAX_COLUMNS:
        raise BaselinesError(f"a table of {len(columns)} columns (at most {MAX_COLUMNS}): {columns}")
    escape = lambda text: str(text).replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join(map(escape, columns)) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    return lines + ["| " + " | ".join(map(escape, row)) + " |" for row in rows]


def md_tables(columns: list[str], rows: list[list[str]], keep: int) -> list[str]:
    """A table cut into tables of at most MAX_COLUMNS columns, each starting with the first `keep` columns."""
    per_table = MAX_COLUMNS - keep
    lines = []
    for start in range(keep, max(len(columns), keep + 1), per_table):
        chosen = [*range(keep), *range(start, min(start + per_table, len(columns)))]
        lines += [*md_table([columns[k] for k in chosen], [[row[k] for k in chosen] for row in rows]), ""]
    return lines[:-1]


def collapsible(summary: str, body: list[str], fold: bool) -> list[str]:
    """`body` under a heading, or in a <details> block (MkDocs md_in_html) when `fold`."""
    if not fold:
        return [f"#### {summary}", "", *body, ""]
    return [f"<details markdown><summary>{summary}</summary>", "", *body, "", "</details>", ""]


COST_HOW = "how: docs/cost.md in the project's documentation"  # outside the docs site, where no link resolves


def to_markdown(comparison: Compared, command=recorded_command, fold: bool = False, cost_how: str = COST_HOW) -> str:
    """The leaderboard, its legend and notes, the command behind each row (as `command` shows it), then the
    other figures and the breakdowns (`fold`: in collapsible blocks); `cost_how` points to the cost method (a
    link on the docs site's pages, plain text elsewhere)."""
    task = comparison.task
    columns, rows = leaderboard_display(comparison)
    lines = [f"### {task.name} ({comparison.split}): {task.main_metric}", "", *md_table(columns, rows), "",
             cost_legend(comparison.systems, how=cost_how), "", reference_sentence(comparison)]
    notes = footer(comparison) + comparison.notes
    lines += [""] + [f"- {note}" for note in notes] + ([""] if notes else [])
    shown = reproduce_lines([(system_label(s), s) for s in comparison.systems], command)
    if shown:
        lines += ["Reproduce:", "", *shown, ""]
    columns, rows = details_display(comparison)
    lines += collapsible("More figures per run", md_tables(columns, rows, keep=1), fold)
    for table in breakdowns(comparison):
        cells = [[_cell(value, column) for value, column in zip(row, table.columns)] for row in table.rows]
        keep = table.text_columns + ("n" in table.columns or "support" in table.columns)
        lines += collapsible(f"{table.title} (%)", md_tables(table.columns, cells, keep=keep), fold)
    return "\n".join(lines).rstrip() + "\n"


def reference_sentence(comparison: Compared) -> str:
    task = comparison.task
    items = task.capability(ItemsFromPredictions)
    on = f"on the union of both systems' {items.name}" if items else "on the ids both were scored on"
    exact = task.main_metric in ("accuracy", "mean_task_accuracy")
    return (f"Reference: **{comparison.reference.name}**. Δ = system − reference {on}; paired bootstrap over "
            f"{task.bootstrap_unit} ({comparison.replicates} replicates): 95% percentile interval and two-sided p"
            + ("; McNemar: exact test on item correctness." if exact else "."))
