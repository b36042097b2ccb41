"""The headline of one benchmark: the best of our methods against each LLM run on the same items, paired.

Each LLM run is compared with our best run on the items both were scored on (the ids `compare` pairs them on),
so an LLM run that covers part of the references is set against ours on that part, and ours on every item is
given beside it. Published figures of LLMs without a run here follow, marked as not run here.
"""
from __future__ import annotations

import numpy as np

from baselines.comparison.leaderboard import Comparison
from baselines.comparison.paired import outcomes_on, shared_ids
from baselines.comparison.published import Published
from baselines.comparison.render import _md_table, _pct, _pts
from baselines.comparison.systems import System
from baselines.evaluation import metrics as M
from baselines.registry import Task


def headline_section(task: Task, comparison: Comparison | None, published: Published | None,
                     command) -> list[str]:
    """Markdown lines of one benchmark's headline (`comparison`: its runs on the eval split, None without runs;
    `command`: System -> the command shown)."""
    split = comparison.split if comparison else task.eval_split
    lines = [f"### {task.name} ({split}): {task.main_metric}", ""]
    ours = best_ours(comparison)
    if ours is None:
        train = f"`baselines train {task.name} --data-dir DATA`, then " if task.train_split else ""
        lines.append(f"No run of ours yet: {train}`baselines eval {task.name} --data-dir DATA` puts one here.")
    else:
        low, high = ours.figures["interval"]
        interval = f"[{_pct(low)}, {_pct(high)}]" if low is not None else "(no interval: one resampling unit)"
        lines.append(f"Best of ours: **{ours.name}**, {_pct(ours.value)} {interval} on all {ours.figures['n']} "
                     f"items{_groups_of(task, ours.group)}: `{command(ours)}`")
    rows = _run_rows(task, comparison, ours, command) + _published_rows(comparison, published)
    main = f"{task.main_metric} %"
    if rows:
        versus = ours.name if ours is not None else "ours"
        columns = ["system", "producer", "items", main, f"{versus} on the same items %",
                   f"Δ vs {versus} (points)", "Δ 95% CI", "command"]
        lines += ["", *_md_table(columns, rows)]
    else:
        lines += ["", "No LLM figure yet."]
    if published is not None and any(row[1].startswith("llm, published") for row in rows):
        lines += ["", f"Published figures: {published.source}."]
    if task.export is not None:
        lines += ["", f"Your LLM on the same items: `baselines export lm-eval {task.name} --out "
                      f"FILES/lmeval-{task.name} --data-dir DATA`, run lm-evaluation-harness as "
                      f"`FILES/lmeval-{task.name}/README.md` says, then `baselines score {task.name} "
                      f"FILES/harness-output --name my-llm --data-dir DATA`."]
    if published is not None and published.headline_note:
        lines += ["", published.headline_note]
    return lines + [""]


def best_ours(comparison: Comparison | None) -> System | None:
    """Our best run on every reference: the reference `compare` chooses by default, when it is one of ours."""
    if comparison is None:
        return None
    reference = comparison.reference
    return None if reference.external or reference.partial else reference


def _run_rows(task: Task, comparison: Comparison | None, ours: System | None, command) -> list[list[str]]:
    """One row per LLM run: its figure and ours on the items both were scored on, and the paired difference."""
    if comparison is None:
        return []
    rows = []
    for system in (s for s in comparison.systems if s.producer == "llm"):
        paired = comparison.paired.get(system.name) if ours is not None else None
        if paired is None:
            rows.append([system.name, "llm", f"{system.figures['n']}{_groups_of(task, system.group)}",
                         _pct(system.value), "–", "–", "–", f"`{command(system)}`"])
            continue
        shared = shared_ids(task, ours, system)
        ours_out, llm_out = outcomes_on(task, [ours, system], shared)
        low, high = paired.interval
        interval = f"[{_pts(low)}, {_pts(high)}]" if low is not None else "none (one unit)"
        items = f"{len(shared)} of {ours.figures['n']}{_shared_groups(task, ours, shared)}"
        rows.append([system.name, "llm", items, _pct(M.point(task.main_metric, llm_out)),
                     _pct(M.point(task.main_metric, ours_out)), _pts(paired.difference), interval,
                     f"`{command(system)}`"])
    return rows


def _published_rows(comparison: Comparison | None, published: Published | None) -> list[list[str]]:
    """Published LLM figures of systems that have no run here."""
    if published is None:
        return []
    run = {name.lower() for s in (comparison.systems if comparison else [])
           for name in (s.name, s.path.parent.parent.name)}
    return [[figure.system + (f" ({figure.note})" if figure.note else ""), "llm, published",
             f"not run here: {published.items}", f"{figure.value:.1f}", "–", "–", "–",
             f"`{figure.command}`" if figure.command else ""]
            for figure in published.figures if figure.producer == "llm" and figure.system.lower() not in run]


def _groups_of(task: Task, group: np.ndarray) -> str:
    return f" ({len(np.unique(group))} {task.group_name}s)" if task.grouped else ""


def _shared_groups(task: Task, ours: System, shared: np.ndarray) -> str:
    if not task.grouped:
        return ""
    within = len(np.unique(ours.group[np.isin(ours.ids, shared)]))
    return f" ({within} of {len(np.unique(ours.group))} {task.group_name}s)"
