"""Plain functions behind the CLI: train (models/), evaluate and score (results/), cross-validation."""
from __future__ import annotations

import time
from pathlib import Path

from .config import config_file, read_config, resolve_config, with_former_defaults
from .errors import BaselinesError
from .evaluate import Result, score
from .folds import fold_assignment
from .io import read_json
from .methods import canonical_name, method_class, model_folder
from .methods.base import Method
from .paths import data_root, models_root
from .predictions import load_predictions
from .provenance import peak_memory_mib, run_meta
from .results_store import (Variant, check_replace, check_system_name, check_writable, references_digest, run_folder,
                            write_run)
from .tasks import Task, get_task

KINDS = ("ours", "llm", "other")


def build_method(task: str, method: str, config: Path | None = None, overrides: dict | None = None) -> Method:
    """A fresh, unfitted method with its resolved parameters."""
    klass = method_class(task, method)
    params = resolve_config(klass, task, method, config, overrides)
    if params.get("encode_backend") == "auto":  # saved and recorded as the backend it stands for here
        from .encoder_bundle import method_encoders
        from .onnx_encoder import resolve_backend

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
    check_writable(folder)  # before the work, not after it
    split = task.train_split or task.eval_split
    records = load_split(task, data_dir, split, train_file, **(load_options or {}))
    val = None
    if "val" in task.splits and train_file is None:
        val = load_split(task, data_dir, "val", **(load_options or {}))
    started = time.time()
    method.fit(records, val)
    method.save(folder, extra={"trained_on": {"split": split, "file": str(train_file) if train_file else None,
                                              "n": len(records)},
                               "train_seconds": round(time.time() - started, 2), "peak_memory_mib": peak_memory_mib()})
    return folder


def fitted_method(task: Task, method_name: str, *, model: Path | None, models_dir, name: str | None,
                  config: Path | None, overrides: dict | None, scored_split: str | None = None) -> Method:
    """A saved model when one exists (or is given); stateless methods are built from their config.

    `scored_split`: the split the model is about to be scored on; a model fit on that very split is refused."""
    if not method_class(task.name, method_name).needs_fit and not model:
        return build_method(task.name, method_name, config, overrides)
    folder = Path(model) if model else model_folder(models_root(models_dir), task.name, name or method_name)
    if (folder / "config.json").is_file():
        saved_config = read_json(folder / "config.json")
        given = {**(read_config(config_file(task.name, config)) if config else {}), **(overrides or {})}
        if given.get("encode_backend") == "auto":  # stands for the backend it resolves to, as at training
            from .encoder_bundle import method_encoders
            from .onnx_encoder import resolve_backend

            given["encode_backend"] = resolve_backend(method_encoders({**saved_config["params"], **given}), "auto")
        saved = with_former_defaults(saved_config["params"], given)  # a value it was trained with is no override
        differing = sorted(k for k, v in given.items() if saved.get(k, object()) != v)
        if differing:
            raise BaselinesError(f"{folder} holds a saved model trained with other values of {', '.join(differing)}: "
                                 "--config/--set/--encoder do not apply to it (retrain with them, or evaluate with --cv K)")
        check_not_in_sample(task, scored_split, folder, saved_config.get("trained_on") or {})
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
             force: bool = False, segmenter: str | None = None) -> tuple[Result, Path]:
    """Predict a split (or a file) with a method, score it, and write the run under results/<task>/<system>/.

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
        method = fitted_method(task, method_name, model=model, models_dir=models_dir, name=name,
                               config=config, overrides=overrides, scored_split=None if test_file else split)
    records = load_split(task, data_dir, split, test_file, **model_label_set(task, method, load_options))
    references = task.references(records)
    variant = Variant(split=None if test_file else split, references=references_digest(references), cv=cv,
                      seed=seed if cv is not None else None, test_file=Path(test_file).name if test_file else None,
                      segmenter=Path(segmenter).name if segmenter else None)
    system = name or canonical_name(task.name, method_name)
    folder = prepare_run(task.name, system, variant, results_dir, scored=False, force=force,
                         config=method.get_params())
    if cv is not None:
        predictions = cross_val_predict(task, method_name, records, cv, seed, config, overrides)
    elif segmenter:
        predictions = task.end_to_end(records, method, segmenter, models_dir)
    else:
        predictions = method.predict(records)
    result, samples = score(task, predictions, references, system=system,
                            split=variant.slug(), missing=missing)
    result.variant = variant.to_dict()
    result.meta = run_meta(started, config=method.get_params(), method=method_name,
                           data=str(test_file) if test_file else str(data_root(data_dir)), cv=cv, seed=seed,
                           segmenter=segmenter,
                           fallbacks=fallback_counts(predictions, references))
    if task.diagnostics is not None:
        result.meta["diagnostics"] = task.diagnostics(records)
    record_data_notes(result, records)
    write_run(folder, result.to_dict(), samples, predictions)
    return result, folder


def check_not_in_sample(task: Task, split: str | None, folder: Path, trained_on: dict) -> None:
    """Refuse to score a model on the very split it was fit on (tasks without a train split fit on it)."""
    if split is not None and trained_on.get("split") == split and not trained_on.get("file"):
        raise BaselinesError(f"{folder} was fit on the {task.name} {split} items themselves: scoring it there would "
                             "be an in-sample figure. Evaluate with --cv K, or on other items with --test-file")


def model_label_set(task: Task, method: Method, load_options: dict | None) -> dict:
    """Load options with a fitted sequence labeller's own label set: the references then accept every label
    the model can give, whatever labels the evaluated file happens to contain."""
    labels = getattr(method, "labels_", None)
    if task.kind == "sequence-labelling" and labels:
        return {**(load_options or {}), "labels": tuple(labels)}
    return dict(load_options or {})


def check_combination(task: Task, *, model, cv, segmenter, missing: str) -> None:
    """Options that cannot go together, refused before any work."""
    if cv is not None and model:
        raise BaselinesError("--model and --cv do not go together: --cv fits a fresh model in every fold")
    if segmenter and task.end_to_end is None:
        from .tasks import TASKS

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
                config: dict | None = None) -> Path:
    """The run folder, checked before any work: a plain name, writable, and not replacing a scored run."""
    folder = run_folder(task, system, variant, results_dir)
    check_writable(folder)
    check_replace(folder, scored=scored, force=force, variant=variant, config=config)
    return folder


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
    for fold in range(folds):
        train = [r for r, f in zip(records, assignment) if f != fold]
        test = [r for r, f in zip(records, assignment) if f == fold]
        method = build_method(task.name, method_name, config, overrides)
        predictions.extend(method.fit(train).predict(test))
    return predictions


def score_file(task_name: str, predictions_path: Path, data_dir=None, *, split: str | None = None,
               name: str | None = None, fmt: str = "auto", missing: str = "error", results_dir=None,
               test_file: Path | None = None, load_options: dict | None = None,
               lm_eval_options: dict | None = None, kind: str | None = None,
               force: bool = False) -> tuple[Result, Path]:
    """Score an existing predictions file (ours or an LLM's raw generations) like any evaluation."""
    started = time.time()
    task = get_task(task_name)
    split = split or task.eval_split
    if kind is not None and kind not in KINDS:
        raise BaselinesError(f"unknown --kind {kind!r}; valid: {', '.join(KINDS)}")
    join_report = None
    if fmt == "lawma":
        records, predictions, join_report, default_name = _lawma_inputs(task, Path(predictions_path), data_dir, split,
                                                                        test_file, load_options)
    else:
        predictions = load_predictions(Path(predictions_path), fmt, **(lm_eval_options or {}))
        records = load_split(task, data_dir, split, test_file, **(load_options or {}))
        default_name = _stem(Path(predictions_path))
    references = task.references(records)
    variant = Variant(split=None if test_file else split, references=references_digest(references),
                      test_file=Path(test_file).name if test_file else None)
    system = name or default_name
    folder = prepare_run(task.name, system, variant, results_dir, scored=True, force=force)
    result, samples = score(task, predictions, references, system=system, split=variant.slug(), missing=missing)
    if not any(sample["answer"] is not None for sample in samples):
        raise BaselinesError(f"no answer could be extracted from any of the {len(predictions)} predictions in "
                             f"{predictions_path} (wrong task, or generations without a stated answer?)")
    result.kind = kind or ("llm" if fmt == "lawma" else inferred_kind(predictions))
    result.variant = variant.to_dict()
    result.meta = run_meta(started, config=None, method="external", source=Path(predictions_path).name,
                           data=str(test_file) if test_file else str(data_root(data_dir)))
    if join_report is not None:
        result.meta["join"] = join_report
    record_data_notes(result, records)
    write_run(folder, result.to_dict(), samples, predictions=None)
    return result, folder


def _lawma_inputs(task: Task, path: Path, data_dir, split: str, test_file: Path | None,
                  load_options: dict | None) -> tuple[list, list[dict], dict, str]:
    """(records, predictions rows, join report, default system name) for Lawma's released responses:
    a model folder (named after the model) or one <task>.json file; files of tasks left out by --tasks are skipped."""
    from .lawma_responses import read_lawma_responses

    if task.name != "caselawqa":
        raise BaselinesError("--format lawma reads Lawma's released CaselawQA responses; it applies to caselawqa only")
    records = load_split(task, data_dir, split, test_file, **(load_options or {}))
    known = None
    if (load_options or {}).get("tasks"):
        known = {record.group for record in load_split(task, data_dir, split, test_file)}
    predictions, report = read_lawma_responses(path, records, known)
    folder = path.resolve() if path.is_dir() else path.resolve().parent
    return records, predictions, report, folder.name if path.is_dir() else f"{folder.name}-{path.stem}"


def inferred_kind(predictions: list[dict]) -> str:
    """'llm' for raw generations and harness logs, 'other' for files of plain labels or spans."""
    return "llm" if any("raw" in row or "choice" in row for row in predictions) else "other"


def _stem(path: Path) -> str:
    """A file's name without its .jsonl / .jsonl.gz / .json suffix ('gpt-4.5.jsonl' -> 'gpt-4.5')."""
    for suffix in (".jsonl.gz", ".jsonl", ".json"):
        if path.name.endswith(suffix):
            return path.name[: -len(suffix)]
    return path.name
