"""Terminal summaries of results (rich tables)."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table

from baselines.core.labels import label_as_offered
from baselines.evaluation.scoring import Result
from baselines.runs.overlap import OVERLAP_MARK, describe, overlap_note
from baselines.registry import ItemsFromPredictions, get_task

console = Console()


def print_result(result: Result, max_rows: int = 40) -> None:
    """Headline metrics, then per-label or per-group tables when the task has them."""
    low, high = result.interval
    task = get_task(result.task)
    flag = overlap_note(result.meta.get("train_overlap"))
    table = Table(title=f"{result.task} / {result.system} / {result.split}", title_justify="left")
    for column in ("metric", "value", "95% CI"):
        table.add_column(column, justify="right" if column != "metric" else "left")
    for metric, value in result.metrics.items():
        ci = (f"[{low:.4f}, {high:.4f}]" if low is not None else "none: one resampling unit") \
            if metric == result.main_metric else ""
        mark = (" *" + (f" {OVERLAP_MARK}" if flag else "")) if metric == result.main_metric else ""
        table.add_row(metric + mark, f"{value:.4f}", ci)
    if flag:  # a run written with --allow-overlap: its figures are read with how much of it the model was fit on
        table.add_row(f"{OVERLAP_MARK} train overlap", *_overlap_cells(result.meta["train_overlap"]))
    table.add_row("n", str(result.n), "")
    table.add_row("coverage", f"{result.coverage:.4f}", "")
    if result.strict is not None:  # raw generations: the main metric when only explicit answers count
        table.add_row(f"{result.main_metric}, strict reading", f"{result.strict[result.main_metric]:.4f}", "")
    if result.truncated:
        table.add_row("truncated generations", str(result.truncated), "")
    if result.numbering_unknown:  # "Option 4": the fourth letter, or LegalBench's 4?
        table.add_row("bare numbers, numbering unknown", str(result.numbering_unknown),
                      "not read: pass --numbering legalbench|letters")
    batch = result.meta.get("batch") or {}
    if batch.get("tool_calls"):
        table.add_row("answers read from tool calls", str(batch["tool_calls"]), "")
    if batch.get("refusals"):
        table.add_row("refusals (no answer)", str(batch["refusals"]), "")
    if result.missing:
        table.add_row(f"missing ({result.missing_policy})", str(result.missing), "")
    if result.missing and result.missing_policy == "skip" and task.capability(ItemsFromPredictions) is None:
        answered = round(result.coverage * result.n)  # the figures above are on the answered subset only
        table.add_row("coverage of all references", f"{answered / (result.n + result.missing):.4f}", "")
    meta = result.meta
    if "wall_seconds" in meta:
        table.add_row("wall s (process)", f"{meta['wall_seconds']:.1f} ({meta.get('process_wall_seconds', 0):.1f})", "")
        table.add_row("peak MiB", f"{meta['peak_memory_mib']:.0f}", "")
    console.print(table)
    for note in meta.get("data_notes", []):
        console.print(f"data: {note}")
    if meta.get("reading_note"):
        console.print(f"warning: {meta['reading_note']}")
    if meta.get("fallbacks"):
        shown = ", ".join(f"{group or 'all'} ({n})" for group, n in sorted(meta["fallbacks"].items()))
        console.print(f"fallback answers (no trained head): {shown}")
    cost = meta.get("cost") or {}
    if cost.get("llm"):
        predict = cost["predict"]
        console.print(f"cost (measured by `baselines llm run`): answering {cost['items']:,} items took "
                      f"{predict['wall_seconds']:,.0f} s wall, {predict['cpu_seconds']:,.0f} s CPU "
                      f"({predict['cpu_seconds_per_1000']:,.0f} CPU-s per 1,000 items); start-up and model loading "
                      f"{cost['startup_seconds']:.0f} s apart; CPU {cost['machine']['cpu']}")
    elif cost.get("predict"):
        predict = cost["predict"]
        console.print(f"cost: predicting {cost['items']:,} items took {predict['wall_seconds']:.2f} s wall, "
                      f"{predict['cpu_seconds']:.2f} s CPU ({predict['cpu_seconds_per_1000']:.2f} CPU-s per 1,000 "
                      f"items{', fitting included' if predict.get('includes_fitting') else ''}{cache_said(predict)}); start-up "
                      f"{cost['startup_seconds']:.1f} s, loading {cost['model_load_seconds'] + cost['data_load_seconds']:.1f}"
                      f" s apart; CPU {cost['machine']['cpu']}")
    elif cost.get("estimate") and cost.get("gpu_seconds_per_1000") is not None:
        console.print(f"cost (estimate): {cost['prompt_tokens_per_item']:,.0f} prompt + {cost['output_tokens_per_item']:,.0f}"
                      f" output tokens per item, {cost['parameters'] / 1e9:.3g}B parameters: about "
                      f"{cost['gpu_seconds_per_1000']:,.0f} A100-seconds per 1,000 items")
    elif cost.get("unavailable"):
        console.print(f"cost (estimate): – ({cost['unavailable']})")
    elif cost.get("estimate"):
        console.print(f"cost (estimate): {cost['prompt_tokens_per_item']:,.0f} prompt + {cost['output_tokens_per_item']:,.0f}"
                      f" output tokens per item; no compute estimate: {cost['parameters_source']}")
    line = overlap_line(meta.get("train_overlap") or {})
    if line:
        console.print(f"{OVERLAP_MARK + ' ' if flag else ''}train overlap: {line}")
    for name, value in meta.get("diagnostics", {}).items():
        shown = ", ".join(f"{k} {_fmt(v)}" for k, v in value.items()) if isinstance(value, dict) else _fmt(value)
        console.print(f"{name.replace('_', ' ')}: {shown}")
    subtasks = task.subtasks
    if result.per_supergroup:
        columns = ("tasks", "n", "mean_task_accuracy", "accuracy")  # "tasks": its groups, as results files say
        _print_rows(f"per {subtasks.supergroup_name}", result.per_supergroup, columns)
    if result.per_group:
        _print_rows(f"per {subtasks.group_name}", result.per_group, ("n", "accuracy", "coverage"), max_rows)
    elif result.per_label:
        shown = {label_as_offered(label, task.aliases): row for label, row in result.per_label.items()}
        _print_rows("per label", shown, ("precision", "recall", "f1", "support"), max_rows)


def cache_said(predict: dict) -> str:
    """"; 2,879 of 2,879 sentence encodings read from the cache" when the on-disk caches served any of the
    prediction's work (its cost is then less than computing it would be)."""
    caches = predict.get("caches") or {}
    parts = [f"{used['served']:,} of {used['served'] + used['computed']:,} {kind} read from the cache"
             for kind, used in sorted(caches.items()) if used["served"]]
    return "; " + ", ".join(parts) if parts else ""


def overlap_line(overlap: dict) -> str | None:
    """The run's overlap with the model's training data in words (None for a method fit on nothing)."""
    if overlap and not overlap.get("checked"):
        return f"not checked by content ({overlap.get('reason', 'no digests')})"
    if overlap.get("out_of_fold"):
        return "none: out of fold (--cv)"
    if not overlap.get("train_items"):
        return None
    same = (f"{overlap['overlapping']} scored items are whole items it was fit on" if overlap.get("overlapping") else
            f"no scored item is a whole item of the {overlap['train_items']} it was fit on")
    if "overlap" not in overlap:
        return f"{same}; {overlap.get('note', '')}".rstrip("; ")
    limit = "past" if overlap.get("over_limit") else "within"
    allowed = ", written with --allow-overlap" if overlap.get("allowed") else ""
    return f"{describe(overlap)} ({limit} the {overlap['threshold']:.0%} limit{allowed}); {same}"


def _overlap_cells(overlap: dict) -> tuple[str, str]:
    """The value and the note of the summary's overlap row, for a run written past the limit."""
    if "overlap" in overlap:
        return f"{overlap['overlap']:.4f}", f"of {overlap['units']}, past the {overlap['threshold']:.0%} limit"
    if overlap.get("overlapping"):
        return str(overlap["overlapping"]), "scored items it was fit on"
    return "–", "scored on the split it was fit on"


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


def shortened(text: str, max_chars: int) -> str:
    """`text` cut before `max_chars` at the end of a word, with "…" (a single word longer than that is cut)."""
    if len(text) <= max_chars:
        return text
    cut = text.rfind(" ", 0, max_chars)
    return (text[:cut] if cut > max_chars // 2 else text[:max_chars - 1]).rstrip(" ,;:") + "…"


def print_predictions(rows: list[dict], max_chars: int = 90) -> None:
    """A readable table: sentence number, label, its probability and the sentence."""
    table = Table(title=f"{len(rows)} sentences", title_justify="left")
    for column, justify in (("#", "right"), ("label", "left"), ("p", "right"), ("sentence", "left")):
        table.add_column(column, justify=justify, overflow="ellipsis", no_wrap=column == "sentence")
    for k, row in enumerate(rows):
        shown = shortened(" ".join(row["text"].split()), max_chars)
        p = row.get("probabilities", {}).get(row["label"])
        table.add_row(str(k + 1), row["label"], f"{p:.2f}" if p is not None else "", shown)
    console.print(table)
