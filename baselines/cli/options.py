"""What several commands share: their common options, and the checks and defaults behind them."""
from __future__ import annotations

import sys
from pathlib import Path

import typer

from baselines.core.errors import BaselinesError
from baselines.registry import KNOWN_TASKS, SpeedTexts, option_help
from baselines.runs.options import load_options
from baselines.runs.options import method_of as method_from  # a named config's method, else the default
from baselines.runs.options import missing_policy as shared_missing_policy
from baselines.runs.options import system_name as default_name

DataDir = typer.Option(None, "--data-dir", help="Benchmark data folder (default: $BASELINES_DATA, else ~/.local/share/legal-baselines).")
Download = typer.Option(False, "--download", help="Fetch the benchmark into the data folder first if it is not there.")
ModelsDir = typer.Option(None, "--models-dir", help="Where fitted model folders go (default: $BASELINES_MODELS or ./models).")
ResultsDir = typer.Option(None, "--results-dir", help="Where eval/score runs go (default: $BASELINES_RESULTS or ./results).")
Force = typer.Option(False, "--force", help="Replace a scored run of the same name and variant.")
Method = typer.Option(None, "--method", "-m", help="Method name (see `baselines ls`); default: the task's default.")
Config = typer.Option(None, "--config", help="A named variant in configs/<task>/ (its name is then the default --name) or a YAML file.")
Sets = typer.Option(None, "--set", help="Override a config value: key=value (repeatable).")
Encoder = typer.Option(None, "--encoder", help="Sentence encoder: local folder (a hub name needs --set encode_backend=torch; default: packaged all-MiniLM-L6-v2).")
Name = typer.Option(None, "--name", help="System name: the folder under models/<task>/ and results/<task>/ (default: the method).")
Subtasks = typer.Option(None, "--subtasks", help=option_help("--subtasks"))
TasksAlias = typer.Option(None, "--tasks", hidden=True, help="Earlier name of --subtasks.")
REMOVED_AFTER = "2027-06-30"  # the hidden earlier names (--tasks, --kind, `baselines benchmark`) go after this date


def earlier_name(old: str, new: str, value):
    """The value given under a hidden earlier name, with a warning on standard error (None: not given)."""
    if value is not None:
        deprecated(old, new)
    return value


def deprecated(old: str, new: str) -> None:
    typer.echo(f"warning: {old} is an earlier name of {new}, kept until {REMOVED_AFTER}: use {new}", err=True)
Missing = typer.Option("error", "--missing", help="References without a prediction: error | wrong (each counts wrong) | skip | failed-wrong (only the failed requests of a batch file count wrong, the others are skipped).")
OnlyPresent = typer.Option(False, "--only-present", help="Score only the ids with a prediction, reporting the share of all items answered (= --missing skip).")
Quiet = typer.Option(False, "--quiet", help="No progress on standard error (shown on a terminal, or with BASELINES_PROGRESS=1).")


def config_overrides(sets, encoder) -> dict:
    """`--set KEY=VALUE` pairs parsed, with `--encoder` among them when given."""
    from baselines.core.config import parse_overrides
    from baselines.runs.requests import with_encoder

    return with_encoder(parse_overrides(sets or []), encoder)


def missing_policy(missing: str, only_present: bool) -> str:
    """--only-present is --missing skip; with another --missing it is a contradiction, refused."""
    return shared_missing_policy(missing, only_present, "--only-present", "--missing {}")


def formats_help() -> str:
    """The generic predictions formats, and each task's own, from the records."""
    from baselines.evaluation.formats import FORMATS

    own = "; ".join(f"{task.name}: {name}, {spec.help}"
                    for task in KNOWN_TASKS.values() for name, spec in task.formats.items())
    return " | ".join(FORMATS) + (f", or a task's own ({own})" if own else "") + "."


def texts_help() -> str:
    """The texts each task offers for the encoder speed test, from the records."""
    from baselines.registry import default_speed_texts

    offered = "; ".join(f"{task.name}: {task.capability(SpeedTexts).help}" for task in KNOWN_TASKS.values()
                        if task.capability(SpeedTexts))
    return f"Whose texts to encode: {offered} (default: {default_speed_texts()})."


def task_options(task: str, **given) -> None:
    """Refuse, before any work, an option that only some tasks take (None: not given) when `task` is not one of
    them, naming the tasks that take it."""
    from baselines.registry import check_options, get_task

    check_options(get_task(task), {"--" + name.replace("_", "-"): value for name, value in given.items()})


def with_data(task: str, download: bool, function, *args, **kwargs):
    """`function(*args, **kwargs)`, fetching a missing benchmark first with --download (or a yes when asked on a terminal)."""
    from baselines.runs.first_run import with_benchmark

    confirm = (lambda question: typer.confirm(question, default=False, err=True)) if sys.stdin.isatty() else None
    return with_benchmark(task, lambda: function(*args, **kwargs), download=download, confirm=confirm)


PricesOption = typer.Option(None, "--prices", help="A price file (YAML, the format of the shipped table, docs/cost.md) whose model prices and compute rates override the shipped ones.")


def price_table(path: Path | None):
    """The price table with the user's file over the shipped one, or None (the shipped table) without --prices."""
    from baselines.runs.prices import with_price_file

    return None if path is None else with_price_file(path)
