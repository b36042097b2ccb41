"""The headline of one benchmark: the best of our methods against each LLM run on the same items, paired.

Each LLM run is compared with our best run on the items both were scored on (the ids `compare` pairs them on),
so an LLM run that covers part of the references is set against ours on that part, and ours on every item is
given beside it. Published figures of LLMs without a run here follow, marked as not run here. For a grouped task
that names a plain method of ours (PublishedFigures.headline_versus), a table per group sets our best against it,
paired on each group's items, beside the best LLM run.
"""
from __future__ import annotations

import numpy as np

from baselines.comparison.leaderboard import Comparison
from baselines.comparison.outcomes import outcomes_on
from baselines.comparison.paired import Paired, paired_stats, shared_ids
from baselines.comparison.published import RECOUNTED_LEGEND, Published
from baselines.comparison.cost import (COST_COLUMN, DOLLARS_COLUMN, cost_legend, dollars_cell, published_cost_cell,
                                      published_dollars_cell, ratio_sentences, seconds_cell)
from baselines.comparison.markdown import md_table
from baselines.comparison.render import _pct, _pts, reproduce_lines
from baselines.comparison.systems import System
from baselines.evaluation import metrics as M
from baselines.evaluation.strict_reading import strictly
from baselines.registry import LmEvalExport, Task


STRICT_LEGEND = ("(strict N): the figure when only explicit answers count (a final-answer statement, \"the answer "
                 "is\", a boxed or bare label), beside the figure as scored; the difference rests on lenient "
                 "reading of the generations.")


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
    llm_rows = _run_rows(task, comparison, ours)
    content = content_only(task, comparison, ours)
    rows = ([_ours_row(task, ours)] if ours is not None else []) + ([_content_row(task, comparison, content)] if
                                                                     content is not None else []) \
        + llm_rows + _published_rows(comparison, published)
    if rows:
        versus = ours.name if ours is not None else "ours"
        columns = ["system", "items", f"{task.main_metric} %", f"{versus} on the same items %",
                   f"Δ vs {versus} (points)", "Δ 95% CI", COST_COLUMN, DOLLARS_COLUMN]
        strict = [s.name for s in _llms(comparison) if s.strict_value is not None]
        recounted = any(f.published_value is not None for f in _shown_figures(comparison, published))
        lines += ["" if ours is None else None, *md_table(columns, rows), "",
                  *([STRICT_LEGEND, ""] if strict else []), *([RECOUNTED_LEGEND, ""] if recounted else []),
                  cost_legend([*([ours] if ours else []), *_llms(comparison)], how="how: the docs' cost page")]
        lines = [line for line in lines if line is not None]
    if content is not None:
        lines += ["", f"{ours.name} exploits how the benchmark's items were built; {content.name}, our best run that "
                      "does not (content-only), is the fairer yardstick of what reading the text is worth."]
    if not llm_rows:
        lines += ["", "No LLM run yet."]
    found = ratio_sentences(comparison, ours)
    lines += ["", "Cost: " + " ".join(found)] if found else []
    lines += _reproduce(comparison, ours, command)
    figures = _shown_figures(comparison, published)
    sources = dict.fromkeys(figure.source or published.source for figure in figures)
    if sources:
        lines += ["", f"Published figures: {'; '.join(sources)}."]
    if any(figure.tokens_per_item for figure in figures):
        lines += ["", "A published figure's cost is estimated like a run's, from the tokens per item its figures file "
                      "states and the documented parameter count; – where the maker publishes no count."]
    plain = _plain(task, comparison, ours)
    if plain is not None:
        lines += ["", f"Per {task.subtasks.group_name}, {ours.name} against {plain.name} "
                      f"and the best LLM run: the {task.name} results page."]
    if task.capability(LmEvalExport) is not None:
        lines += ["", f"Your LLM on the same items: `baselines export lm-eval {task.name} --out "
                      f"FILES/lmeval-{task.name} --data-dir DATA`, run lm-evaluation-harness as "
                      f"`FILES/lmeval-{task.name}/README.md` says, then `baselines score {task.name} "
                      f"FILES/harness-output --name my-llm --data-dir DATA`."]
    if published is not None and published.headline_note:
        lines += ["", published.headline_note]
    return lines + [""]


def _llms(comparison: Comparison | None) -> list[System]:
    return [s for s in comparison.systems if s.producer == "llm"] if comparison else []


def _ours_row(task: Task, ours: System) -> list[str]:
    low, high = ours.figures["interval"]
    interval = f" [{_pct(low)}, {_pct(high)}]" if low is not None else ""
    return [f"**{ours.name}** (ours, best)", f"all {ours.figures['n']}{_groups_of(task, ours.group)}",
            f"{_pct(ours.value)}{interval}", "–", "reference", "", seconds_cell(ours), dollars_cell(ours)]


def content_only(task: Task, comparison: Comparison | None, ours: System | None) -> System | None:
    """Our best run that does not exploit how the items were built, when our best does (None otherwise)."""
    built = set(task.published.construction_systems)
    if ours is None or not built or _folder(ours) not in built:
        return None
    fair = [s for s in comparison.systems if s.producer == "ours" and _folder(s) not in built and not s.partial
            and not s.overlap_note and len(s.ids) == len(ours.ids)]
    return max(fair, key=lambda s: s.value, default=None)


def _folder(system: System) -> str:
    """The system's own name (its run folder), without what the view adds ("learned (cv5)" is learned)."""
    return system.path.parent.parent.name


def _content_row(task: Task, comparison: Comparison, content: System) -> list[str]:
    low, high = content.figures["interval"]
    interval = f" [{_pct(low)}, {_pct(high)}]" if low is not None else ""
    paired = comparison.paired.get(content.name)
    difference, spread = ("–", "–") if paired is None or paired.difference is None else (
        _pts(paired.difference), f"[{_pts(paired.interval[0])}, {_pts(paired.interval[1])}]")
    return [f"**{content.name}** (ours, best content-only)", f"all {content.figures['n']}{_groups_of(task, content.group)}",
            f"{_pct(content.value)}{interval}", "–", difference, spread, seconds_cell(content),
            dollars_cell(content)]


def _reproduce(comparison: Comparison | None, ours: System | None, command) -> list[str]:
    content = content_only(comparison.task, comparison, ours) if comparison is not None else None
    runs = ([ours] if ours is not None else []) + ([content] if content is not None else []) + _llms(comparison)
    lines = reproduce_lines([(s.name, s) for s in runs], command)
    return ["", "Reproduce:", "", *lines] if lines else []


def best_ours(comparison: Comparison | None) -> System | None:
    """Our best run on every reference: the reference `compare` chooses by default, when it is one of ours."""
    if comparison is None:
        return None
    reference = comparison.reference
    return None if reference.external or reference.partial or reference.overlap_note else reference


def _run_rows(task: Task, comparison: Comparison | None, ours: System | None) -> list[list[str]]:
    """One row per LLM run: its figure and ours on the items both were scored on, the paired difference, its cost."""
    rows = []
    for system in _llms(comparison):
        paired = comparison.paired.get(system.name) if ours is not None else None
        if paired is None or paired.difference is None:
            strict = _strict_note(system.value, system.strict_value)
            rows.append([f"{system.name} (LLM)", f"{system.figures['n']}{_groups_of(task, system.group)}",
                         _pct(system.value) + strict, "–", "–", "–", seconds_cell(system), dollars_cell(system)])
            continue
        shared = shared_ids(task, ours, system)
        ours_out, llm_out = outcomes_on(task, [ours, system], shared)
        value = M.point(task.main_metric, llm_out)
        strict = M.point(task.main_metric, strictly(llm_out, system.take(shared)["strict"]))
        low, high = paired.interval
        interval = f"[{_pts(low)}, {_pts(high)}]" if low is not None else "none (one unit)"
        items = f"{len(shared)} of {ours.figures['n']}{_shared_groups(task, ours, shared)}"
        rows.append([f"{system.name} (LLM)", items, _pct(value) + _strict_note(value, strict),
                     _pct(M.point(task.main_metric, ours_out)), _pts(paired.difference), interval,
                     seconds_cell(system), dollars_cell(system)])
    return rows


def _strict_note(value: float, strict: float | None) -> str:
    """" (strict 71.2)" where the strict reading gives another figure, else nothing."""
    return f" (strict {_pct(strict)})" if strict is not None and _pct(strict) != _pct(value) else ""


def _shown_figures(comparison: Comparison | None, published: Published | None) -> list:
    """Published figures of systems that have no run here: the LLMs', and those marked for the headline."""
    if published is None:
        return []
    run = {name.lower() for s in (comparison.systems if comparison else [])
           for name in (s.name, s.path.parent.parent.name)}
    return [figure for figure in published.figures
            if (figure.producer == "llm" or figure.headline) and figure.system.lower() not in run]


def _published_rows(comparison: Comparison | None, published: Published | None) -> list[list[str]]:
    """The published figures shown, with the items they were computed on (not run here: no Δ, no cost)."""
    return [[f"{figure.system} ({'LLM, ' if figure.producer == 'llm' else ''}published)"
             + (f": {'; '.join(part for part in (figure.note, figure.short_basis_note()) if part)}"
                if figure.note or figure.short_basis_note() else ""),
             f"not run here: {figure.items or published.items}", f"{figure.value:.1f}", "–", "–", "–",
             published_cost_cell(figure.system, figure.tokens_per_item),
             published_dollars_cell(figure.system, figure.tokens_per_item)]
            for figure in _shown_figures(comparison, published)]


def _groups_of(task: Task, group: np.ndarray) -> str:
    return f" ({len(np.unique(group))} {task.subtasks.group_name}s)" if task.grouped else ""


def _shared_groups(task: Task, ours: System, shared: np.ndarray) -> str:
    if not task.grouped:
        return ""
    within = len(np.unique(ours.group[np.isin(ours.ids, shared)]))
    return f" ({within} of {len(np.unique(ours.group))} {task.subtasks.group_name}s)"


def per_group_section(task: Task, comparison: Comparison | None, ours: System | None) -> list[str]:
    """Our best against the task's plain method on each group (paired Δ on the group's items), beside the best
    LLM run; then the means over all groups and over the groups that LLM covers. Nothing when the task names no
    plain method, the plain method has no run on every reference, or it is itself our best."""
    plain = _plain(task, comparison, ours)
    if plain is None:
        return []
    llm, covered = _best_llm(task, comparison, ours)
    with_llm = f" and the best LLM run, **{llm.name}**" if llm else ""
    columns = [task.subtasks.group_name, "n", f"{ours.name} %", f"{plain.name} %", f"Δ {ours.name} − {plain.name} (points)",
               "Δ 95% CI", *([f"{llm.name} %"] if llm else [])]
    rows = [_group_row(task, comparison, ours, plain, llm, group) for group in sorted(ours.figures["per_group"])]
    rows.append(_row(f"mean over all {len(rows)} {task.subtasks.group_name}s", ours.figures["n"], ours.value,
                     plain.value, _ours_minus(comparison.paired[plain.name]), None if llm is None else "–"))
    if llm is not None:
        rows.append(_covered_row(task, comparison, ours, plain, llm, covered))
    return ["", f"Per {task.subtasks.group_name}: **{ours.name}** against **{plain.name}** (paired Δ on each "
                f"{task.subtasks.group_name}'s items){with_llm}:", "", *md_table(columns, rows), "",
            f"Δ = {ours.name} − {plain.name} on the same items; 95% interval of a paired bootstrap over items "
            f"({comparison.replicates} replicates, within each {task.subtasks.group_name} in the means); a mean is over "
            f"{task.subtasks.group_name}s of each {task.subtasks.group_name}'s accuracy."]


def _plain(task: Task, comparison: Comparison | None, ours: System | None) -> System | None:
    """The run of the plain method the headline sets our best against (its plain variant first), or None."""
    name = task.published.headline_versus
    if not (task.grouped and name and ours is not None) or ours.path.parent.parent.name == name:
        return None
    runs = [s for s in comparison.systems if not s.external and not s.partial and s.name in comparison.paired]
    return (next((s for s in runs if s.name == name), None)
            or next((s for s in runs if s.path.parent.parent.name == name), None))


def _best_llm(task: Task, comparison: Comparison, ours: System) -> tuple[System | None, np.ndarray | None]:
    """The LLM run with the highest main metric on the items it shares with ours (ties: by name), and those ids."""
    scored = []
    for system in (s for s in comparison.systems if s.producer == "llm" and s.name in comparison.paired):
        shared = shared_ids(task, ours, system)
        value = M.point(task.main_metric, outcomes_on(task, [system], shared)[0])
        scored.append((-value, system.name, system, shared))
    return tuple(min(scored, key=lambda row: row[:2])[2:]) if scored else (None, None)


def _group_row(task: Task, comparison: Comparison, ours: System, plain: System, llm: System | None,
               group: str) -> list[str]:
    ids = ours.ids[ours.group == group]
    paired = paired_stats(task, outcomes_on(task, [ours, plain], ids), comparison.replicates, comparison.seed)[0]
    llm_cell = None if llm is None else _pct(llm.figures["per_group"].get(group, {}).get("accuracy"))
    return _row(group, len(ids), ours.figures["per_group"][group]["accuracy"],
                plain.figures["per_group"][group]["accuracy"], _ours_minus(paired), llm_cell)


def _covered_row(task: Task, comparison: Comparison, ours: System, plain: System, llm: System,
                 covered: np.ndarray) -> list[str]:
    """The means over the groups the LLM covers, all three on the items it was scored on."""
    outs = outcomes_on(task, [ours, plain, llm], covered)
    paired = paired_stats(task, outs[:2], comparison.replicates, comparison.seed)[0]
    within = len(np.unique(ours.group[np.isin(ours.ids, covered)]))
    ours_value, plain_value, llm_value = (M.point(task.main_metric, out) for out in outs)
    return _row(f"mean over the {within} {task.subtasks.group_name}s {llm.name} covers", len(covered), ours_value,
                plain_value, _ours_minus(paired), _pct(llm_value))


def _row(label: str, n: int, ours_value: float, plain_value: float,
              difference: tuple[float, float | None, float | None], llm_cell: str | None) -> list[str]:
    delta, low, high = difference
    interval = f"[{_pts(low)}, {_pts(high)}]" if low is not None else "none (one unit)"
    return [label, str(n), _pct(ours_value), _pct(plain_value), _pts(delta), interval,
            *([llm_cell] if llm_cell is not None else [])]


def _ours_minus(paired: Paired) -> tuple[float, float | None, float | None]:
    """Our best − the plain method, from the plain method's paired figures against our best (plain − ours);
    + 0.0 turns a negated zero into 0.0, so no "-0.0" is shown."""
    low, high = paired.interval
    return -paired.difference + 0.0, None if high is None else -high + 0.0, None if low is None else -low + 0.0
