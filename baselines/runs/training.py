"""Training: fit a method on a task's training data and save it as models/<task>/<name>/ (`baselines train`)."""
from __future__ import annotations

from pathlib import Path

from baselines.core import progress
from baselines.core.io import read_json
from baselines.core.machine import load_1min
from baselines.core.paths import models_root
from baselines.methods import canonical_name
from baselines.methods.checkpoint import MARKER as PARTIAL_MARKER, checkpointing
from baselines.registry import get_task
from baselines.runs.cost import Stopwatch, training_record
from baselines.runs.in_sample import FIT_ITEMS_FILE, item_digests
from baselines.runs.model_choice import build_method
from baselines.runs.results_store import MODEL_FILE, check_model_owned, check_no_links, check_system_name, check_writable
from baselines.runs.run import load_split


def train(task_name: str, method_name: str, data_dir=None, *, config: Path | None = None,
          overrides: dict | None = None, models_dir=None, name: str | None = None,
          train_file: Path | None = None, load_options: dict | None = None, resume: bool = False) -> Path:
    """Fit a method on the task's training data and save it as models/<task>/<name>/.

    A method with per-task jobs keeps each finished one in that folder as it goes (methods/checkpoint.py);
    with `resume`, a killed run of the same training continues from the jobs it finished."""
    task = get_task(task_name)
    method = build_method(task_name, method_name, config, overrides)
    folder = models_root(models_dir) / task_name / check_system_name(
        canonical_name(task_name, method_name) if name is None else name)
    check_no_links(folder, models_root(models_dir))
    check_writable(folder, (MODEL_FILE, PARTIAL_MARKER))  # before the work, not after it: only a model folder is replaced
    check_model_owned(folder)
    split = task.train_split or task.eval_split
    with progress.stage(f"loading data ({task_name}, {train_file or f'{split} split'})") as step:
        records = load_split(task, data_dir, split, train_file, **(load_options or {}))
        val = None
        if "val" in task.splits and train_file is None:
            val = load_split(task, data_dir, "val", **(load_options or {}))
        step.note = f"{len(records):,} items" + (f", {len(val):,} val" if val is not None else "")
    trained_on = {"split": split, "file": str(train_file) if train_file else None, "n": len(records),
                  "val_n": len(val or [])}
    fit_items = item_digests([*records, *(val or [])], task)
    load_before = load_1min()
    with Stopwatch() as fitting, progress.stage(f"fitting {method_name} on {len(records):,} items"), \
            checkpointing(folder, method, fit_items, resume=resume):
        method.fit(records, val)
    with progress.stage(f"saving the model into {folder}"):
        notes = method.fit_notes()
        method.save(folder, extra={"trained_on": trained_on, **training_record(fitting, load_before),
                                   **({"notes": notes} if notes else {})},
                    records={FIT_ITEMS_FILE: fit_items})
    return folder


def fit_notes(folder: Path) -> dict:
    """The notes a saved model's fit left in its config.json (name -> document with a "summary")."""
    return read_json(Path(folder) / "config.json").get("notes") or {}
