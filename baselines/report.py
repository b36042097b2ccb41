"""Terminal summaries of results (rich tables)."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table

from .evaluate import Result

console = Console()


def print_result(result: Result, max_rows: int = 40) -> None:
    """Headline metrics, then per-label or per-group tables when the task has them."""
    low, high = result.interval
    table = Table(title=f"{result.task} / {result.method} / {result.split}", title_justify="left")
    for column in ("metric", "value", "95% CI"):
        table.add_column(column, justify="right" if column != "metric" else "left")
    for metric, value in result.metrics.items():
        ci = f"[{low:.4f}, {high:.4f}]" if metric == result.main_metric else ""
        table.add_row(metric + (" *" if metric == result.main_metric else ""), f"{value:.4f}", ci)
    table.add_row("n", str(result.n), "")
    table.add_row("coverage", f"{result.coverage:.4f}", "")
    if result.missing:
        table.add_row(f"missing ({result.missing_policy})", str(result.missing), "")
    meta = result.meta
    if "wall_seconds" in meta:
        table.add_row("wall s (process)", f"{meta['wall_seconds']:.1f} ({meta.get('process_wall_seconds', 0):.1f})", "")
        table.add_row("peak MiB", f"{meta['peak_memory_mib']:.0f}", "")
    console.print(table)
    if meta.get("fallbacks"):
        shown = ", ".join(f"{group or 'all'} ({n})" for group, n in sorted(meta["fallbacks"].items()))
        console.print(f"fallback answers (no trained head): {shown}")
    if result.per_supergroup:
        _print_rows("per court", result.per_supergroup, ("tasks", "n", "mean_task_accuracy", "accuracy"))
    if result.per_group:
        _print_rows("per task", result.per_group, ("n", "accuracy", "coverage"), max_rows)
    elif result.per_label:
        _print_rows("per label", result.per_label, ("precision", "recall", "f1", "support"), max_rows)


def _print_rows(title: str, rows: dict, columns: tuple, max_rows: int = 100) -> None:
    table = Table(title=title, title_justify="left")
    table.add_column("")
    for column in columns:
        table.add_column(column, justify="right")
    for key, row in list(rows.items())[:max_rows]:
        table.add_row(key, *(_fmt(row[c]) for c in columns))
    console.print(table)


def _fmt(value) -> str:
    return f"{value:.4f}" if isinstance(value, float) else str(value)
