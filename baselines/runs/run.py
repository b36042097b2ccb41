"""Plain functions behind the CLI: evaluate and score (results/) what a RunSpec asks for (`execute`),
cross-validation. Training (models/) is baselines.runs.training."""
from __future__ import annotations

import dataclasses
import datetime
import time
from collections.abc import Callable
from pathlib import Path

from baselines.core import progress
from baselines.core.errors import BaselinesError
from baselines.core.paths import data_root, results_root
from baselines.core.io import read_jsonl
from baselines.core.provenance import run_meta
from baselines.evaluation.batch_files import check_failed_requests, failed_ids, with_error_file
from baselines.evaluation.formats import chosen_format, read_format
from baselines.evaluation.harness_gold import check_logged_answers
from baselines.evaluation.scoring import Result, score_predictions
from baselines.methods import canonical_name
from baselines.methods.base import Method
from baselines.registry import Diagnostics, RawText, Task, get_task, tasks_with
from baselines.runs.cost import RunClock
from baselines.runs.llm_cost import estimate_llm_cost, parse_parameters
from baselines.runs.llm_measured import llm_run_cost
from baselines.runs.prices import parse_price
from baselines.runs.prompt_record import find_prompt_records
from baselines.runs.in_sample import train_overlap, writer_overlap
from baselines.runs.predicting import predicted
from baselines.runs.model_choice import ModelChoice, build_method, load_method, resolve_model
from baselines.runs.results_store import (RESULTS_FILE, Variant, check_no_links, check_replace, check_writable,
                                          references_digest, run_folder, write_run)
from baselines.runs.scoring_records import ScoringRecords, scoring_loaders
from baselines.runs.scored_file import check_producer, check_some_answer, format_entry, inferred_producer
from baselines.runs.spec import RunSpec

OUT_OF_FOLD = {"checked": True, "overlapping": 0, "out_of_fold": True}  # --cv: each fold fit on the others


def load_split(task: Task, data_dir, split: str, path: Path | None = None, *, loader: Callable | None = None,
               **options):
    """Records of one split (or of an explicit file), through `loader` (default: the task's `load`)."""
    root = data_root(data_dir) if path is None or data_dir else None
    if split not in task.splits and path is None:
        raise BaselinesError(f"task {task.name!r} has no split {split!r}; valid: {', '.join(task.splits)}")
    return (loader or task.load)(root, split, path, **options)


def fitted_method(task: Task, method_name: str, *, model: Path | None, models_dir, name: str | None,
                  config: Path | None, overrides: dict | None) -> Method:
    """A saved model when one exists (or is given); stateless methods are built from their config."""
    choice = resolve_model(task, method_name, model=model, models_dir=models_dir, name=name)
    return load_method(task, choice, name=name, config=config, overrides=overrides)


def execute(spec: RunSpec) -> tuple[Result, Path]:
    """The run `spec` asks for: the scoring of its predictions file, else the evaluation of its method."""
    return run_scoring(spec) if spec.scores_file else run_evaluation(spec)


def run_evaluation(spec: RunSpec) -> tuple[Result, Path]:
    """Predict a split (or a file) with a method, score it, and write the run under results/<task>/<system>/.

    A saved model scored on the items it was fit on, or on units overlapping them past the limit, is refused
    unless `spec.allow_overlap` (baselines.runs.in_sample); the run states the overlap measured either way.

    With `spec.segmenter`, the method labels the raw text cut by that segmenter (end to end), and is scored
    on the gold sentences; a gold sentence that no predicted sentence overlaps counts as wrong."""
    clock = RunClock()
    task = get_task(spec.task)
    method_name = spec.method or task.default_method
    split = spec.split or task.eval_split
    check_combination(task, model=spec.model, cv=spec.cv, segmenter=spec.segmenter, missing=spec.missing)
    with clock.model:
        choice, method = evaluated_method(task, method_name, spec)
    with clock.data, progress.stage(f"loading data ({task.name}, {spec.test_file or f'{split} split'})") as step:
        records = load_split(task, spec.data_dir, split, spec.test_file,
                             **model_label_set(task, method, spec.load_options))
        step.note = f"{len(records):,} items"
    with clock.checks:
        overlap = dict(OUT_OF_FOLD) if choice is None else train_overlap(
            choice.folder, records, task, split=None if spec.test_file else split,
            allow_overlap=spec.allow_overlap)  # refused before any work when in-sample
    references = task.references(records)
    variant = Variant(split=None if spec.test_file else split, references=references_digest(references), cv=spec.cv,
                      seed=spec.seed if spec.cv is not None else None,
                      test_file=Path(spec.test_file).name if spec.test_file else None,
                      segmenter=Path(spec.segmenter).name if spec.segmenter else None)
    system = spec.name or canonical_name(task.name, method_name)
    folder, recheck = prepare_run(task.name, system, variant, spec.results_dir, scored=False, force=spec.force,
                                  config=method.get_params())
    with clock.predict:
        predictions = predicted(task, method, method_name, records, cv=spec.cv, seed=spec.seed, config=spec.config,
                                overrides=spec.overrides, segmenter=spec.segmenter, models_dir=spec.models_dir)
    with clock.score, progress.stage(f"scoring {len(predictions):,} predictions"):
        result, samples = score_predictions(task, predictions, references, system=system, split=variant.slug(),
                                            missing="wrong" if spec.segmenter else spec.missing)
    result.variant = variant.to_dict()
    result.meta = run_meta(clock.started, config=method.get_params(), method=method_name,
                           data=str(spec.test_file) if spec.test_file else str(data_root(spec.data_dir)), cv=spec.cv,
                           seed=spec.seed, segmenter=spec.segmenter, train_overlap=overlap,
                           fallbacks=fallback_counts(predictions, references))
    diagnostics = task.capability(Diagnostics)
    if diagnostics is not None:
        with clock.checks:
            result.meta["diagnostics"] = diagnostics.describe(records)
    result.meta["cost"] = clock.record(len(references), includes_fitting=spec.cv is not None,
                                       model_folder=choice.folder if choice else None)
    record_data_notes(result, records)
    with progress.stage(f"writing the run into {folder}"):
        write_run(folder, result.to_dict(), samples, predictions, check=recheck)
    return result, folder


def evaluated_method(task: Task, method_name: str, spec: RunSpec) -> tuple[ModelChoice | None, Method]:
    """The method an evaluation runs: fresh with --cv (no saved model: None), else its model resolved once and
    loaded (a stateless method built from its config)."""
    if spec.cv is not None:
        return None, build_method(task.name, method_name, spec.config, spec.overrides)
    with progress.stage(f"loading {spec.name or method_name}" + (f" from {spec.model}" if spec.model else "")):
        choice = resolve_model(task, method_name, model=spec.model, models_dir=spec.models_dir, name=spec.name)
        return choice, load_method(task, choice, name=spec.name, config=spec.config, overrides=spec.overrides)




def model_label_set(task: Task, method: Method, load_options: dict | None) -> dict:
    """Load options with a fitted sequence labeller's own label set: the references then accept every label
    the model can give, whatever labels the evaluated file happens to contain."""
    labels = getattr(method, "labels_", None)
    if task.answer_type == "sequence-labelling" and labels:
        return {**(load_options or {}), "labels": tuple(labels)}
    return dict(load_options or {})


def check_combination(task: Task, *, model, cv, segmenter, missing: str) -> None:
    """Options that cannot go together, refused before any work."""
    if cv is not None and model:
        raise BaselinesError("--model and --cv do not go together: --cv fits a fresh model in every fold")
    if segmenter and (task.capability(RawText) or RawText(None)).end_to_end is None:
        able = ", ".join(tasks_with(RawText, "end_to_end"))
        raise BaselinesError(f"--segmenter applies to tasks scored end to end from raw text ({able}), not {task.name}")
    if segmenter and cv is not None:
        raise BaselinesError("--segmenter does not go with --cv: end to end scores a saved model")
    if segmenter and missing != "error":
        raise BaselinesError("--segmenter does not go with --missing/--only-present: a gold sentence without a "
                             "prediction always counts as wrong end to end")


def record_data_notes(result: Result, records) -> None:
    """What the loader left out or flagged (documents without annotations, empty questions...), kept with the run."""
    notes = list(getattr(records, "notes", None) or [])
    if notes:
        result.meta["data_notes"] = notes


def prepare_run(task: str, system: str, variant: Variant, results_dir, *, scored: bool, force: bool,
                config: dict | None = None) -> tuple[Path, Callable[[], None]]:
    """The run folder, checked before any work (a plain name, writable, not replacing a scored run), and the
    replace check again, for write_run to repeat under its lock: another command may write the folder meanwhile."""
    folder = run_folder(task, system, variant, results_dir)
    root = results_root(results_dir)

    def recheck() -> None:
        check_no_links(folder, root)
        check_replace(folder, scored=scored, force=force, variant=variant, config=config)

    check_no_links(folder, root)
    check_writable(folder, (RESULTS_FILE,))  # only a run folder is replaced
    recheck()
    return folder, recheck


def fallback_counts(predictions: list[dict], references) -> dict[str, int]:
    """Predictions per group (CaselawQA task) that a method answered with a fallback instead of a model."""
    group_of = {ref.id: ref.group for ref in references}
    counts: dict[str, int] = {}
    for row in predictions:
        if row.get("fallback"):
            group = group_of.get(str(row["id"]), "")
            counts[group] = counts.get(group, 0) + 1
    return counts




def run_scoring(spec: RunSpec) -> tuple[Result, Path]:
    """Score an existing predictions file (ours or an LLM's raw generations) like any evaluation.

    Predictions written by `eval` are checked against the training items of the model that wrote them, as eval
    checks them (refused past the limit unless `spec.allow_overlap`).

    `spec.fmt` names an entry of the one format table (baselines.evaluation.formats: auto, the generic formats,
    and the task's own)."""
    started = time.time()
    task = get_task(spec.task)
    split = spec.split or task.eval_split
    check_producer(spec.producer)
    parameters = parse_parameters(spec.params, spec.name) if spec.params is not None else None
    price = parse_price(spec.price, datetime.date.today().isoformat()) if spec.price is not None else None
    format_entry(task, spec.fmt)  # an unknown name, before any work
    predictions, scored, join_report, default_name, entry = read_scored(
        task, Path(spec.predictions), spec.data_dir, split=split, test_file=spec.test_file, fmt=spec.fmt,
        load_options=spec.load_options, lm_eval_options=spec.lm_eval_options)
    records = scored.records
    references = task.references(records)
    if spec.errors is not None:  # OpenAI's error file: the failed requests of the batch, written apart
        predictions = with_error_file(predictions, list(read_jsonl(Path(spec.errors))), Path(spec.errors))
    check_logged_answers(predictions, references)
    check_failed_requests(predictions, spec.missing)
    overlap = writer_overlap(Path(spec.predictions), scored.whole, task, spec.allow_overlap,
                             results_dir=spec.results_dir)
    variant = Variant(split=None if spec.test_file else split, references=references_digest(references),
                      test_file=Path(spec.test_file).name if spec.test_file else None)
    system = spec.name or default_name
    folder, recheck = prepare_run(task.name, system, variant, spec.results_dir, scored=True, force=spec.force)
    with progress.stage(f"scoring {len(predictions):,} predictions"):
        result, samples = score_predictions(task, predictions, references, system=system, split=variant.slug(),
                                            missing=spec.missing, failed=failed_ids(predictions),
                                            numbering=spec.numbering)
    unread = check_some_answer(task, samples, predictions, spec.predictions)
    result.producer = spec.producer or entry.producer or inferred_producer(predictions)
    result.variant = variant.to_dict()
    result.meta = run_meta(started, config=None, method="external", source=Path(spec.predictions).name,
                           data=str(spec.test_file) if spec.test_file else str(data_root(spec.data_dir)))
    if join_report is not None:
        result.meta["join"] = join_report
    if unread:
        result.meta["reading_note"] = unread
    if getattr(predictions, "report", None):  # a batch API file: what it held, and its errored requests
        result.meta["batch"] = predictions.report
    if overlap is not None:
        result.meta["train_overlap"] = overlap
    if result.producer != "ours":
        sent = find_prompt_records(Path(spec.predictions), task.name, spec.prompts)
        prompt_records, answered = scored.prompt_records(references, predictions)
        result.meta["cost"] = llm_cost(task, prompt_records, predictions, system, parameters, Path(spec.predictions),
                                       sent, answered if scored.without_texts else None)
        if price is not None and result.meta["cost"] is not None:
            result.meta["cost"]["price_given"] = dataclasses.asdict(price)  # the run's own price, kept with it
    record_data_notes(result, records)
    with progress.stage(f"writing the run into {folder}"):
        write_run(folder, result.to_dict(), samples, predictions=None, check=recheck)
    return result, folder


def llm_cost(task, records, predictions: list[dict], system: str, parameters, source: Path,
             sent: list[dict] | None = None, items: int | None = None) -> dict | None:
    """An LLM run's cost: measured, where `baselines llm run` recorded the run beside its logs; else estimated
    (from the file's usage, the prompt records `sent` of its export, or our default prompt: that of `records`, a
    sample of the `items` answered ones where given)."""
    logs = tuple(path.name for path in ([source] if source.is_file() else source.rglob("samples_*")))
    estimate = estimate_llm_cost(task, records, predictions, system, parameters, sent, logs, items=items)
    return llm_run_cost(source, len(predictions), estimate)


def read_scored(task: Task, predictions_path: Path, data_dir, *, split: str, test_file: Path | None, fmt: str,
                load_options: dict | None, lm_eval_options: dict | None) -> tuple:
    """(predictions, ScoringRecords, join report or None, default system name, format entry) for `score`: the
    format chosen once from the one table (a task's own format is read against the records it is joined to);
    the records without their texts where the task and the format allow (baselines.runs.scoring_records)."""
    options = {"task_name": task.name, **(lm_eval_options or {})}  # batch files strip '<task>-' from ids
    with progress.stage(f"reading {predictions_path.name} and the references "
                        f"({task.name}, {test_file or f'{split} split'})") as step:
        _, entry = chosen_format(predictions_path, fmt, task.formats, given=options)
        loader, ids_loader = scoring_loaders(task, entry)
        records = load_split(task, data_dir, split, test_file, loader=loader, **(load_options or {}))
        load_whole = (lambda: load_split(task, data_dir, split, test_file, loader=loader)) if load_options else None
        predictions, join_report, default_name = read_format(entry, predictions_path, records, load_whole, **options)
        step.note = f"{len(predictions):,} predictions, {len(records):,} items"
    root = data_root(data_dir) if test_file is None or data_dir else None
    scored = ScoringRecords(
        records, lambda: load_split(task, data_dir, split, test_file, **(load_options or {})),
        None if ids_loader is None else (lambda ids: ids_loader(root, split, test_file, ids, **(load_options or {}))))
    return predictions, scored, join_report, default_name, entry

