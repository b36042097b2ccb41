"""Terminal summaries of results (rich tables)."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table

from baselines.core.labels import label_as_offered
from baselines.evaluation.scoring import Result, skipped_count
from baselines.runs.overlap import OVERLAP_MARK, describe, overlap_note
from baselines.registry import ItemsFromPredictions, get_task

console = Console()


def tokens_said(cost: dict) -> str:
    """'1,402 prompt + 2,110 output tokens per item (2,050 reasoning, 0 cached; from the file's usage)'."""
    parts = [f"{cost[name]:,.0f} {what}" for name, what in (("reasoning_tokens_per_item", "reasoning"),
                                                          ("cached_tokens_per_item", "cached"))
             if cost.get(name) is not None]
    from baselines.runs.llm_cost import basis_said

    basis = basis_said(cost.get("basis", "default"))
    return (f"{cost['prompt_tokens_per_item']:,.0f} prompt + {cost['output_tokens_per_item']:,.0f} output tokens per "
            f"item ({', '.join([*parts, basis])})")


def price_said(result: Result) -> str:
    """'price: $0.065 per 1,000 items, $0.00013 per correct answer (vCPU-hour rate of 2025-01-15)', or why none."""
    from baselines.runs.prices import correct_answers, dollars, money

    meta = result.meta
    priced = dollars(meta.get("cost"), result.system, correct_answers(result.metrics.get("accuracy"), result.n),
                     bool(meta.get("batch")))
    if isinstance(priced, str):
        return f"price: {priced}"
    shown = priced.correct_cell().lstrip("≈")
    correct = "" if shown == "–" else ", no correct answer" if priced.correct == 0 else f", {shown} per correct answer"
    basis = {"tokens": "token prices", "tokens of the measured run": "token prices, on the tokens estimated for "
             "the run measured here,", "vCPU-hour": "vCPU-hour rate", "A100-hour": "A100-hour rate"}[priced.basis]
    return (f"price{' (estimate)' if priced.estimate else ''}: {money(priced.per_1000)} per 1,000 items{correct} "
            f"({basis} of {priced.date or 'no date'}{', batch discount' if priced.batch else ''})")


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
    for row in count_rows(result, task):
        table.add_row(*row, "")
    meta = result.meta
    console.print(table)
    for note in meta.get("data_notes", []):
        console.print(f"data: {note}")
    if meta.get("reading_note"):
        console.print(f"warning: {meta['reading_note']}")
    if meta.get("fallbacks"):
        shown = ", ".join(f"{group or 'all'} ({n})" for group, n in sorted(meta["fallbacks"].items()))
        console.print(f"fallback answers (no trained head): {shown}")
    cost = meta.get("cost") or {}
    for line in cost_lines(cost):
        console.print(line)
    if cost:
        console.print(price_said(result))
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


def count_rows(result: Result, task) -> list[tuple[str, str]]:
    """The summary's rows under the metrics: n, coverage, the strict reading, truncated generations, tool calls,
    refusals, missing references, the share of all items answered, the run's wall seconds and memory."""
    rows = [("n", str(result.n)), ("coverage (scored items answered)", f"{result.coverage:.4f}")]
    if result.strict is not None:  # raw generations: the main metric when only explicit answers count
        rows.append((f"{result.main_metric}, strict reading", f"{result.strict[result.main_metric]:.4f}"))
    if result.truncated:
        rows.append(("truncated generations", str(result.truncated)))
    if result.numbering_unknown:  # "Option 4": the fourth letter, or LegalBench's 4?
        rows.append(("bare numbers, numbering unknown (not read: pass --numbering legalbench|letters)",
                     str(result.numbering_unknown)))
    batch = result.meta.get("batch") or {}
    if batch.get("tool_calls"):
        rows.append(("answers read from tool calls", str(batch["tool_calls"])))
    if batch.get("refusals"):
        rows.append(("refusals (no answer)", str(batch["refusals"])))
    rows += [(label, str(count)) for label, count in missing_rows(result)]
    skipped = skipped_count(result.missing, result.missing_policy, result.failed)
    if skipped and task.capability(ItemsFromPredictions) is None:
        answered = round(result.coverage * result.n)  # the figures above are on the kept items only
        rows.append(("all items answered", f"{answered / (result.n + skipped):.4f}"))
    meta = result.meta
    if "wall_seconds" in meta:
        rows.append(("wall s (process)", f"{meta['wall_seconds']:.1f} ({meta.get('process_wall_seconds', 0):.1f})"))
        rows.append(("peak MiB", f"{meta['peak_memory_mib']:.0f}"))
    return rows


def cost_lines(cost: dict) -> list[str]:
    """The summary's lines on the run's cost: a record beside the logs not used (and why), then the cost measured
    by `baselines llm run`, measured in the run, or estimated."""
    lines = [f"warning: {cost['measured_record_not_used']}"] if cost.get("measured_record_not_used") else []
    predict = cost.get("predict") or {}
    if cost.get("llm"):
        lines.append(f"cost (measured by `baselines llm run`): answering {cost['items']:,} items took "
                     f"{predict['wall_seconds']:,.0f} s wall, {predict['cpu_seconds']:,.0f} s CPU "
                     f"({predict['cpu_seconds_per_1000']:,.0f} CPU-s per 1,000 items); start-up and model loading "
                     f"{cost['startup_seconds']:.0f} s apart; CPU {cost['machine']['cpu']}")
    elif predict:
        lines.append(f"cost: predicting {cost['items']:,} items took {predict['wall_seconds']:.2f} s wall, "
                     f"{predict['cpu_seconds']:.2f} s CPU ({predict['cpu_seconds_per_1000']:.2f} CPU-s per 1,000 "
                     f"items{', fitting included' if predict.get('includes_fitting') else ''}{cache_said(predict)}); "
                     f"start-up {cost['startup_seconds']:.1f} s, loading "
                     f"{cost['model_load_seconds'] + cost['data_load_seconds']:.1f} s apart; CPU {cost['machine']['cpu']}")
    elif cost.get("estimate") and cost.get("gpu_seconds_per_1000") is not None:
        lines.append(f"cost (estimate): {tokens_said(cost)}, {cost['parameters'] / 1e9:.3g}B parameters: about "
                     f"{cost['gpu_seconds_per_1000']:,.0f} A100-seconds per 1,000 items")
    elif cost.get("unavailable"):
        lines.append(f"cost (estimate): – ({cost['unavailable']})")
    elif cost.get("estimate"):
        lines.append(f"cost (estimate): {tokens_said(cost)}; no compute estimate: {cost['parameters_source']}")
    return lines


def missing_rows(result: Result) -> list[tuple[str, int]]:
    """The summary's rows of references without a prediction: the failed requests (a batch file's errored lines)
    apart from the items never sent, each with how it was counted (wrong or skipped)."""
    policy, failed = result.missing_policy, result.failed
    unsent = result.missing - failed
    counted = {"wrong": ("wrong", "wrong"), "skip": ("skipped", "skipped"), "failed-wrong": ("wrong", "skipped")}
    as_failed, as_unsent = counted.get(policy, (policy, policy))
    rows = [(f"failed requests ({as_failed})", failed)] if failed else []
    if unsent:
        rows.append((f"{'never sent' if failed or policy == 'failed-wrong' else 'missing'} ({as_unsent})", unsent))
    return rows


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
