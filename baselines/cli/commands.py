"""The `baselines` command line: parses arguments, calls baselines.runs.training and baselines.runs.run, prints
results."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from baselines.cli.corpus import (ModelFolder, PredictInput, PredictOut, Segmenter, hook_options, predict_progress,
                                  predict_setup, predict_task, print_record, summary_line)
from baselines.cli.compare import compare_command
from baselines.cli.errors import fail, reported
from baselines.cli.options import (Config, DataDir, Download, Encoder, Force, Method, Missing, ModelsDir, Name,
                                   OnlyPresent, PricesOption, Quiet, ResultsDir, Sets, Subtasks, TasksAlias, config_overrides,
                                   default_name, formats_help, load_options, method_from, price_table, task_options,
                                   with_data, earlier_name, deprecated)
from baselines.cli.llm import llm_app
from baselines.cli.tools import export_app, speed_app
from baselines.core.progress import silenced
from baselines.registry import RawText, option_help, tasks_with

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Non-generative baselines for legal NLP benchmarks, and one evaluator for them and LLMs.")
data_app = typer.Typer(no_args_is_help=True, help="Get benchmark data.")
ALLOW_OVERLAP_HELP = ("Write the run even when the model was fit on the scored items, or on units (sentences, opinions, "
                      "questions) overlapping them past the limit of docs/evaluator.md; the overlap is then stated "
                      "beside its figures.")
app.add_typer(data_app, name="data")

@app.callback()
def main_options(verbose: bool = typer.Option(False, "--verbose", "-v", help="Log progress details (epochs, folds).")):
    """Non-generative baselines for legal NLP benchmarks, and one evaluator for them and LLMs."""
    import logging

    logging.basicConfig(format="%(asctime)s %(name)s: %(message)s", datefmt="%H:%M:%S")
    logging.getLogger("baselines").setLevel(logging.INFO if verbose else logging.WARNING)


@app.command("ls")
@reported
def list_all():
    """List tasks, their methods and configs."""
    from baselines.core.config import config_path
    from baselines.methods.configs import config_variants
    from baselines.methods import method_aliases, method_names
    from baselines.core.paths import configs_root
    from baselines.registry import DISCOVERED

    for name, problem in DISCOVERED.problems.items():
        typer.echo(f"skipped benchmark {name!r}: {problem}")
    for benchmark in DISCOVERED.benchmarks:
        task = benchmark.task
        typer.echo(f"{task.name}  ({task.answer_type}; main metric {task.main_metric}; eval split {task.eval_split})")
        typer.echo(f"    {task.description}")
        if benchmark.docs:
            typer.echo(f"    docs: {benchmark.resource(benchmark.docs)}")
        for method in method_names(task.name):
            path = config_path(task.name, method)
            shown = "defaults" if not path.is_file() else f"configs/{task.name}/{method}.yaml" \
                if path.parent == configs_root() / task.name else f"{benchmark.configs}/{method}.yaml"
            default = "  [default]" if method == task.default_method else ""
            aliases = "".join(f"  (alias {alias})" for alias in method_aliases(task.name, method))
            typer.echo(f"    - {method:<14} config: {shown}{default}{aliases}")
            variants = [p.stem for p in config_variants(task.name, method)]
            if variants:
                typer.echo(f"      {'':<14} variants (--config NAME): {', '.join(variants)}")


@app.command("train")
@reported
def train_command(task: str = typer.Argument(..., help="Task name (see `baselines ls`)."),
                  method: Optional[str] = Method, data_dir: Optional[Path] = DataDir,
                  config: Optional[Path] = Config, set_: Optional[List[str]] = Sets,
                  encoder: Optional[str] = Encoder, name: Optional[str] = Name,
                  train_file: Optional[Path] = typer.Option(None, "--train-file", help="Train on this file instead of the train split."),
                  subtasks: Optional[str] = Subtasks, tasks_alias: Optional[str] = TasksAlias,
                  models_dir: Optional[Path] = ModelsDir,
                  backend: Optional[str] = typer.Option(None, "--backend", help=option_help("--backend")),
                  scheduler: Optional[str] = typer.Option(None, "--scheduler", help=option_help("--scheduler")),
                  resume: bool = typer.Option(False, "--resume", help="Continue the training a killed run of this same command left in the model folder: the per-task jobs it finished (CaselawQA's heads), kept there as they finish, are not fitted again. Without it, such a leftover is discarded."),
                  download: bool = Download, quiet: bool = Quiet):
    """Fit a method and save it under models/<task>/<name>/."""
    from baselines.runs import training

    subtasks = subtasks or earlier_name("--tasks", "--subtasks", tasks_alias)
    task_options(task, subtasks=subtasks, backend=backend, scheduler=scheduler)
    method = method or method_from(task, config)
    parallel = {key: value for key, value in (("backend", backend), ("scheduler", scheduler)) if value}
    with silenced(quiet):
        folder = with_data(task, download, training.train, task, method, data_dir, config=config, overrides={**config_overrides(set_, encoder), **parallel},
                           models_dir=models_dir, name=default_name(method, name, encoder, config), train_file=train_file,
                           load_options=load_options(subtasks), resume=resume)
    typer.echo(f"saved {folder}")
    for note in training.fit_notes(folder).values():
        typer.echo(note.get("summary", ""))


@app.command("eval")
@reported
def eval_command(task: str = typer.Argument(..., help="Task name (see `baselines ls`)."),
                 method: Optional[str] = Method, data_dir: Optional[Path] = DataDir,
                 split: Optional[str] = typer.Option(None, "--split", help="Split to evaluate (default: the task's)."),
                 test_file: Optional[Path] = typer.Option(None, "--test-file", help="Evaluate on this file instead of a split."),
                 model: Optional[Path] = typer.Option(None, "--model", help="A saved model folder to evaluate, as the method that saved it (--method may be left out; another one is refused)."),
                 cv: Optional[int] = typer.Option(None, "--cv", help="K-fold cross-validation over the split's items."),
                 seed: int = typer.Option(0, "--seed", help="Seed of the cross-validation folds (the bootstrap is always seeded with 0)."),
                 config: Optional[Path] = Config, set_: Optional[List[str]] = Sets,
                 encoder: Optional[str] = Encoder, name: Optional[str] = Name,
                 subtasks: Optional[str] = Subtasks, tasks_alias: Optional[str] = TasksAlias,
                 missing: str = Missing, models_dir: Optional[Path] = ModelsDir, only_present: bool = OnlyPresent,
                 segmenter: Optional[str] = typer.Option(None, "--segmenter", help=f"Score end to end on raw text cut by this segmenter (rule | trained | folder); tasks scored from raw text: {', '.join(tasks_with(RawText, 'end_to_end'))}."),
                 results_dir: Optional[Path] = ResultsDir, force: bool = Force, download: bool = Download,
                 allow_overlap: bool = typer.Option(False, "--allow-overlap", help=ALLOW_OVERLAP_HELP),
                 quiet: bool = Quiet):
    """Predict and score a split; writes a run (results.json, samples, predictions) under results/<task>/<system>/."""
    from baselines.core.config import parse_overrides
    from baselines.runs.requests import eval_request
    from baselines.runs.run import execute

    spec = eval_request(task, method, data_dir, split=split, test_file=test_file, model=model, cv=cv, seed=seed,
                        config=config, overrides=parse_overrides(set_ or []), encoder=encoder, name=name,
                        subtasks=subtasks or earlier_name("--tasks", "--subtasks", tasks_alias), missing=missing, only_present=only_present,
                        models_dir=models_dir, segmenter=segmenter, results_dir=results_dir, force=force,
                        allow_overlap=allow_overlap, cli=True)
    with silenced(quiet):
        result, folder = with_data(task, download, execute, spec)
    from baselines.cli.summary import print_result

    print_result(result)
    typer.echo(f"wrote {folder}/")


@app.command("score")
@reported
def score_command(task: str = typer.Argument(..., help="Task name."),
                  predictions: Path = typer.Argument(..., help="JSONL of {id, prediction} or {id, raw}, lm-eval samples, an OpenAI or Anthropic batch API output file, or a file or folder in a task's own --format."),
                  data_dir: Optional[Path] = DataDir, name: Optional[str] = Name,
                  fmt: str = typer.Option("auto", "--format", help=formats_help()),
                  split: Optional[str] = typer.Option(None, "--split", help="Reference split (default: the task's)."),
                  test_file: Optional[Path] = typer.Option(None, "--test-file", help="References from this file."),
                  subtasks: Optional[str] = Subtasks, tasks_alias: Optional[str] = TasksAlias,
                  missing: str = Missing, results_dir: Optional[Path] = ResultsDir,
                  producer: Optional[str] = typer.Option(None, "--producer", help="Who produced the predictions: ours | llm | other (default: llm for generations, harness logs and a task's own format, other for label files)."),
                  kind: Optional[str] = typer.Option(None, "--kind", hidden=True, help="Earlier name of --producer."),
                  force: bool = Force,
                  id_field: Optional[str] = typer.Option(None, "--id-field", help="lm-eval: doc field holding the item id (default: id, index or idx; doc_id = the harness's position)."),
                  lm_eval_filter: Optional[str] = typer.Option(None, "--lm-eval-filter", help="lm-eval: which filter's responses to score when the log has several."),
                  id_prefix: Optional[str] = typer.Option(None, "--id-prefix", help="Batch API files: prefix stripped from every custom_id (default: '<task>-' when every custom_id has it)."),
                  only_present: bool = OnlyPresent, download: bool = Download,
                  allow_overlap: bool = typer.Option(False, "--allow-overlap", help=ALLOW_OVERLAP_HELP),
                  params: Optional[str] = typer.Option(None, "--params", help="The LLM's parameter count (70B, 8.03B, 110M) for its compute estimate; default: the documented table, by system name."),
                  errors: Optional[Path] = typer.Option(None, "--errors", help="OpenAI Batch: the batch's error file (error_file_id); its requests count as failed, apart from items never sent."),
                  price: Optional[str] = typer.Option(None, "--price", help="This run's token price, in=X,out=Y (US$ per 1M input and output tokens; cached=Z, batch=D for the batch discount), kept with the run; default: the shipped price table, by system name."),
                  prices: Optional[Path] = PricesOption,
                  prompts: Optional[Path] = typer.Option(None, "--prompts", help="The prompt record of the export the run was made from (an export folder's prompts.json, or the .prompts.json beside a batch file), for the cost of an output without usage; default: found beside the file."),
                  numbering: Optional[str] = typer.Option(None, "--numbering", help="How the prompt numbered the choices, for a bare number ('Option 4'): legalbench (0-4) | letters (4 = D); default: the spellings a harness log's prompt offered, else a bare number is not read (and counted)."),
                  quiet: bool = Quiet):
    """Score a predictions file (ours or an LLM's raw generations) with the common evaluator."""
    from baselines.registry import get_task
    from baselines.runs.requests import score_request
    from baselines.runs.run import execute

    spec = score_request(task, predictions, data_dir, name=name, format=fmt, split=split, test_file=test_file,
                         subtasks=subtasks or earlier_name("--tasks", "--subtasks", tasks_alias), missing=missing, only_present=only_present,
                         results_dir=results_dir, producer=producer or earlier_name("--kind", "--producer", kind), force=force, id_field=id_field,
                         lm_eval_filter=lm_eval_filter, id_prefix=id_prefix, allow_overlap=allow_overlap,
                         params=params, errors=errors, prompts=prompts, price=price, numbering=numbering,
                         cli=True)
    table = price_table(prices)
    with silenced(quiet):
        result, folder = with_data(task, download, execute, spec)
    from baselines.cli.summary import print_result
    from baselines.runs.prices import using

    with using(table):
        print_result(result)
    external = get_task(task).formats.get(fmt)
    if external is not None and external.summary is not None and "join" in result.meta:
        typer.echo(f"responses: {external.summary(result.meta['join'])}")
    typer.echo(f"wrote {folder}/")


app.command("compare")(compare_command)


@app.command("predict")
@reported
def predict_command(task: str = typer.Argument(..., help=f"Task name (a task that labels raw text: {', '.join(tasks_with(RawText))})."),
                    source: str = typer.Argument(..., metavar="INPUT", help=PredictInput),
                    out: Optional[str] = typer.Option(None, "--out", help=PredictOut),
                    model: Optional[Path] = ModelFolder, method: Optional[str] = Method,
                    segmenter: Optional[str] = Segmenter, subtasks: Optional[str] = Subtasks, data_dir: Optional[Path] = DataDir,
                    backend: str = typer.Option("local", "--backend", help="Where documents are labelled: local | dask (batches spread over the workers of --scheduler, each loading the model once)."),
                    scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Dask scheduler for --backend dask, e.g. tcp://HOST:8786."),
                    quiet: bool = typer.Option(False, "--quiet", help="No table, no progress bar."), models_dir: Optional[Path] = ModelsDir):
    """Label raw texts: one file, a folder, a glob or a JSONL of them (e.g. the rhetorical role of each sentence).

    A rerun with the same --out resumes: documents already written with the same text are skipped, changed ones
    labelled again. Exit status: 0 every document labelled (or already there), 1 some documents failed (each
    named on standard error, the others written), 2 a usage error (a bad option or INPUT, no saved model, an --out
    that cannot be written)."""
    from baselines.runs.corpus import label_corpus

    spec = predict_task(task, backend, segmenter)
    task_options(task, subtasks=subtasks)
    corpus, sink, run = predict_setup(spec, source, out, backend, scheduler,
                                      hook_options(model, method, models_dir, data_dir, segmenter, subtasks))
    try:
        with predict_progress(corpus.total, quiet) as notify:
            for note in sink.notes:
                notify(note, advance=False)
            summary = label_corpus(corpus, sink, run, notify)
    finally:
        sink.close()
    if corpus.kind == "text" and not quiet and getattr(sink, "records", None):
        print_record(sink.records[0])
    typer.echo(summary_line(summary, out), err=True)
    if summary.failed:
        raise typer.Exit(1)


@data_app.command("download")
@reported
def download_command(task: str = typer.Argument(..., help="Task name."),
                     dest: Optional[Path] = typer.Option(None, "--dest", help="Data folder to fill (default: $BASELINES_DATA, else ~/.local/share/legal-baselines, where every command looks).")):
    """Download a benchmark's official files (needs network access to Hugging Face / GitHub)."""
    from baselines.registry import Download, get_task

    download = get_task(task).capability(Download)
    if download is None:
        fail(f"task {task!r} has no download")
    from baselines.core.paths import data_location

    home = data_location(None)[0]
    folder = download.fetch(dest or home)
    typer.echo(f"downloaded {task} into {folder}" + ("" if dest is None or dest == home else f"; use --data-dir {dest}"))


app.add_typer(export_app, name="export")
app.add_typer(speed_app, name="speed")
app.add_typer(llm_app, name="llm")
app.add_typer(speed_app, name="benchmark", hidden=True,  # its earlier name
              callback=lambda: deprecated("`baselines benchmark`", "`baselines speed`"))


def main() -> None:  # pragma: no cover - console entry
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
