"""The prediction step of an evaluation: the method's own predictions, out of fold with --cv, or end to end from
raw text cut by a segmenter."""
from __future__ import annotations

from pathlib import Path

from baselines.core import progress
from baselines.core.errors import BaselinesError
from baselines.core.folds import fold_assignment
from baselines.methods.base import Method
from baselines.registry import RawText, Task
from baselines.runs.model_choice import build_method


def predicted(task: Task, method: Method, method_name: str, records: list, *, cv: int | None, seed: int,
              config: Path | None, overrides: dict | None, segmenter: str | None, models_dir) -> list[dict]:
    """The predictions an evaluation scores: out of fold with `cv` (a bar over the folds), end to end from raw
    text cut by `segmenter`, else the method's own."""
    if cv is not None:
        return cross_val_predict(task, method_name, records, cv, seed, config, overrides)
    how = f" end to end ({Path(segmenter).name} segmenter)" if segmenter else ""
    with progress.stage(f"predicting {len(records):,} items with {method_name}{how}"):
        if segmenter:
            return task.capability(RawText).end_to_end(records, method, segmenter, models_dir)
        return method.predict(records)


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
