"""The `baselines export` and `baselines speed` command groups: items written for other evaluation tools, and
speed measured. commands.py mounts them on the `baselines` command line."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from baselines.cli.corpus import ModelFolder, PredictInput, Segmenter, hook_options, predict_task
from baselines.cli.errors import reported
from baselines.cli.options import (DataDir, Encoder, Method, ModelsDir, Quiet, ResultsDir, Subtasks, TasksAlias, earlier_name,
                                   load_options, task_options, texts_help)
from baselines.core.progress import silenced
from baselines.registry import LmEvalExport, RawText, ScaleData, option_help, tasks_with

export_app = typer.Typer(no_args_is_help=True, help="Write a benchmark's items for other evaluation tools.")


@export_app.command("lm-eval")
@reported
def export_lm_eval_command(task: str = typer.Argument(..., help=" | ".join(tasks_with(LmEvalExport))),
                           out: Path = typer.Option(..., "--out", help="Folder to write (refused if not empty, unless --force; a symbolic link, file or device is refused)."),
                           data_dir: Optional[Path] = DataDir,
                           split: Optional[str] = typer.Option(None, "--split", help="Split to export (default: the task's)."),
                           max_chars: Optional[int] = typer.Option(None, "--max-chars", help=option_help("--max-chars")),
                           window: Optional[int] = typer.Option(None, "--window", help=option_help("--window")),
                           prompt: Optional[str] = typer.Option(None, "--prompt", help="Whose prompt the documents use: " + option_help("--prompt")),
                           subtasks: Optional[str] = Subtasks, tasks_alias: Optional[str] = TasksAlias,
                           force: bool = typer.Option(False, "--force", help="Replace an earlier export in --out (one listed in its export_manifest.json); refused, naming them, if the folder holds any file that export did not write."),
                           count_tokens: bool = typer.Option(False, "--count-tokens", help="Also count each run's prompt tokens (cl100k_base BPE, as the LLM cost estimate does) and say the mean per document."),
                           sample: Optional[int] = typer.Option(None, "--sample", help="A random sample: N items of each subtask (CaselawQA), N whole documents (RR) or N items; scored with --only-present."),
                           seed: int = typer.Option(0, "--seed", help="Seed of --sample."),
                           quiet: bool = Quiet):
    """lm-evaluation-harness tasks (YAML + local JSONL documents carrying our ids) for one split."""
    from baselines.export.lm_eval import EXTRA, commands, export_lm_eval, harness_installed

    subtasks = subtasks or earlier_name("--tasks", "--subtasks", tasks_alias)
    task_options(task, subtasks=subtasks)
    with silenced(quiet):
        export = export_lm_eval(task, data_dir, out, split=split, max_chars=max_chars, window=window,
                                prompt=prompt, force=force, load_options=load_options(subtasks),
                                count_tokens=count_tokens, sample=sample, seed=seed)
    typer.echo(f"wrote {export.n_documents} documents into {export.folder}/: {export.summary()}")
    for note in export.said():
        typer.echo(f"  {note}")
    for line in commands(export, data_dir):
        typer.echo(f"  {line}")
    if not harness_installed():
        typer.echo(f"note: lm-evaluation-harness is not installed here; to run these tasks: {EXTRA}")


@export_app.command("batch")
@reported
def export_batch_command(task: str = typer.Argument(..., help=" | ".join(tasks_with(LmEvalExport))),
                         api: str = typer.Option(..., "--api", help="openai (also the input of vllm run-batch) | anthropic."),
                         model: str = typer.Option(..., "--model", help="The model name the API knows, e.g. gpt-4o-mini."),
                         out: Path = typer.Option(..., "--out", help="The requests file (JSONL); split into NAME.partK.jsonl past the API's limits."),
                         endpoint: str = typer.Option("chat", "--endpoint", help="OpenAI: chat (/v1/chat/completions) | responses (/v1/responses)."),
                         max_tokens: Optional[int] = typer.Option(None, "--max-tokens", help="Generation length (default: the harness export's; give a reasoning model thousands)."),
                         data_dir: Optional[Path] = DataDir,
                         split: Optional[str] = typer.Option(None, "--split", help="Split to export (default: the task's)."),
                         max_chars: Optional[int] = typer.Option(None, "--max-chars", help=option_help("--max-chars")),
                         window: Optional[int] = typer.Option(None, "--window", help=option_help("--window")),
                         prompt: Optional[str] = typer.Option(None, "--prompt", help="Whose prompt: " + option_help("--prompt")),
                         subtasks: Optional[str] = Subtasks,
                         sample: Optional[int] = typer.Option(None, "--sample", help="A random sample, as `export lm-eval --sample`."),
                         seed: int = typer.Option(0, "--seed", help="Seed of --sample."),
                         force: bool = typer.Option(False, "--force", help="Replace an existing requests file."),
                         quiet: bool = Quiet):
    """Request files for the OpenAI Batch API, Anthropic's Message Batches or vllm run-batch: one request per item,
    the harness export's prompt, custom_ids that `baselines score` maps back."""
    from baselines.export.batch import export_batch

    task_options(task, subtasks=subtasks)
    with silenced(quiet):
        done = export_batch(task, data_dir, out, api=api, model=model, endpoint=endpoint, max_tokens=max_tokens,
                            force=force, split=split, load_options=load_options(subtasks), sample=sample, seed=seed,
                            max_chars=max_chars, window=window, prompt=prompt)
    files = ", ".join(f"{path} ({count:,})" for path, count in zip(done.files, done.counts))
    typer.echo(f"wrote {done.n_requests:,} {api} requests for {model} (max_tokens {', '.join(map(str, done.max_tokens))}, "
               f"temperature 0): {files}")
    for note in done.notes:
        typer.echo(f"  {note}")
    typer.echo(f"  the prompt tokens of each request: {done.prompt_record} (keep the results file beside it, or give "
               "it to score as --prompts, for the cost of an output without usage)")
    typer.echo(f"  then: baselines score {task} RESULTS.jsonl --name {model}" + (" --only-present" if sample else ""))


@export_app.command("legalevalhub")
@reported
def export_legalevalhub_command(task: str = typer.Argument(..., help="Task name (see `baselines ls`), e.g. scalr."),
                                out: Path = typer.Option(..., "--out", help="Folder to write: eval_runs/<task_id>/<submission_id>.json per run, and predictions/ (refused if not empty, unless --force)."),
                                split: Optional[str] = typer.Option(None, "--split", help="Runs on this split (default: the task's)."),
                                submitter: str = typer.Option("legal-baselines", "--submitter", help="The hub's `submitter`: your name or organisation."),
                                task_id: Optional[str] = typer.Option(None, "--task-id", help="The hub's task id (default: the task's name)."),
                                predictions_url: Optional[str] = typer.Option(None, "--predictions-url", help="Where you will host the predictions/ folder (a URL); each run's predictions_url is then URL/<task_id>/<file>; default: the relative path."),
                                prompt_id: Optional[str] = typer.Option(None, "--prompt-id", help="The hub's `prompt_id` (default: none for our methods, base for LLM runs)."),
                                results_dir: Optional[Path] = ResultsDir,
                                force: bool = typer.Option(False, "--force", help="Replace an earlier export in --out.")):
    """LegalEvalHub run files (github.com/y-fn/LegalEvalHub) of every run of our methods and of LLMs scored here:
    metrics recomputed from each run's samples, valid_predictions_ratio its coverage, the questions it covers."""
    from baselines.export.legalevalhub import export_legalevalhub

    done = export_legalevalhub(task, out, results_dir=results_dir, split=split, submitter=submitter, task_id=task_id,
                               predictions_url=predictions_url, prompt_id=prompt_id, force=force)
    for hub in done.runs:
        metrics, items = hub.run["metrics"], hub.run["items"]
        typer.echo(f"{hub.path}: {hub.run['model_name']}, accuracy {metrics['accuracy']:.4f}, valid predictions "
                   f"{metrics['valid_predictions_ratio']:.4f}, {items['scored']:,} of {items['references']:,} questions")
    for why in done.left_out:
        typer.echo(f"  left out {why}")
    typer.echo(f"wrote {len(done.runs)} run files into {done.folder}/; add eval_runs/ to a fork of "
               "y-fn/LegalEvalHub and open a pull request (docs/legalevalhub.md)")


speed_app = typer.Typer(no_args_is_help=True, help="Measure speed and fidelity of parts of the package.")


@speed_app.command("encoders")
@reported
def speed_encoders_command(data_dir: Optional[Path] = DataDir, encoder: Optional[str] = Encoder,
                           n: int = typer.Option(2000, "--n", help="First N texts of the corpus to encode."),
                           texts: Optional[str] = typer.Option(None, "--texts", help=texts_help()),
                           repeats: int = typer.Option(3, "--repeats", help="Interleaved timed runs per backend."),
                           out: Optional[Path] = typer.Option(None, "--out", help="Also write the report as JSON.")):
    """Texts/s of each encoding backend (torch, onnx, onnx-int8), and cosines of their vectors with torch's; with
    the CPU and its load average before and after, and a warning when other work shared the cores."""
    from baselines.core.machine import disturbance_warning
    from baselines.core.safe_write import check_output
    from baselines.encoders.speed import encoder_speed, render_speed, write_speed_report

    if out is not None:
        check_output(out, folder=False, example="speed.json")  # before the speed test, not after it
    report = encoder_speed(data_dir, encoder, n=n, repeats=repeats, task=texts)
    typer.echo(render_speed(report))
    if report["disturbed"]:
        typer.echo(disturbance_warning(report["disturbed"]), err=True)
    if out is not None:
        typer.echo(f"wrote {write_speed_report(report, out)}")


@speed_app.command("predict")
@reported
def speed_predict_command(task: str = typer.Argument(..., help=f"Task name ({' | '.join(tasks_with(RawText))})."),
                          source: str = typer.Argument(..., metavar="INPUT", help=PredictInput),
                          n: Optional[int] = typer.Option(None, "--n", help="Only the first N readable documents."),
                          model: Optional[Path] = ModelFolder, method: Optional[str] = Method,
                          segmenter: Optional[str] = Segmenter, subtasks: Optional[str] = Subtasks, data_dir: Optional[Path] = DataDir,
                          models_dir: Optional[Path] = ModelsDir,
                          out: Optional[Path] = typer.Option(None, "--out", help="Also write the report as JSON.")):
    """Documents/s and sentences/s (answers/s) of `baselines predict` end to end, nothing cached; for a model that
    encodes sentences, also the encoder's own speed on the same sentences and the ratio of the two; with the CPU
    and its load average before and after, and a warning when other work shared the cores."""
    from baselines.core.machine import disturbance_warning
    from baselines.core.safe_write import check_output
    from baselines.encoders.speed import write_speed_report
    from baselines.runs.corpus_speed import predict_speed, render_predict_speed

    predict_task(task, "local", segmenter)
    task_options(task, subtasks=subtasks)
    if out is not None:
        check_output(out, folder=False, example="speed.json")
    report = predict_speed(task, source, hook_options(model, method, models_dir, data_dir, segmenter, subtasks), n=n)
    typer.echo(render_predict_speed(report))
    if report["disturbed"]:
        typer.echo(disturbance_warning(report["disturbed"]), err=True)
    if out is not None:
        typer.echo(f"wrote {write_speed_report(report, out)}")


def _numbers(text: str, option: str) -> list[int]:
    from baselines.core.errors import BaselinesError

    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise BaselinesError(f"{option} {text!r}: give numbers separated by commas, e.g. 1,2") from None


@speed_app.command("scale")
@reported
def speed_scale_command(task: str = typer.Argument(..., help=" | ".join(tasks_with(ScaleData))),
                        out: Path = typer.Option(..., "--out", help="Working folder: the data of each size, its models, runs and logs, and scale.json (the report)."),
                        copies: str = typer.Option("1,2", "--copies", help="Copies of the cases to run, e.g. 1,2,4 (1: the local data; each further copy gives every case a new id and text)."),
                        task_copies: str = typer.Option("0", "--task-copies", help="Copies of the tasks to run, e.g. 0,1 (each under another name of the published benchmark, sharing the cases); run with the fewest copies of the cases."),
                        methods: Optional[str] = typer.Option(None, "--methods", help="Methods trained, evaluated and timed at each size, comma-separated (default: those the task names for its scale benchmark)."),
                        subtasks: Optional[str] = Subtasks, data_dir: Optional[Path] = DataDir,
                        test_only: Optional[str] = typer.Option(None, "--test-only", help="Further sizes written with their test split alone and only scored and compared, as COPIESxTASK_COPIES, comma-separated (e.g. 2x6: the LLM side near the published test size)."),
                        add: bool = typer.Option(False, "--add", help="Add the sizes to the report already in --out (e.g. --copies '' --test-only 2x6 after a run)."),
                        page: Optional[Path] = typer.Option(None, "--page", help="Also write the page (and its plot beside it, .png), as `speed scale-page`.")):
    """Write the task's data at growing sizes in its published layout and run the real commands at each (loading,
    train and eval of each method, predict, score of an LLM answers file of the test size, compare), each measured
    for wall time, CPU time, peak memory and disk."""
    from baselines.runs.scale import run_scale
    from baselines.runs.scale_page import write_page

    report = run_scale(task, data_dir, out, copies=_numbers(copies, "--copies"),
                       task_copies=_numbers(task_copies, "--task-copies"),
                       methods=_names(methods), subtasks=_names(subtasks),
                       test_only=[tuple(_numbers(size.replace("x", ","), "--test-only")) for size in _names(test_only) or []],
                       add=add)
    typer.echo(f"wrote {Path(out) / 'scale.json'} ({len(report['sizes'])} sizes)")
    if page is not None:
        typer.echo("wrote " + ", ".join(map(str, write_page(Path(out) / "scale.json", page))))


def _names(text: Optional[str]) -> Optional[list[str]]:
    return [part.strip() for part in text.split(",") if part.strip()] if text else None


@speed_app.command("scale-page")
@reported
def speed_scale_page_command(report: list[Path] = typer.Argument(..., help="Scale reports of one task (scale.json of `speed scale`; several: their sizes together)."),
                             page: Path = typer.Option(..., "--page", help="The page to write (.md), its plot beside it (.png).")):
    """The scale page from scale reports: the growth of each step (log-log plot, fitted exponents) and its figures
    at the task's full size, each marked measured or extrapolated."""
    from baselines.runs.scale_page import write_page

    typer.echo("wrote " + ", ".join(map(str, write_page(report, page))))
