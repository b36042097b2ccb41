"""The `baselines` command line: parses arguments, calls baselines.runs.run, prints results."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from baselines.cli.errors import fail, guarded
from baselines.core.errors import BaselinesError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Non-generative baselines for legal NLP benchmarks, and one evaluator for them and LLMs.")
data_app = typer.Typer(no_args_is_help=True, help="Get benchmark data.")
app.add_typer(data_app, name="data")

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
Tasks = typer.Option(None, "--tasks", help="CaselawQA: comma-separated subset of task names.")
Missing = typer.Option("error", "--missing", help="References without a prediction: error | wrong | skip.")
OnlyPresent = typer.Option(False, "--only-present", help="Score only the covered ids, reporting coverage (= --missing skip).")


@app.callback()
def main_options(verbose: bool = typer.Option(False, "--verbose", "-v", help="Log progress details (epochs, folds).")):
    """Non-generative baselines for legal NLP benchmarks, and one evaluator for them and LLMs."""
    import logging

    logging.basicConfig(format="%(asctime)s %(name)s: %(message)s", datefmt="%H:%M:%S")
    logging.getLogger("baselines").setLevel(logging.INFO if verbose else logging.WARNING)


def _overrides(sets, encoder) -> dict:
    from baselines.core.config import parse_overrides

    overrides = parse_overrides(sets or [])
    if encoder:
        overrides["encoder"] = encoder
    return overrides


def _missing_policy(missing: str, only_present: bool) -> str:
    """--only-present is --missing skip; with another --missing it is a contradiction, refused."""
    if only_present and missing not in ("error", "skip"):
        raise BaselinesError(f"--only-present (score the covered ids only) contradicts --missing {missing}: "
                             "give one of them")
    return "skip" if only_present else missing


def _load_options(tasks: str | None) -> dict:
    return {"tasks": [t.strip() for t in tasks.split(",") if t.strip()]} if tasks else {}


def _with_data(task: str, download: bool, function, *args, **kwargs):
    """`function(*args, **kwargs)`, fetching a missing benchmark first with --download (or a yes when asked on a terminal)."""
    from baselines.runs.first_run import with_benchmark

    confirm = (lambda question: typer.confirm(question, default=False, err=True)) if sys.stdin.isatty() else None
    return guarded(with_benchmark, task, lambda: function(*args, **kwargs), download=download, confirm=confirm)


def _default_name(method: str | None, name: str | None, encoder: str | None, config: Path | None = None) -> str | None:
    """The system name when --name is not given: a named config's name (`--config learned-lexical`), and the
    encoder's folder name after it or after the method (`embed-all-mpnet-base-v2`); None: the method's own."""
    if name:
        return name
    named = config is not None and not config.suffix and len(config.parts) == 1
    base = config.name if named else method
    if encoder and base:
        return f"{base}-{Path(encoder).name}"
    return base if named else None


def _method_from(task: str, config: Path | None) -> str:
    """The method a named config belongs to (`--config learned-lexical`: learned), else the task's default."""
    from baselines.core.config import method_of_config
    from baselines.registry import get_task

    return guarded(method_of_config, task, config) or guarded(get_task, task).default_method


@app.command("ls")
def list_all():
    """List tasks, their methods and configs."""
    from baselines.core.config import config_path, config_variants
    from baselines.methods import method_aliases, method_names
    from baselines.registry import TASKS

    for task in TASKS.values():
        typer.echo(f"{task.name}  ({task.kind}; main metric {task.main_metric}; eval split {task.eval_split})")
        typer.echo(f"    {task.description}")
        for method in method_names(task.name):
            path = config_path(task.name, method)
            shown = f"configs/{task.name}/{method}.yaml" if path.is_file() else "defaults"
            default = "  [default]" if method == task.default_method else ""
            aliases = "".join(f"  (alias {alias})" for alias in method_aliases(task.name, method))
            typer.echo(f"    - {method:<14} config: {shown}{default}{aliases}")
            variants = [p.stem for p in config_variants(task.name, method)]
            if variants:
                typer.echo(f"      {'':<14} variants (--config NAME): {', '.join(variants)}")


@app.command("train")
def train_command(task: str = typer.Argument(..., help="Task name (see `baselines ls`)."),
                  method: Optional[str] = Method, data_dir: Optional[Path] = DataDir,
                  config: Optional[Path] = Config, set_: Optional[List[str]] = Sets,
                  encoder: Optional[str] = Encoder, name: Optional[str] = Name,
                  train_file: Optional[Path] = typer.Option(None, "--train-file", help="Train on this file instead of the train split."),
                  tasks: Optional[str] = Tasks, models_dir: Optional[Path] = ModelsDir,
                  backend: Optional[str] = typer.Option(None, "--backend", help="Per-task jobs: loky | threading | sequential | dask."),
                  scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Dask scheduler for --backend dask, e.g. tcp://HOST:8786."),
                  download: bool = Download):
    """Fit a method and save it under models/<task>/<name>/."""
    from baselines.runs import run

    method = method or _method_from(task, config)
    parallel = {key: value for key, value in (("backend", backend), ("scheduler", scheduler)) if value}
    folder = _with_data(task, download, run.train, task, method, data_dir, config=config, overrides={**guarded(_overrides, set_, encoder), **parallel},
                     models_dir=models_dir, name=_default_name(method, name, encoder, config), train_file=train_file,
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
                 segmenter: Optional[str] = typer.Option(None, "--segmenter", help="rr: score end to end on raw text cut by this segmenter (rule | trained | folder)."),
                 results_dir: Optional[Path] = ResultsDir, force: bool = Force, download: bool = Download):
    """Predict and score a split; writes a run (results.json, samples, predictions) under results/<task>/<system>/."""
    from baselines.runs import run

    missing = guarded(_missing_policy, missing, only_present)

    method = method or _method_from(task, config)  # the folder name `train --encoder` chose
    result, folder = _with_data(task, download, run.evaluate, task, method, data_dir, split=split, test_file=test_file, model=model,
                             config=config, overrides=guarded(_overrides, set_, encoder), models_dir=models_dir,
                             results_dir=results_dir, name=_default_name(method, name, encoder, config), cv=cv, seed=seed,
                             missing=missing, load_options=_load_options(tasks), force=force, segmenter=segmenter)
    from baselines.cli.summary import print_result

    print_result(result)
    typer.echo(f"wrote {folder}/")


@app.command("score")
def score_command(task: str = typer.Argument(..., help="Task name."),
                  predictions: Path = typer.Argument(..., help="JSONL of {id, prediction} or {id, raw}, lm-eval samples, or (--format lawma) a folder of Lawma responses."),
                  data_dir: Optional[Path] = DataDir, name: Optional[str] = Name,
                  fmt: str = typer.Option("auto", "--format", help="auto | jsonl | lm-eval | lawma (caselawqa: a folder of Lawma's released <task>.json responses, or one such file)"),
                  split: Optional[str] = typer.Option(None, "--split", help="Reference split (default: the task's)."),
                  test_file: Optional[Path] = typer.Option(None, "--test-file", help="References from this file."),
                  tasks: Optional[str] = Tasks, missing: str = Missing, results_dir: Optional[Path] = ResultsDir,
                  kind: Optional[str] = typer.Option(None, "--kind", help="ours | llm | other (default: llm for generations and harness logs, other for label files)."),
                  force: bool = Force,
                  id_field: Optional[str] = typer.Option(None, "--id-field", help="lm-eval: doc field holding the item id (default: id, index or idx; doc_id = the harness's position)."),
                  lm_eval_filter: Optional[str] = typer.Option(None, "--lm-eval-filter", help="lm-eval: which filter's responses to score when the log has several."),
                  only_present: bool = OnlyPresent, download: bool = Download):
    """Score a predictions file (ours or an LLM's raw generations) with the common evaluator."""
    from baselines.runs import run

    missing = guarded(_missing_policy, missing, only_present)
    result, folder = _with_data(task, download, run.score_file, task, predictions, data_dir, split=split, name=name, fmt=fmt,
                             missing=missing, results_dir=results_dir, test_file=test_file, kind=kind, force=force,
                             load_options=_load_options(tasks),
                             lm_eval_options={"id_field": id_field, "filter_name": lm_eval_filter})
    from baselines.cli.summary import print_result

    print_result(result)
    if "join" in result.meta:
        from baselines.tasks.caselawqa.lawma import join_summary

        typer.echo(f"responses: {join_summary(result.meta['join'])}")
    typer.echo(f"wrote {folder}/")


@app.command("compare")
def compare_command(task: str = typer.Argument(..., help="Task name."),
                    against: Optional[str] = typer.Option(None, "--against", help="Reference system (default: the best of our methods)."),
                    split: Optional[str] = typer.Option(None, "--split", help="Split whose results to compare (default: the task's)."),
                    out: Optional[Path] = typer.Option(None, "--out", help="Also write Markdown, CSV and PNG files into this folder."),
                    markdown_only: bool = typer.Option(False, "--markdown-only", help="Print Markdown (for the README) instead of terminal tables."),
                    scatter: Optional[str] = typer.Option(None, "--scatter", help="CaselawQA: system plotted per task against the reference (default: the best other)."),
                    replicates: int = typer.Option(1000, "--replicates", help="Paired bootstrap replicates."),
                    seed: int = typer.Option(0, "--seed", help="Seed of the paired bootstrap."),
                    segmenter: Optional[str] = typer.Option(None, "--segmenter", help="rr: end-to-end runs with this segmenter (any: every run)."),
                    test_file: Optional[str] = typer.Option(None, "--test-file", help="Runs scored on this test file (its name) instead of a split."),
                    systems: Optional[str] = typer.Option(None, "--systems", help="Only these systems (comma-separated names)."),
                    results_dir: Optional[Path] = ResultsDir):
    """Leaderboard of every results file of a task (ours and LLMs), with paired tests against a reference."""
    from baselines.comparison import leaderboard as compare
    from baselines.comparison import render

    if out:
        from baselines.core.io import writable_target

        guarded(writable_target, out)  # refused before the comparison, not after it
    comparison = guarded(compare.compare, task, results_dir, split=split, against=against, replicates=replicates, seed=seed,
                     segmenter=segmenter, test_file=test_file,
                     only=[name.strip() for name in systems.split(",") if name.strip()] if systems else None)
    written = guarded(render.write_files, comparison, out, scatter) if out else []
    if markdown_only:
        typer.echo(render.to_markdown(comparison))
    else:
        render.print_comparison(comparison)
    for path in written:
        typer.echo(f"wrote {path}", err=markdown_only)


@app.command("predict")
def predict_command(task: str = typer.Argument(..., help="Task name (a task that labels raw text: rr)."),
                    file: Path = typer.Argument(..., help="A raw judgment as a UTF-8 text file."),
                    out: Optional[Path] = typer.Option(None, "--out", help="Write the labelled sentences as JSONL."),
                    model: Optional[Path] = typer.Option(None, "--model", help="A saved model folder (default: models/rr/<method>)."),
                    method: Optional[str] = Method,
                    segmenter: Optional[str] = typer.Option(None, "--segmenter", help="rule | trained | folder (default: trained if saved, else rule)."),
                    quiet: bool = typer.Option(False, "--quiet", help="No table."), models_dir: Optional[Path] = ModelsDir):
    """Label a raw text file (rr: cut a judgment into sentences and give each its rhetorical role)."""
    from baselines.cli.summary import print_predictions
    from baselines.registry import TASKS, get_task

    spec = guarded(get_task, task)
    if spec.predict is None:
        able = ", ".join(name for name, other in TASKS.items() if other.predict is not None)
        fail(f"task {task!r} does not label raw text; `baselines predict` works for: {able}")
    rows = guarded(spec.predict, file, model=model, method_name=method, segmenter=segmenter, models_dir=models_dir,
                   out=out)
    if not quiet:
        print_predictions(rows)
    if out:
        typer.echo(f"wrote {len(rows)} sentences to {out}")


@data_app.command("download")
def download_command(task: str = typer.Argument(..., help="Task name."),
                     dest: Optional[Path] = typer.Option(None, "--dest", help="Data folder to fill (default: $BASELINES_DATA, else ~/.local/share/legal-baselines, where every command looks).")):
    """Download a benchmark's official files (needs network access to Hugging Face / GitHub)."""
    from baselines.registry import get_task

    spec = guarded(get_task, task)
    if spec.download is None:
        fail(f"task {task!r} has no download")
    from baselines.core.paths import data_location

    home = data_location(None)[0]
    folder = guarded(spec.download, dest or home)
    typer.echo(f"downloaded {task} into {folder}" + ("" if dest is None or dest == home else f"; use --data-dir {dest}"))


export_app = typer.Typer(no_args_is_help=True, help="Write a benchmark's items for other evaluation tools.")
app.add_typer(export_app, name="export")


@export_app.command("lm-eval")
def export_lm_eval_command(task: str = typer.Argument(..., help="scalr | caselawqa | rr"),
                           out: Path = typer.Option(..., "--out", help="Folder to write (refused if not empty, unless --force; a symbolic link, file or device is refused)."),
                           data_dir: Optional[Path] = DataDir,
                           split: Optional[str] = typer.Option(None, "--split", help="Split to export (default: the task's)."),
                           max_chars: Optional[int] = typer.Option(None, "--max-chars", help="caselawqa: characters of each opinion kept, from its start (default 24000; 0: whole)."),
                           window: Optional[int] = typer.Option(None, "--window", help="rr: context sentences on each side of the target (default 2)."),
                           tasks: Optional[str] = Tasks,
                           force: bool = typer.Option(False, "--force", help="Replace an earlier export in --out (one listed in its export_manifest.json); refused, naming them, if the folder holds any file that export did not write.")):
    """lm-evaluation-harness tasks (YAML + local JSONL documents carrying our ids) for one split."""
    from baselines.export.lm_eval import EXTRA, commands, export_lm_eval, harness_installed

    export = guarded(export_lm_eval, task, data_dir, out, split=split, max_chars=max_chars, window=window,
                     force=force, load_options=_load_options(tasks))
    typer.echo(f"wrote {export.n_documents} documents into {export.folder}/: {export.summary()}")
    for note in export.notes:
        typer.echo(f"  {note}")
    for line in commands(export, data_dir):
        typer.echo(f"  {line}")
    if not harness_installed():
        typer.echo(f"note: lm-evaluation-harness is not installed here; to run these tasks: {EXTRA}")


benchmark_app = typer.Typer(no_args_is_help=True, help="Measure speed and fidelity of parts of the package.")
app.add_typer(benchmark_app, name="benchmark")


@benchmark_app.command("encoders")
def benchmark_encoders_command(data_dir: Optional[Path] = DataDir, encoder: Optional[str] = Encoder,
                               n: int = typer.Option(2000, "--n", help="First N texts of the corpus to encode."),
                               texts: str = typer.Option("rr", "--texts", help="rr: RR training sentences; caselawqa: opinion chunks as embed-linear encodes them (128 tokens)."),
                               repeats: int = typer.Option(3, "--repeats", help="Interleaved timed runs per backend."),
                               out: Optional[Path] = typer.Option(None, "--out", help="Also write the report as JSON.")):
    """Texts/s of each encoding backend (torch, onnx, onnx-int8), and cosines of their vectors with torch's."""
    from baselines.encoders.speed import benchmark_encoders, render_benchmark, write_benchmark
    from baselines.core.io import writable_target

    if out is not None:
        guarded(writable_target, out)  # a device or FIFO is refused before the benchmark, not after it
    report = guarded(benchmark_encoders, data_dir, encoder, n=n, repeats=repeats, corpus=texts)
    typer.echo(render_benchmark(report))
    if out is not None:
        typer.echo(f"wrote {guarded(write_benchmark, report, out)}")


def main() -> None:  # pragma: no cover - console entry
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
