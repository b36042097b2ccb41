"""Every results page and every headline figure, regenerated from the runs (`baselines compare --all --out DIR`).

DIR receives one Markdown page per task (a leaderboard per set of runs that pair: the evaluation split, each
other split or test file, and end-to-end runs, each with its breakdown tables and chart), `headline.md` (per
benchmark, our best run against each LLM run on the same items, and published LLM figures marked as not run
here) and `index.md` (what the placeholders in the commands stand for). With `readme`, the block between the
HEADLINE_START and HEADLINE_END lines of that file is replaced by the headline, so no figure there is typed by
hand. DIR also receives `compare_manifest.json`, the files compare wrote there: only those are ever replaced
(pages of an earlier release are known by their "Generated from the runs" line), so a file of anyone else's, a
link or a device in DIR is refused before anything is written. No runs at all is an error, and so is a task
without runs whose page shows runs: a mistyped --results-dir never blanks a page. The same runs give
byte-identical files: no time, no folder of the machine (commands show placeholders, see placeholders.py), and
every figure comes from `compare`, seeded.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from baselines.comparison.charts import cost_png, interval_png, scatter_png
from baselines.comparison.cost import ratio_sentences
from baselines.comparison.headline import best_ours, per_group_section
from baselines.comparison.headline_page import (GENERATED, WIDE, checked_readme, headline, headline_page, index_page,
                                                  kept_sections, with_headline)
from baselines.comparison.leaderboard import Comparison, compare
from baselines.comparison.placeholders import public_command
from baselines.comparison.published import Published, published_figures
from baselines.comparison.markdown import md_table, to_markdown
from baselines.comparison.render import COMPARE_MANIFEST, PARTIAL, recorded_command
from baselines.comparison.systems import System
from baselines.core import progress
from baselines.core.errors import BaselinesError, DataError
from baselines.core.io import read_json, writable_target
from baselines.core.params import check_option
from baselines.core.safe_write import check_output, write_output_folder
from baselines.core.paths import results_root
from baselines.registry import TASKS, Subtasks, Task
from baselines.runs.results_store import Variant, run_files

NO_RUNS = "No runs yet:"  # the page of a task without runs says so


@dataclass(frozen=True)
class View:
    """One set of runs compared together: a split or a test file, on gold input or end to end."""

    split: str | None
    test_file: str | None = None
    end_to_end: bool = False

    def slug(self) -> str:
        where = self.split or f"file-{Path(self.test_file or 'x').stem}"
        return f"{where}-e2e" if self.end_to_end else where

    def title(self) -> str:
        where = self.split or f"test file {self.test_file}"
        return where + (", end to end (raw text cut by a segmenter; runs on gold input beside them)"
                        if self.end_to_end else "")


def shown_command(system: System) -> str:
    """The command of a system's run as the pages show it: placeholders for every folder."""
    return public_command(recorded_command(system), system.result.get("meta", {}).get("data"))


def views(task: Task, results_dir=None) -> list[View]:
    """The sets of runs a task's page shows: its evaluation split first, end-to-end runs after their split, then
    the other splits and the test files (an unreadable results file is left to `compare` to name)."""
    found = set()
    for path in run_files(task.name, results_dir):
        try:
            variant = Variant.from_dict(read_json(path).get("variant") or {})
        except (DataError, AttributeError, TypeError):
            continue
        found.add(View(variant.split, variant.test_file, bool(variant.segmenter)))
    return sorted(found, key=lambda v: (v.test_file is not None, v.split != task.eval_split, v.split or "",
                                        v.test_file or "", v.end_to_end))


def task_page(task: Task, results_dir, replicates: int, seed: int,
              task_views: list[View]) -> tuple[str, dict[str, bytes], Comparison | None]:
    """The task's page, its charts (file name -> PNG) and the comparison of its evaluation split (None: no runs);
    `task_views`: its views (`views`)."""
    root = results_root(results_dir)
    lines = [WIDE, f"# {task.name}: results", "", f"{task.description}.", "", GENERATED + " Commands name folders by "
             "[placeholders](index.md#placeholders); a method that learns is trained first, with the same "
             "`--method`, `--config`, `--set` and `--name` as the `eval` shown.", ""]
    charts, main, shown = {}, None, {}
    for view in task_views:
        comparison = compare(task.name, results_dir, split=view.split, test_file=view.test_file,
                             segmenter="any" if view.end_to_end else None, replicates=replicates, seed=seed)
        comparison.notes = [_without_root(note, root) for note in comparison.notes]
        _check_commands(comparison, shown)
        if view == View(task.eval_split):
            main = comparison
        chart = f"{task.name}-{view.slug()}.png"
        charts[chart] = interval_png(comparison, PARTIAL)
        lines += [f"## {view.title()}", "", to_markdown(comparison, shown_command, fold=True, cost_how="[how](../cost.md)"), f"![{task.name}, "
                  f"{view.title()}: each system's {task.main_metric} with its 95% interval]({chart})", ""]
        lines += _cost_chart(task, view, comparison, charts)
        if comparison is main:
            lines += _per_group(task, comparison, charts, view)
    if not charts:
        train = f"`baselines train {task.name} --data-dir DATA`, then " if task.train_split else ""
        lines += [f"{NO_RUNS} {train}`baselines eval {task.name} --data-dir DATA` writes one; then regenerate.", ""]
    lines += _published_section(task, published_figures(task))
    return "\n".join(lines).rstrip() + "\n", charts, main


def _cost_chart(task: Task, view: View, comparison: Comparison, charts: dict[str, bytes]) -> list[str]:
    """The accuracy-against-cost chart (when two runs recorded a cost) and, under it, each LLM's lead and cost ratio."""
    picture = cost_png(comparison)
    if picture is None:
        return []
    name = f"{task.name}-{view.slug()}-cost.png"
    charts[name] = picture
    lines = [f"![{task.name}, {view.title()}: {task.main_metric} against seconds per 1,000 items, log scale, Pareto "
             f"front dashed]({name})", ""]
    return lines + [line for sentence in ratio_sentences(comparison, best_ours(comparison)) for line in (sentence, "")]


def _per_group(task: Task, comparison: Comparison, charts: dict[str, bytes], view: View) -> list[str]:
    """Our best against the plain method per group (beside the best LLM run), and the per-group scatter."""
    lines = per_group_section(task, comparison, best_ours(comparison))
    lines = ["", f"<details markdown><summary>Per {task.capability(Subtasks).group_name}</summary>", *lines, "",
             "</details>", ""] if lines else []
    llms = [s for s in comparison.systems if s.producer == "llm" and s is not comparison.reference]
    if task.grouped and llms:
        scatter = f"{task.name}-{view.slug()}-scatter.png"
        charts[scatter] = scatter_png(comparison, llms[0])
        group = task.capability(Subtasks).group_name
        lines += [f"![{llms[0].name} against {comparison.reference.name}, per {group}]({scatter})", ""]
    return lines


def _check_commands(comparison: Comparison, shown: dict[str, Path]) -> None:
    """Refuse two runs shown with the same command: each row is one run, reproduced by its command."""
    for system in comparison.systems:
        command = shown_command(system)
        first = shown.setdefault(command, system.path)
        if command and first != system.path:
            raise BaselinesError(f"two runs show the same command `{command}`: {first.parent} and "
                                 f"{system.path.parent}; remove one, or give it its own --name")


def _published_section(task: Task, published: Published | None) -> list[str]:
    if published is None:
        return []
    rows = [[figure.system, figure.producer, f"{figure.value:.1f}", figure.items or published.items,
             (figure.source or published.source) + (f" ({figure.source_file})" if figure.source_file else ""),
             "; ".join(part for part in (figure.note, figure.basis_note()) if part)] for figure in published.figures]
    return ["## Published elsewhere (not run here)", "",
            *md_table(["system", "producer", f"{task.main_metric} %", "items", "source", "note"], rows), ""]


def write_all(out: Path, results_dir=None, readme: Path | None = None, replicates: int = 1000,
              seed: int = 0, only: list[str] | None = None) -> list[Path]:
    """Every task's page, its charts, the headline and the index into `out`, and the headline into `readme`;
    with `only` (task names), those tasks' pages and headline sections, the others' kept as they are.

    Nothing is written unless everything can be: no runs at all (an empty or mistyped results folder) is an
    error, and so is a task without runs whose page in `out` shows runs (its page is never blanked: give the
    results folder that holds them, or remove the page first); every file is rendered and every target checked
    (see write_output_folder: no link, device or file of anyone else's in `out`) before the first is written."""
    out = Path(out)
    check_option("replicates", replicates, "--replicates")
    check_option("seed", seed, "--seed")
    check_output(out, folder=True)  # a file, a link to nothing, a folder this user cannot write in
    readme_text = checked_readme(readme)
    tasks = _chosen_tasks(only)
    kept = kept_sections(out, [task.name for task in tasks]) if only else None
    shown = {task.name: views(task, results_dir) for task in tasks}
    _check_runs(shown, out, results_dir)
    files, comparisons = {}, {}
    pages = progress.bar(tasks, desc="results pages", unit="page")
    for task in pages:
        pages.set_postfix_str(task.name)
        page, charts, comparisons[task.name] = task_page(task, results_dir, replicates, seed, shown[task.name])
        files[f"{task.name}.md"] = page.encode()
        files.update(charts)
    body = headline(comparisons, shown_command, kept)
    files["headline.md"] = headline_page(body)
    files["index.md"] = index_page(other_pages(out, files)).encode()
    also = {}
    if readme is not None:
        also[writable_target(readme)] = with_headline(readme_text, body, str(readme)).encode()
    return write_output_folder(out, files, COMPARE_MANIFEST, "baselines compare --all", earlier=earlier_pages(out),
                               also=also)


def other_pages(out: Path, files: dict) -> list[tuple[str, str]]:
    """(file name, title) of the pages in `out` that this command does not write (e.g. `baselines speed
    scale-page`'s), each titled by its first heading."""
    from baselines.core.manifest import read_manifest

    found = []
    ours = {*files, "index.md", "headline.md", *(f"{name}.md" for name in TASKS),
            *(read_manifest(Path(out), COMPARE_MANIFEST) or {} if Path(out).is_dir() else {})}
    for path in sorted(Path(out).glob("*.md")) if Path(out).is_dir() else []:
        if path.name not in ours:
            heading = next((line[2:].strip() for line in path.read_text("utf-8").splitlines()
                            if line.startswith("# ")), path.stem)
            found.append((path.name, heading))
    return found


def _chosen_tasks(only: list[str] | None) -> list[Task]:
    """The tasks to regenerate: all, or those named (each a known task)."""
    if not only:
        return list(TASKS.values())
    unknown = [name for name in only if name not in TASKS]
    if unknown:
        raise BaselinesError(f"--task {unknown[0]}: no such task (tasks: {', '.join(TASKS)})")
    return [task for task in TASKS.values() if task.name in only]


def _check_runs(shown: dict[str, list[View]], out: Path, results_dir) -> None:
    """Refuse to regenerate from no runs at all, or to blank the page of a task whose runs are not there."""
    root = results_root(results_dir)
    if not any(shown.values()):
        raise BaselinesError(f"no runs under {root} (no <task>/<system>/<run>/results.json): check --results-dir "
                             "or BASELINES_RESULTS; nothing written")
    for name, found in shown.items():
        page = out / f"{name}.md"
        if not found and page.is_file() and NO_RUNS not in page.read_text(encoding="utf-8", errors="replace"):
            raise BaselinesError(f"{page} shows runs of {name}, but {root / name} holds no readable run: refusing "
                                 "to blank the page (give the --results-dir that holds them, or remove the page to "
                                 "start it afresh); nothing written")


def earlier_pages(out: Path) -> set[str]:
    """The files of `out` that an earlier `compare --all` wrote before outputs had a manifest: pages that say
    they are generated, and the charts those pages show."""
    names = set()
    for page in sorted(Path(out).glob("*.md")) if Path(out).is_dir() else []:
        if page.is_symlink() or not page.is_file():
            continue
        text = page.read_text(encoding="utf-8", errors="replace")
        if GENERATED in text:
            names |= {page.name, *re.findall(r"\]\(([A-Za-z0-9._-]+\.png)\)", text)}
    return names


def _without_root(text: str, root: Path) -> str:
    """A note with the results folder of this machine written as RESULTS."""
    for folder in (str(root.resolve()), os.path.normpath(str(root))):
        text = text.replace(folder + os.sep, "RESULTS" + os.sep)
    return text
