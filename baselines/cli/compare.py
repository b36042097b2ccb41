"""`baselines compare`: the leaderboard of one task's runs, or with --all every task's results page and the
headline; parses and prints, the work is baselines.comparison's."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from baselines.cli.errors import fail, reported
from baselines.cli.options import PricesOption, Quiet, ResultsDir, price_table, task_options
from baselines.core.progress import silenced, stage
from baselines.registry import option_help
from baselines.runs.options import name_list

ALL_HELP = ("Every task at once: one results page per task (every set of runs that pair, with breakdowns and charts), "
            "headline.md and index.md into --out, e.g. docs/results.")
README_HELP = ("With --all: replace the block between the <!-- headline:start --> and <!-- headline:end --> lines "
               "of this file (e.g. README.md) with the headline.")


@reported
def compare_command(task: Optional[str] = typer.Argument(None, help="Task name (none with --all)."),
                    against: Optional[str] = typer.Option(None, "--against", help="Reference system (default: the best of our methods)."),
                    split: Optional[str] = typer.Option(None, "--split", help="Split whose results to compare (default: the task's)."),
                    out: Optional[Path] = typer.Option(None, "--out", help="Also write Markdown, CSV and PNG files into this folder."),
                    markdown_only: bool = typer.Option(False, "--markdown-only", help="Print Markdown (for the README) instead of terminal tables."),
                    scatter: Optional[str] = typer.Option(None, "--scatter", help=option_help("--scatter")),
                    replicates: int = typer.Option(1000, "--replicates", help="Paired bootstrap replicates."),
                    seed: int = typer.Option(0, "--seed", help="Seed of the paired bootstrap."),
                    segmenter: Optional[str] = typer.Option(None, "--segmenter", help="End-to-end runs with this segmenter (any: every run), for tasks scored from raw text."),
                    test_file: Optional[str] = typer.Option(None, "--test-file", help="Runs scored on this test file (its name) instead of a split."),
                    systems: Optional[str] = typer.Option(None, "--systems", help="Only these systems (comma-separated names)."),
                    results_dir: Optional[Path] = ResultsDir,
                    all_tasks: bool = typer.Option(False, "--all", help=ALL_HELP),
                    readme: Optional[Path] = typer.Option(None, "--readme", help=README_HELP),
                    only: Optional[str] = typer.Option(None, "--task", help="With --all: regenerate only these tasks' pages and headline sections (comma-separated); the others are kept as --out holds them."),
                    prices: Optional[Path] = PricesOption,
                    quiet: bool = Quiet):
    """Leaderboard of every results file of a task (ours and LLMs), with paired tests against a reference."""
    from baselines.comparison import leaderboard as compare
    from baselines.comparison import markdown, render, report_files

    from baselines.runs.prices import using

    with using(price_table(prices)):  # a user's price file, over the shipped table
        if (readme is not None or only is not None) and not all_tasks:
            fail(f"{'--readme' if readme is not None else '--task'} goes with --all")
        if all_tasks:
            single = {"TASK": task, "--against": against, "--split": split, "--markdown-only": markdown_only or None,
                      "--scatter": scatter, "--segmenter": segmenter, "--test-file": test_file, "--systems": systems}
            compare_all(out, results_dir, readme, replicates, seed, [name for name, value in single.items() if value],
                        quiet, name_list(only))
            return
        if task is None:
            fail("give a task name (see `baselines ls`), or --all --out DIR for every task")
        task_options(task, scatter=scatter)
        if out:
            from baselines.core.safe_write import check_output

            check_output(out, folder=True)  # refused before the comparison, not after it
        with silenced(quiet), stage(f"comparing the runs of {task} ({replicates} bootstrap replicates)"):
            comparison = compare.compare(task, results_dir, split=split, against=against, replicates=replicates,
                                         seed=seed, segmenter=segmenter, test_file=test_file,
                                         only=name_list(systems))
        written = report_files.write_files(comparison, out, scatter) if out else []
        if markdown_only:
            typer.echo(markdown.to_markdown(comparison))
        else:
            render.print_comparison(comparison)
        for path in written:
            typer.echo(f"wrote {path}", err=markdown_only)


def compare_all(out: Optional[Path], results_dir: Optional[Path], readme: Optional[Path], replicates: int, seed: int,
                given: list[str], quiet: bool = False, only: list[str] | None = None) -> None:
    """`compare --all`: every task's results page, the headline and the charts into --out, the headline into --readme."""
    from baselines.comparison.pages import write_all

    if given:
        fail(f"--all compares every task as it stands; {', '.join(given)} apply to one task only")
    if out is None:
        fail("--all needs --out DIR, the folder of the results pages (e.g. docs/results)")
    from baselines.core.safe_write import check_output

    check_output(out, folder=True)  # refused before the comparisons, not after them
    with silenced(quiet):
        written = write_all(out, results_dir, readme=readme, replicates=replicates, seed=seed, only=only)
    for path in written:
        typer.echo(f"wrote {path}")
