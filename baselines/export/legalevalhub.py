"""Run files for LegalEvalHub (github.com/y-fn/LegalEvalHub): one JSON file per scored run of a task, in the hub's
format (its CONTRIBUTING.md, "Submitting an Evaluation Run"), to add under its eval_runs/<task_id>/ by pull request.

Every run under results/<task>/ that our methods (producer "ours") or an LLM (producer "llm") wrote on the task's
split is exported; runs of other producers, and runs written with --allow-overlap (scored on items their model was
fit on), are left out and named. The metrics are recomputed from the run's samples.jsonl with the evaluator's own
functions (scoring.outcomes, metrics.point) and checked against its results.json; a difference refuses the run.

Hub metric   <- our figure
accuracy           accuracy (over every scored item: an item without an answer is wrong)
balanced_accuracy  balanced_accuracy
f1_macro           macro_f1
f1_micro           micro_f1
valid_predictions_ratio  the run's coverage: the share of scored items with an answer
n_samples          the items scored

The hub's own runs count accuracy and F1 over the answers they could parse; ours count every scored item, so the two
agree when valid_predictions_ratio is 1.0 (every run of our methods) and ours is the lower otherwise. Each file also
says which questions it covers ("items"), the ids themselves when the run scored a subset.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from baselines.core.errors import BaselinesError, DataError
from baselines.core.io import atomic_path, read_json, read_jsonl
from baselines.core.paths import results_root
from baselines.core.records import Reference
from baselines.evaluation import metrics as M
from baselines.evaluation.scoring import outcomes, skipped_count, stated_failed
from baselines.export.folder import check_target, export_folder, inside, write_manifest
from baselines.registry import Task, get_task
from baselines.runs.results_store import RESULTS_DIGEST, SAMPLES_FILE, Variant, run_files

HUB_METRICS = {"accuracy": "accuracy", "balanced_accuracy": "balanced_accuracy", "f1_macro": "macro_f1",
               "f1_micro": "micro_f1"}  # the hub's name -> ours (metrics.METRICS)
RUN_KEYS = ("submission_id", "task_id", "model_name", "prompt_id", "submitter", "submission_time", "metrics",
            "predictions_url")  # the keys of every run file in the hub's eval_runs/
PRODUCERS = ("ours", "llm")
TOLERANCE = 1e-9
WRITTEN_BY = "baselines export legalevalhub"


@dataclass
class HubRun:
    """One run file for the hub, and the per-item predictions its predictions_url names."""

    path: str  # relative to the export folder: eval_runs/<task_id>/<submission_id>.json
    run: dict
    predictions_path: str
    predictions: list[dict]
    source: Path  # the results.json it was made from


@dataclass
class HubExport:
    folder: Path
    runs: list[HubRun] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  # runs not exported, each with why


def export_legalevalhub(task_name: str, out, *, results_dir=None, split: str | None = None,
                        submitter: str = "legal-baselines", task_id: str | None = None,
                        predictions_url: str | None = None, prompt_id: str | None = None,
                        force: bool = False) -> HubExport:
    """Write the hub's run files of every exportable run of `task_name` into `out` (all or nothing)."""
    task = get_task(task_name)
    out = export_folder(out)
    check_target(out, force)
    runs, left_out = hub_runs(task, results_dir=results_dir, split=split or task.eval_split, submitter=submitter,
                              task_id=task_id or task.name, predictions_url=predictions_url, prompt_id=prompt_id)
    if not runs:
        raise BaselinesError(f"no run of our methods or of an LLM to export for {task.name} under "
                             f"{results_root(results_dir) / task.name}" + (f" ({'; '.join(left_out)})" if left_out else ""))
    with atomic_path(out) as tmp:
        tmp.mkdir()
        for hub in runs:
            _write(inside(tmp, hub.path), hub.run)
            _write(inside(tmp, hub.predictions_path), hub.predictions)
        write_manifest(tmp, WRITTEN_BY)
        check_target(out, force)
    return HubExport(out, runs, left_out)


def hub_runs(task: Task, *, results_dir=None, split: str, submitter: str, task_id: str,
             predictions_url: str | None = None, prompt_id: str | None = None) -> tuple[list[HubRun], list[str]]:
    """The hub's run of each exportable run of `task` on `split`, and the runs left out, each with why."""
    runs, left_out, taken = [], [], set()
    for path in run_files(task.name, results_dir):
        result = read_json(path)
        why = _not_exported(result, split)
        if why:
            left_out.append(f"{path.parent}: {why}")
            continue
        hub = hub_run(task, path, result, submitter=submitter, task_id=task_id, predictions_url=predictions_url,
                      prompt_id=prompt_id)
        if hub.run["submission_id"] in taken:
            raise DataError(f"two runs give the submission id {hub.run['submission_id']}", path)
        taken.add(hub.run["submission_id"])
        runs.append(hub)
    return runs, left_out


def _not_exported(result: dict, split: str) -> str | None:
    if not isinstance(result, dict) or not isinstance(result.get("variant"), dict):
        return "no variant: written by an older release (score or evaluate it again)"
    variant = Variant.from_dict(result["variant"])
    if variant.split != split or variant.test_file or variant.segmenter:
        return f"not a run on the {split} split (it is on {variant.slug()})"
    producer = result.get("producer", "ours")
    if producer not in PRODUCERS:
        return f"predictions of producer {producer!r}, neither our methods nor an LLM"
    overlap = (result.get("meta") or {}).get("train_overlap") or {}
    if overlap.get("allowed") or overlap.get("over_limit") or overlap.get("overlapping"):
        return "scored on items its model was fit on (--allow-overlap)"
    return None


def hub_run(task: Task, path: Path, result: dict, *, submitter: str, task_id: str,
            predictions_url: str | None = None, prompt_id: str | None = None) -> HubRun:
    """The hub's run file of one results.json, its figures recomputed from the samples beside it."""
    rows = [row for _, row in read_jsonl(path.with_name(SAMPLES_FILE))]
    figures = recomputed(task, rows)
    _check_same(result, figures, path)
    ours = result.get("producer", "ours") == "ours"
    submission_id = _submission_id(result)
    predictions_path = f"predictions/{task_id}/{submission_id}_predictions.json"
    run = {
        "submission_id": submission_id,
        "task_id": task_id,
        "model_name": f"legal-baselines/{result['system']}" if ours else result["system"],
        "prompt_id": prompt_id or ("none" if ours else "base"),
        "submitter": submitter,
        "submission_time": _time(result),
        "metrics": {**{hub: figures[name] for hub, name in HUB_METRICS.items()},
                    "valid_predictions_ratio": figures["coverage"], "n_samples": len(rows)},
        "predictions_url": f"{predictions_url.rstrip('/')}/{task_id}/{submission_id}_predictions.json"
        if predictions_url else predictions_path,
        "items": _items(result, rows),
        "scored_by": {"tool": "legal-baselines", "producer": "classical method" if ours else "LLM",
                      "accuracy_counts": "every scored item; one without an answer is wrong",
                      "results_sha256": result.get("meta", {}).get(RESULTS_DIGEST)},
    }
    folds = (result.get("variant") or {}).get("cv")
    if folds:
        run["scored_by"]["predictions"] = f"out of fold: {folds}-fold cross-validation on the {task.eval_split} split"
    predictions = [{"id": row["id"], "answer": row["answer"], "gold": row["gold"], "correct": row["correct"]}
                   for row in rows]
    return HubRun(f"eval_runs/{task_id}/{submission_id}.json", run, predictions_path, predictions, path)


def recomputed(task: Task, rows: list[dict]) -> dict:
    """Each hub metric's figure (by our name) and the coverage, from a run's samples, with the evaluator's
    functions: the samples' answers scored again against their gold answers."""
    labels = tuple(sorted({label for row in rows
                           for label in (*row["gold"], *([row["answer"]] if row["answer"] is not None else []))}))
    pairs = [(Reference(id=str(row["id"]), gold=tuple(row["gold"]), labels=labels, group=row.get("group") or ""),
              {"id": str(row["id"]), "prediction": row["answer"]} if row["answer"] is not None else None)
             for row in rows]
    out, samples = outcomes(task, pairs)
    figures = {name: M.point(name, out) for name in HUB_METRICS.values()}
    figures["coverage"] = sum(sample["answer"] is not None for sample in samples) / len(samples)
    return figures


def _check_same(result: dict, figures: dict, path: Path) -> None:
    """Refuse a results file whose figures are not the ones its samples give (hand-edited, or files of two runs)."""
    stated = {"coverage": result.get("coverage"), **(result.get("metrics") or {})}
    for name, value in stated.items():
        if name in figures and (not isinstance(value, (int, float)) or abs(value - figures[name]) > TOLERANCE):
            raise DataError(f"its samples give {name}={figures[name]:.6f} but it says {value!r} (hand-edited, or "
                            "files from different runs?)", path)


def _items(result: dict, rows: list[dict]) -> dict:
    """Which questions the run covers: how many were scored of how many references, and the ids of a subset."""
    missing, failed = result.get("missing", 0), stated_failed(result)
    skipped = skipped_count(missing, result.get("missing_policy", "error"), failed)
    items = {"split": result.get("split"), "scored": len(rows), "references": len(rows) + skipped,
             "without_prediction": missing, "failed_requests": failed, "skipped": skipped,
             "references_digest": (result.get("variant") or {}).get("references")}
    if skipped:
        items["ids"] = [str(row["id"]) for row in rows]
    return items


def _time(result: dict) -> str:
    """When the run was scored, as the hub writes it (ISO 8601, UTC, "Z")."""
    stamp = (result.get("meta") or {}).get("timestamp")
    when = datetime.fromisoformat(stamp) if isinstance(stamp, str) else datetime.now(timezone.utc)
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _submission_id(result: dict) -> str:
    """run_YYYY_MM_DD_HHMMSS_XXXXXX (the hub's pattern): the time the run was scored and the first six hex digits of
    its results digest, so exporting the same run again gives the same id."""
    stamp = _time(result)
    digest = (result.get("meta") or {}).get(RESULTS_DIGEST) or ""
    tail = re.sub(r"[^0-9a-f]", "", digest)[:6] or "000000"
    return "run_" + stamp[:10].replace("-", "_") + "_" + stamp[11:19].replace(":", "") + "_" + tail


def _write(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
