"""The `baselines` command line: parses arguments, calls baselines.run, prints results."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from .errors import BaselinesError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Non-generative baselines for legal NLP benchmarks, and one evaluator for them and LLMs.")
data_app = typer.Typer(no_args_is_help=True, help="Get benchmark data.")
app.add_typer(data_app, name="data")

DataDir = typer.Option(None, "--data-dir", help="Benchmark data folder (default: $BASELINES_DATA).")
ModelsDir = typer.Option(None, "--models-dir", help="Where model folders and results go (default: $BASELINES_MODELS or ./models).")
Method = typer.Option(None, "--method", "-m", help="Method name (see `baselines ls`); default: the task's default.")
Config = typer.Option(None, "--config", help="YAML config (default: configs/<task>/<method>.yaml).")
Sets = typer.Option(None, "--set", help="Override a config value: key=value (repeatable).")
Encoder = typer.Option(None, "--encoder", help="Sentence encoder: local folder or hub name (default: packaged all-MiniLM-L6-v2).")
Name = typer.Option(None, "--name", help="System name: the folder under models/<task>/ (default: the method).")
Tasks = typer.Option(None, "--tasks", help="CaselawQA: comma-separated subset of task names.")
Missing = typer.Option("error", "--missing", help="References without a prediction: error | wrong | skip.")
OnlyPresent = typer.Option(False, "--only-present", help="Score only the covered ids, reporting coverage (= --missing skip).")


def fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def guarded(function, *args, **kwargs):
    """Run `function`; user-facing errors become one line on stderr and exit code 2."""
    try:
        return function(*args, **kwargs)
    except BaselinesError as exc:
        fail(str(exc))
    except (FileNotFoundError, PermissionError, IsADirectoryError) as exc:
        fail(f"{exc.filename}: {exc.strerror}")


def _overrides(sets, encoder) -> dict:
    from .config import parse_overrides

    overrides = parse_overrides(sets or [])
    if encoder:
        overrides["encoder"] = encoder
    return overrides


def _load_options(tasks: str | None) -> dict:
    return {"tasks": [t.strip() for t in tasks.split(",") if t.strip()]} if tasks else {}


def _default_name(method: str | None, name: str | None, encoder: str | None) -> str | None:
    if name or not encoder:
        return name
    return f"{method}-{Path(encoder).name}" if method else None


@app.command("ls")
def list_all():
    """List tasks, their methods and configs."""
    from .config import config_path
    from .methods import method_names
    from .tasks import TASKS

    for task in TASKS.values():
        typer.echo(f"{task.name}  ({task.kind}; main metric {task.main_metric}; eval split {task.eval_split})")
        typer.echo(f"    {task.description}")
        for method in method_names(task.name):
            path = config_path(task.name, method)
            shown = f"configs/{task.name}/{method}.yaml" if path.is_file() else "defaults"
            default = "  [default]" if method == task.default_method else ""
            typer.echo(f"    - {method:<14} config: {shown}{default}")


@app.command("train")
def train_command(task: str = typer.Argument(..., help="Task name (see `baselines ls`)."),
                  method: Optional[str] = Method, data_dir: Optional[Path] = DataDir,
                  config: Optional[Path] = Config, set_: Optional[List[str]] = Sets,
                  encoder: Optional[str] = Encoder, name: Optional[str] = Name,
                  train_file: Optional[Path] = typer.Option(None, "--train-file", help="Train on this file instead of the train split."),
                  tasks: Optional[str] = Tasks, models_dir: Optional[Path] = ModelsDir,
                  backend: Optional[str] = typer.Option(None, "--backend", help="Per-task jobs: loky | threading | sequential | dask."),
                  scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Dask scheduler for --backend dask, e.g. tcp://HOST:8786.")):
    """Fit a method and save it under models/<task>/<name>/ (`segmenter`: the rr sentence segmenter)."""
    from . import run
    from .tasks import get_task

    if task == "segmenter":
        from .rr_cli import train_segmenter_command

        return train_segmenter_command(data_dir, models_dir)

    method = method or guarded(get_task, task).default_method
    parallel = {key: value for key, value in (("backend", backend), ("scheduler", scheduler)) if value}
    folder = guarded(run.train, task, method, data_dir, config=config, overrides={**_overrides(set_, encoder), **parallel},
                     models_dir=models_dir, name=_default_name(method, name, encoder), train_file=train_file,
                     load_options=_load_options(tasks))
    typer.echo(f"saved {folder}")


@app.command("eval")
def eval_command(task: str = typer.Argument(..., help="Task name (see `baselines ls`)."),
                 method: Optional[str] = Method, data_dir: Optional[Path] = DataDir,
                 split: Optional[str] = typer.Option(None, "--split", help="Split to evaluate (default: the task's)."),
                 test_file: Optional[Path] = typer.Option(None, "--test-file", help="Evaluate on this file instead of a split."),
                 model: Optional[Path] = typer.Option(None, "--model", help="A saved model folder to evaluate."),
                 cv: Optional[int] = typer.Option(None, "--cv", help="K-fold cross-validation over the split's items."),
                 seed: int = typer.Option(0, "--seed", help="Seed of the cross-validation folds (the bootstrap is always seeded with 0)."),
                 config: Optional[Path] = Config, set_: Optional[List[str]] = Sets,
                 encoder: Optional[str] = Encoder, name: Optional[str] = Name, tasks: Optional[str] = Tasks,
                 missing: str = Missing, models_dir: Optional[Path] = ModelsDir, only_present: bool = OnlyPresent,
                 segmenter: Optional[str] = typer.Option(None, "--segmenter", help="rr: score end to end on raw text cut by this segmenter (rule | trained | folder).")):
    """Predict and score a split; writes <split>.predictions.jsonl and <split>.results.json."""
    from . import run

    if task == "segmenter":
        from .rr_cli import eval_segmenter_command

        return eval_segmenter_command(data_dir, split, models_dir)
    if segmenter:
        ignored = [flag for flag, value in (("--test-file", test_file), ("--cv", cv), ("--config", config), ("--set", set_),
                                            ("--encoder", encoder), ("--tasks", tasks), ("--only-present", only_present))
                   if value] + (["--missing"] if missing != "error" else [])
        if task != "rr" or ignored:
            fail("--segmenter is for `baselines eval rr` only" if task != "rr" else
                 f"--segmenter does not go with {', '.join(ignored)}")
        from .rr_cli import eval_end_to_end_command

        return eval_end_to_end_command(method, data_dir, segmenter=segmenter, split=split, model=model,
                                       models_dir=models_dir, name=name, seed=seed)

    missing = "skip" if only_present else missing
    from .tasks import get_task

    method = method or guarded(get_task, task).default_method  # the folder name `train --encoder` chose
    result, folder = guarded(run.evaluate, task, method, data_dir, split=split, test_file=test_file, model=model,
                             config=config, overrides=_overrides(set_, encoder), models_dir=models_dir,
                             name=_default_name(method, name, encoder), cv=cv, seed=seed, missing=missing,
                             load_options=_load_options(tasks))
    from .report import print_result

    print_result(result)
    typer.echo(f"wrote {folder}/{result.split}.results.json")


@app.command("score")
def score_command(task: str = typer.Argument(..., help="Task name."),
                  predictions: Path = typer.Argument(..., help="JSONL of {id, prediction} or {id, raw}, or lm-eval samples."),
                  data_dir: Optional[Path] = DataDir, name: Optional[str] = Name,
                  fmt: str = typer.Option("auto", "--format", help="auto | jsonl | lm-eval"),
                  split: Optional[str] = typer.Option(None, "--split", help="Reference split (default: the task's)."),
                  test_file: Optional[Path] = typer.Option(None, "--test-file", help="References from this file."),
                  tasks: Optional[str] = Tasks, missing: str = Missing, models_dir: Optional[Path] = ModelsDir,
                  id_field: Optional[str] = typer.Option(None, "--id-field", help="lm-eval: doc field holding the item id (default: id, index or idx; doc_id = the harness's position)."),
                  lm_eval_filter: Optional[str] = typer.Option(None, "--lm-eval-filter", help="lm-eval: which filter's responses to score when the log has several."),
                  only_present: bool = OnlyPresent):
    """Score a predictions file (ours or an LLM's raw generations) with the common evaluator."""
    from . import run

    missing = "skip" if only_present else missing
    result, folder = guarded(run.score_file, task, predictions, data_dir, split=split, name=name, fmt=fmt,
                             missing=missing, models_dir=models_dir, test_file=test_file,
                             load_options=_load_options(tasks),
                             lm_eval_options={"id_field": id_field, "filter_name": lm_eval_filter})
    from .report import print_result

    print_result(result)
    typer.echo(f"wrote {folder}/{result.split}.results.json")


@app.command("compare")
def compare_command(task: str = typer.Argument(..., help="Task name."),
                    against: Optional[str] = typer.Option(None, "--against", help="Reference system (default: the best of our methods)."),
                    split: Optional[str] = typer.Option(None, "--split", help="Split whose results to compare (default: the task's)."),
                    out: Optional[Path] = typer.Option(None, "--out", help="Also write Markdown, CSV and PNG files into this folder."),
                    markdown_only: bool = typer.Option(False, "--markdown-only", help="Print Markdown (for the README) instead of terminal tables."),
                    scatter: Optional[str] = typer.Option(None, "--scatter", help="CaselawQA: system plotted per task against the reference (default: the best other)."),
                    replicates: int = typer.Option(1000, "--replicates", help="Paired bootstrap replicates."),
                    seed: int = typer.Option(0, "--seed", help="Seed of the paired bootstrap."),
                    models_dir: Optional[Path] = ModelsDir):
    """Leaderboard of every results file of a task (ours and LLMs), with paired tests against a reference."""
    from . import compare, plots

    report = guarded(compare.compare, task, models_dir, split=split, against=against, replicates=replicates, seed=seed)
    written = guarded(plots.write_report, report, out, scatter) if out else []
    if markdown_only:
        typer.echo(plots.to_markdown(report))
    else:
        plots.print_report(report)
    for path in written:
        typer.echo(f"wrote {path}", err=markdown_only)


@app.command("predict")
def predict_command(task: str = typer.Argument(..., help="Task name (rr)."),
                    file: Path = typer.Argument(..., help="A raw judgment as a UTF-8 text file."),
                    out: Optional[Path] = typer.Option(None, "--out", help="Write the labelled sentences as JSONL."),
                    model: Optional[Path] = typer.Option(None, "--model", help="A saved model folder (default: models/rr/<method>)."),
                    method: Optional[str] = Method,
                    segmenter: Optional[str] = typer.Option(None, "--segmenter", help="rule | trained | folder (default: trained if saved, else rule)."),
                    quiet: bool = typer.Option(False, "--quiet", help="No table."), models_dir: Optional[Path] = ModelsDir):
    """Cut a raw judgment into sentences and label each with its rhetorical role."""
    from .rr_cli import predict_command as run_predict

    run_predict(task, file, out=out, model=model, method=method, segmenter=segmenter, models_dir=models_dir,
                quiet=quiet)


@data_app.command("download")
def download_command(task: str = typer.Argument(..., help="Task name."),
                     dest: Path = typer.Option(Path("data"), "--dest", help="Data folder to fill (then use --data-dir DEST).")):
    """Download a benchmark's official files (needs network access to Hugging Face / GitHub)."""
    from .tasks import get_task

    spec = guarded(get_task, task)
    if spec.download is None:
        fail(f"task {task!r} has no download")
    folder = guarded(spec.download, dest)
    typer.echo(f"downloaded {task} into {folder}; use --data-dir {dest}")


def main() -> None:  # pragma: no cover - console entry
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
