"""Plain functions behind the CLI: train, evaluate (optionally cross-validated) and score files."""
from __future__ import annotations

import datetime as dt
import os
import resource
import sys
import time
from pathlib import Path


from .config import resolve_config
from .errors import BaselinesError
from .evaluate import Result, score
from .folds import fold_assignment
from .io import read_json, write_json, write_jsonl
from .methods import method_class
from .methods.base import Method
from .predictions import load_predictions
from .tasks import Task, data_root, get_task
from .versions import git_commit, library_versions



def _process_start() -> float:
    """When this process started (from /proc), so wall times include interpreter start and imports."""
    try:
        with open("/proc/self/stat") as handle:
            ticks = int(handle.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/stat") as handle:
            boot = next(float(line.split()[1]) for line in handle if line.startswith("btime"))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, StopIteration, IndexError):
        return time.time()


PROCESS_START = _process_start()


def models_root(models_dir: str | Path | None = None) -> Path:
    """--models-dir, else $BASELINES_MODELS, else ./models."""
    return Path(models_dir or os.environ.get("BASELINES_MODELS") or "models")


def build_method(task: str, method: str, config: Path | None = None, overrides: dict | None = None) -> Method:
    """A fresh, unfitted method with its resolved parameters."""
    klass = method_class(task, method)
    return klass(**resolve_config(klass, task, method, config, overrides))


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
    split = task.train_split or task.eval_split
    records = load_split(task, data_dir, split, train_file, **(load_options or {}))
    val = None
    if "val" in task.splits and train_file is None:
        val = load_split(task, data_dir, "val", **(load_options or {}))
    started = time.time()
    method.fit(records, val)
    folder = models_root(models_dir) / task_name / (name or method_name)
    method.save(folder, extra={"trained_on": {"split": split, "file": str(train_file) if train_file else None,
                                              "n": len(records)},
                               "train_seconds": round(time.time() - started, 2), "peak_memory_mib": peak_memory_mib()})
    return folder


def fitted_method(task: Task, method_name: str, *, model: Path | None, models_dir, name: str | None,
                  config: Path | None, overrides: dict | None) -> Method:
    """A saved model when one exists (or is given); stateless methods are built from their config."""
    if not method_class(task.name, method_name).needs_fit and not model:
        return build_method(task.name, method_name, config, overrides)
    folder = Path(model) if model else models_root(models_dir) / task.name / (name or method_name)
    if (folder / "config.json").is_file():
        saved = read_json(folder / "config.json")["params"]  # a value the model was trained with is no override
        overrides = {k: v for k, v in (overrides or {}).items() if saved.get(k, object()) != v}
        if config or overrides:
            raise BaselinesError(f"{folder} holds a saved model: --config/--set/--encoder do not apply to it "
                                 "(retrain with them, or evaluate with --cv K)")
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
             overrides: dict | None = None, models_dir=None, name: str | None = None, cv: int | None = None,
             seed: int = 0, missing: str = "error", load_options: dict | None = None) -> tuple[Result, Path]:
    """Predict a split with a method, score it, and write predictions, samples and results."""
    started = time.time()
    task = get_task(task_name)
    method_name = method_name or task.default_method
    split = split or task.eval_split
    system = name or method_name
    folder = models_root(models_dir) / task_name / system
    if cv is not None and model:
        raise BaselinesError("--model and --cv do not go together: --cv fits a fresh model in every fold")
    if cv is not None:
        method = build_method(task_name, method_name, config, overrides)
    else:
        method = fitted_method(task, method_name, model=model, models_dir=models_dir, name=name,
                               config=config, overrides=overrides)
    check_output_folder(folder, method)
    records = load_split(task, data_dir, split, test_file, **(load_options or {}))
    if cv is not None:
        predictions = cross_val_predict(task, method_name, records, cv, seed, config, overrides)
        split_name = f"{split}.cv{cv}"
    else:
        predictions = method.predict(records)
        split_name = split
    result, samples = score(task, predictions, task.references(records), method=system, split=split_name,
                            missing=missing)
    result.meta = run_meta(started, config=method.get_params(), method=method_name,
                           data=str(test_file) if test_file else str(data_root(data_dir)), cv=cv, seed=seed,
                           fallbacks=fallback_counts(predictions, result))
    write_outputs(folder, split_name, result, samples, predictions)
    if cv is None and not method.needs_fit:  # nothing was trained: record the resolved config beside the results
        write_json(folder / "config.json", method.config_dict())
    return result, folder


def check_output_folder(folder: Path, method: Method) -> None:
    """Refuse to write one method's outputs into a folder that holds another method's model."""
    config_path = folder / "config.json"
    if not config_path.is_file():
        return
    saved = read_json(config_path).get("class")
    own = f"{type(method).__module__}:{type(method).__qualname__}"
    if saved and saved != own:
        raise BaselinesError(f"{folder} holds a {saved.split(':')[-1]} model; choose another --name")


def fallback_counts(predictions: list[dict], result: Result) -> dict[str, int]:
    """Predictions per group (CaselawQA task) that a method answered with a fallback instead of a model."""
    counts: dict[str, int] = {}
    for row in predictions:
        if row.get("fallback"):
            group = row["id"].split("/")[0] if result.per_group else ""
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
               name: str | None = None, fmt: str = "auto", missing: str = "error", models_dir=None,
               test_file: Path | None = None, load_options: dict | None = None,
               lm_eval_options: dict | None = None) -> tuple[Result, Path]:
    """Score an existing predictions file (ours or an LLM's raw generations) like any evaluation."""
    started = time.time()
    task = get_task(task_name)
    split = split or task.eval_split
    predictions = load_predictions(Path(predictions_path), fmt, **(lm_eval_options or {}))
    records = load_split(task, data_dir, split, test_file, **(load_options or {}))
    system = name or _stem(Path(predictions_path))
    result, samples = score(task, predictions, task.references(records), method=system, split=split, missing=missing)
    if not any(sample["answer"] is not None for sample in samples):
        raise BaselinesError(f"no answer could be extracted from any of the {len(predictions)} predictions in "
                             f"{predictions_path} (wrong task, or generations without a stated answer?)")
    result.meta = run_meta(started, config=None, method="external", source=str(predictions_path),
                           data=str(test_file) if test_file else str(data_root(data_dir)))
    folder = models_root(models_dir) / task_name / system
    write_outputs(folder, split, result, samples, predictions=None)
    return result, folder


def _stem(path: Path) -> str:
    """A file's name without its .jsonl / .jsonl.gz / .json suffix ('gpt-4.5.jsonl' -> 'gpt-4.5')."""
    for suffix in (".jsonl.gz", ".jsonl", ".json"):
        if path.name.endswith(suffix):
            return path.name[: -len(suffix)]
    return path.stem


def write_outputs(folder: Path, split: str, result: Result, samples: list[dict], predictions: list[dict] | None):
    """<split>.predictions.jsonl (when ours), <split>.samples.jsonl and <split>.results.json, each atomically."""
    if predictions is not None:
        write_jsonl(folder / f"{split}.predictions.jsonl", predictions)
    write_jsonl(folder / f"{split}.samples.jsonl", samples)
    write_json(folder / f"{split}.results.json", result.to_dict())


def peak_memory_mib() -> float:
    """Peak resident memory of this process and of its finished children, in MiB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return round(max(own, children) / 1024, 1)


def run_meta(started: float, **extra) -> dict:
    """Provenance of a run: versions, commit, time, memory, command line."""
    now = time.time()
    return {
        **extra,
        "versions": library_versions(),
        "git_commit": git_commit(),
        "timestamp": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "wall_seconds": round(now - started, 3),
        "process_wall_seconds": round(now - PROCESS_START, 3),
        "peak_memory_mib": peak_memory_mib(),
        "command": " ".join(["baselines", *sys.argv[1:]]) if sys.argv else None,
    }
