"""Plain functions behind the CLI: train (models/), evaluate and score (results/), cross-validation."""
from __future__ import annotations

import functools
import time
from collections.abc import Callable
from pathlib import Path

from baselines.core import progress
from baselines.core.config import config_file, read_config, resolve_config, with_former_defaults
from baselines.core.errors import BaselinesError
from baselines.evaluation.scoring import Result, score_predictions
from baselines.core.folds import fold_assignment
from baselines.runs.in_sample import FIT_ITEMS_FILE, item_digests, train_overlap, writer_overlap
from baselines.core.io import read_json
from baselines.methods import canonical_name, method_class, saved_model_folder
from baselines.methods.base import Method
from baselines.core.paths import data_root, models_root
from baselines.evaluation.batch_files import check_failed_requests
from baselines.evaluation.predictions import FORMATS, load_predictions
from baselines.core.provenance import peak_memory_mib, run_meta
from baselines.runs.results_store import (MODEL_FILE, RESULTS_FILE, Variant, check_replace, check_system_name,
                                          check_writable, references_digest, run_folder, write_run)
from baselines.registry import TASKS, Task, get_task

PRODUCERS = ("ours", "llm", "other")  # who produced a system's predictions
OUT_OF_FOLD = {"checked": True, "overlapping": 0, "out_of_fold": True}  # --cv: each fold fit on the others


def build_method(task: str, method: str, config: Path | None = None, overrides: dict | None = None) -> Method:
    """A fresh, unfitted method with its resolved parameters."""
    klass = method_class(task, method)
    params = resolve_config(klass, task, method, config, overrides)
    if params.get("encode_backend") == "auto":  # saved and recorded as the backend it stands for here
        from baselines.encoders.bundle import method_encoders
        from baselines.encoders.onnx_backend import resolve_backend

        params["encode_backend"] = resolve_backend(method_encoders(params), "auto")
    return klass(**params)


def load_split(task: Task, data_dir, split: str, path: Path | None = None, **options):
    """Records of one split (or of an explicit file)."""
    root = data_root(data_dir) if path is None or data_dir else None
    if split not in task.splits and path is None:
        raise BaselinesError(f"task {task.name!r} has no split {split!r}; valid: {', '.join(task.splits)}")
    return task.load(root, split, path, **options)


def train(task_name: str, method_name: str, data_dir=None, *, config: Path | None = None,
          overrides: dict | None = None, models_dir=None, name: str | None = None,
          train_file: Path | None = None, load_options: dict | None = None) -> Path:
    """Fit a method on the task's training data and save it as models/<task>/<name>/."""
    task = get_task(task_name)
    method = build_method(task_name, method_name, config, overrides)
    folder = models_root(models_dir) / task_name / check_system_name(name or canonical_name(task_name, method_name))
    check_writable(folder, (MODEL_FILE,))  # before the work, not after it: only a model folder is replaced
    split = task.train_split or task.eval_split
    with progress.stage(f"loading data ({task_name}, {train_file or f'{split} split'})") as step:
        records = load_split(task, data_dir, split, train_file, **(load_options or {}))
        val = None
        if "val" in task.splits and train_file is None:
            val = load_split(task, data_dir, "val", **(load_options or {}))
        step.note = f"{len(records):,} items" + (f", {len(val):,} val" if val is not None else "")
    trained_on = {"split": split, "file": str(train_file) if train_file else None, "n": len(records),
                  "val_n": len(val or [])}
    fit_items = item_digests([*records, *(val or [])])
    started = time.time()
    with progress.stage(f"fitting {method_name} on {len(records):,} items"):
        method.fit(records, val)
    with progress.stage(f"saving the model into {folder}"):
        method.save(folder, extra={"trained_on": trained_on, "train_seconds": round(time.time() - started, 2),
                                   "peak_memory_mib": peak_memory_mib()}, records={FIT_ITEMS_FILE: fit_items})
    return folder


def saved_model(task: Task, method_name: str, *, model: Path | None, models_dir, name: str | None) -> Path | None:
    """The model folder an evaluation loads (--model, or models/<task>/<name>); None for a stateless method."""
    if not method_class(task.name, method_name).needs_fit and not model:
        return None
    return Path(model) if model else saved_model_folder(models_root(models_dir), task.name, name or method_name)


def fitted_method(task: Task, method_name: str, *, model: Path | None, models_dir, name: str | None,
                  config: Path | None, overrides: dict | None) -> Method:
    """A saved model when one exists (or is given); stateless methods are built from their config."""
    resolve_config(method_class(task.name, method_name), task.name, method_name, config, overrides)  # bad values first
    folder = saved_model(task, method_name, model=model, models_dir=models_dir, name=name)
    if folder is None:
        return build_method(task.name, method_name, config, overrides)
    if (folder / "config.json").is_file():
        saved_config = read_json(folder / "config.json")
        given = {**(read_config(config_file(task.name, config)) if config else {}), **(overrides or {})}
        if given.get("encode_backend") == "auto":  # stands for the backend it resolves to, as at training
            from baselines.encoders.bundle import method_encoders
            from baselines.encoders.onnx_backend import resolve_backend

            given["encode_backend"] = resolve_backend(method_encoders({**saved_config["params"], **given}), "auto")
        saved = with_former_defaults(saved_config["params"], given)  # a value it was trained with is no override
        differing = sorted(k for k, v in given.items() if saved.get(k, object()) != v)
        if differing:
            raise BaselinesError(f"{folder} holds a saved model trained with other values of {', '.join(differing)}: "
                                 "--config/--set/--encoder do not apply to it (retrain with them, or evaluate with --cv K)")
        return Method.load(folder)
    if model:
        raise BaselinesError(f"{model} is not a model folder (no config.json)")
    method = build_method(task.name, method_name, config, overrides)
    if method.needs_fit:
        encoder = (overrides or {}).get("encoder")
        same = f" --encoder {encoder}" if encoder else f" --name {name}" if name and name != method_name else ""
        raise BaselinesError(f"no trained model in {folder}; run `baselines train {task.name} --method {method_name}"
                             f"{same}` first" + (" or evaluate with --cv K" if task.train_split is None else ""))
    return method


def evaluate(task_name: str, method_name: str | None = None, data_dir=None, *, split: str | None = None,
             test_file: Path | None = None, model: Path | None = None, config: Path | None = None,
             overrides: dict | None = None, models_dir=None, results_dir=None, name: str | None = None,
             cv: int | None = None, seed: int = 0, missing: str = "error", load_options: dict | None = None,
             force: bool = False, segmenter: str | None = None, allow_overlap: bool = False) -> tuple[Result, Path]:
    """Predict a split (or a file) with a method, score it, and write the run under results/<task>/<system>/.

    A saved model scored on the items it was fit on, or on units overlapping them past the limit, is refused
    unless `allow_overlap` (baselines.runs.in_sample); the run states the overlap measured either way.

    With `segmenter`, the method labels the raw text cut by that segmenter (end to end), and is scored
    on the gold sentences; a gold sentence that no predicted sentence overlaps counts as wrong."""
    started = time.time()
    task = get_task(task_name)
    method_name = method_name or task.default_method
    split = split or task.eval_split
    check_combination(task, model=model, cv=cv, segmenter=segmenter, missing=missing)
    missing = "wrong" if segmenter else missing
    if cv is not None:
        method = build_method(task_name, method_name, config, overrides)
    else:
        with progress.stage(f"loading {name or method_name}" + (f" from {model}" if model else "")):
            method = fitted_method(task, method_name, model=model, models_dir=models_dir, name=name,
                                   config=config, overrides=overrides)
    with progress.stage(f"loading data ({task_name}, {test_file or f'{split} split'})") as step:
        records = load_split(task, data_dir, split, test_file, **model_label_set(task, method, load_options))
        step.note = f"{len(records):,} items"
    overlap = dict(OUT_OF_FOLD) if cv is not None else train_overlap(
        saved_model(task, method_name, model=model, models_dir=models_dir, name=name), records,
        split=None if test_file else split, allow_overlap=allow_overlap)  # refused before any work when in-sample
    references = task.references(records)
    variant = Variant(split=None if test_file else split, references=references_digest(references), cv=cv,
                      seed=seed if cv is not None else None, test_file=Path(test_file).name if test_file else None,
                      segmenter=Path(segmenter).name if segmenter else None)
    system = name or canonical_name(task.name, method_name)
    folder, recheck = prepare_run(task.name, system, variant, results_dir, scored=False, force=force,
                                  config=method.get_params())
    predictions = predicted(task, method, method_name, records, cv=cv, seed=seed, config=config,
                            overrides=overrides, segmenter=segmenter, models_dir=models_dir)
    with progress.stage(f"scoring {len(predictions):,} predictions"):
        result, samples = score_predictions(task, predictions, references, system=system,
                                            split=variant.slug(), missing=missing)
    result.variant = variant.to_dict()
    result.meta = run_meta(started, config=method.get_params(), method=method_name,
                           data=str(test_file) if test_file else str(data_root(data_dir)), cv=cv, seed=seed,
                           segmenter=segmenter, train_overlap=overlap,
                           fallbacks=fallback_counts(predictions, references))
    if task.diagnostics is not None:
        result.meta["diagnostics"] = task.diagnostics(records)
    record_data_notes(result, records)
    with progress.stage(f"writing the run into {folder}"):
        write_run(folder, result.to_dict(), samples, predictions, check=recheck)
    return result, folder


def predicted(task: Task, method: Method, method_name: str, records: list, *, cv: int | None, seed: int,
              config: Path | None, overrides: dict | None, segmenter: str | None, models_dir) -> list[dict]:
    """The predictions an evaluation scores: out of fold with `cv` (a bar over the folds), end to end from raw
    text cut by `segmenter`, else the method's own."""
    if cv is not None:
        return cross_val_predict(task, method_name, records, cv, seed, config, overrides)
    how = f" end to end ({Path(segmenter).name} segmenter)" if segmenter else ""
    with progress.stage(f"predicting {len(records):,} items with {method_name}{how}"):
        if segmenter:
            return task.end_to_end(records, method, segmenter, models_dir)
        return method.predict(records)


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
    if segmenter and task.end_to_end is None:
        able = ", ".join(name for name, spec in TASKS.items() if spec.end_to_end is not None)
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
    check_writable(folder, (RESULTS_FILE,))  # only a run folder is replaced
    recheck = functools.partial(check_replace, folder, scored=scored, force=force, variant=variant, config=config)
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


def cross_val_predict(task: Task, method_name: str, records: list, folds: int, seed: int,
                      config: Path | None, overrides: dict | None) -> list[dict]:
    """Out-of-fold predictions: items split into `folds` seeded folds, each predicted by a model fit on the rest."""
    if folds < 2 or folds > len(records):
        raise BaselinesError(f"--cv needs between 2 and {len(records)} folds, got {folds}")
    assignment = fold_assignment(len(records), folds, seed)
    predictions: list[dict] = []
    for fold in progress.bar(range(folds), desc=f"cross-validating {method_name}", unit="fold"):
        train = [r for r, f in zip(records, assignment) if f != fold]
        test = [r for r, f in zip(records, assignment) if f == fold]
        method = build_method(task.name, method_name, config, overrides)
        predictions.extend(method.fit(train).predict(test))
    return predictions


def score(task_name: str, predictions_path: Path, data_dir=None, *, split: str | None = None,
          name: str | None = None, fmt: str = "auto", missing: str = "error", results_dir=None,
          test_file: Path | None = None, load_options: dict | None = None,
          lm_eval_options: dict | None = None, producer: str | None = None,
          force: bool = False, allow_overlap: bool = False) -> tuple[Result, Path]:
    """Score an existing predictions file (ours or an LLM's raw generations) like any evaluation.

    Predictions written by `eval` are checked against the training items of the model that wrote them, as eval
    checks them (refused past the limit unless `allow_overlap`).

    `fmt` is one of the generic formats (auto, jsonl, lm-eval) or one of the task's own (Task.formats)."""
    started = time.time()
    task = get_task(task_name)
    split = split or task.eval_split
    if producer is not None and producer not in PRODUCERS:
        raise BaselinesError(f"unknown --producer {producer!r}; valid: {', '.join(PRODUCERS)}")
    external = task_format(task, fmt)
    predictions, records, join_report, default_name = read_scored(
        task, Path(predictions_path), data_dir, split=split, test_file=test_file, fmt=fmt, external=external,
        load_options=load_options, lm_eval_options=lm_eval_options)
    references = task.references(records)
    check_failed_requests(predictions, missing)
    overlap = writer_overlap(Path(predictions_path), records, allow_overlap)
    variant = Variant(split=None if test_file else split, references=references_digest(references),
                      test_file=Path(test_file).name if test_file else None)
    system = name or default_name
    folder, recheck = prepare_run(task.name, system, variant, results_dir, scored=True, force=force)
    with progress.stage(f"scoring {len(predictions):,} predictions"):
        result, samples = score_predictions(task, predictions, references, system=system, split=variant.slug(),
                                            missing=missing)
    if not any(sample["answer"] is not None for sample in samples):
        numbering = f"; {task.name} answers are read as {task.numbering}" if task.numbering else ""
        raise BaselinesError(f"no answer could be extracted from any of the {len(predictions)} predictions in "
                             f"{predictions_path} (wrong task, or generations without a stated answer?{numbering})")
    result.producer = producer or (external.producer if external else inferred_producer(predictions))
    result.variant = variant.to_dict()
    result.meta = run_meta(started, config=None, method="external", source=Path(predictions_path).name,
                           data=str(test_file) if test_file else str(data_root(data_dir)))
    if join_report is not None:
        result.meta["join"] = join_report
    if getattr(predictions, "report", None):  # a batch API file: what it held, and its errored requests
        result.meta["batch"] = predictions.report
    if overlap is not None:
        result.meta["train_overlap"] = overlap
    record_data_notes(result, records)
    with progress.stage(f"writing the run into {folder}"):
        write_run(folder, result.to_dict(), samples, predictions=None, check=recheck)
    return result, folder


def read_scored(task: Task, predictions_path: Path, data_dir, *, split: str, test_file: Path | None, fmt: str,
                external, load_options: dict | None, lm_eval_options: dict | None) -> tuple:
    """(predictions, records, join report or None, default system name) for `score`: a task's own format
    (`external`) is read against the records it is joined to; a generic one is read first, then the records."""
    join_report = None
    with progress.stage(f"reading {predictions_path.name} and the references "
                        f"({task.name}, {test_file or f'{split} split'})") as step:
        if external is not None:
            records = load_split(task, data_dir, split, test_file, **(load_options or {}))
            load_whole = (lambda: load_split(task, data_dir, split, test_file)) if load_options else None
            predictions, join_report, default_name = external.read(predictions_path, records, load_whole)
        else:
            options = {"task_name": task.name, **(lm_eval_options or {})}  # batch files strip '<task>-' from ids
            predictions = load_predictions(predictions_path, fmt, **options)
            records = load_split(task, data_dir, split, test_file, **(load_options or {}))
            default_name = _stem(predictions_path)
        step.note = f"{len(predictions):,} predictions, {len(records):,} items"
    return predictions, records, join_report, default_name


def task_format(task: Task, fmt: str):
    """The task's own format called `fmt` (an ExternalFormat), or None for a generic one; an unknown name lists
    the formats valid for this task, and names the tasks whose own format it is."""
    if fmt in task.formats:
        return task.formats[fmt]
    if fmt in FORMATS:
        return None
    owners = [name for name, other in TASKS.items() if fmt in other.formats]
    valid = ", ".join([*FORMATS, *task.formats])
    if owners:
        raise BaselinesError(f"--format {fmt} applies to {', '.join(owners)} only; valid for {task.name}: {valid}")
    raise BaselinesError(f"unknown --format {fmt!r} for {task.name}; valid: {valid}")


def inferred_producer(predictions: list[dict]) -> str:
    """'llm' for raw generations and harness logs, 'other' for files of plain labels or spans."""
    return "llm" if any("raw" in row or "choice" in row for row in predictions) else "other"


def _stem(path: Path) -> str:
    """A file's name without its .jsonl / .jsonl.gz / .json suffix ('gpt-4.5.jsonl' -> 'gpt-4.5')."""
    for suffix in (".jsonl.gz", ".jsonl", ".json"):
        if path.name.endswith(suffix):
            return path.name[: -len(suffix)]
    return path.name
