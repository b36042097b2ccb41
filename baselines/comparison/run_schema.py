"""The shape a run's files must have for `compare` to read them: its results file (the keys and figures it
states) and its samples file (one row per item: id, gold, answer, correct, with `correct` equal to answer ∈ gold).
Each problem is one line, for baselines.comparison.systems to refuse the run with, naming the file or line."""
from __future__ import annotations

import json
from pathlib import Path

from baselines.core.io import loads_strict, open_text, read_jsonl
from baselines.evaluation import metrics as M
from baselines.evaluation.scoring import MISSING_POLICIES
from baselines.registry import Task

RESULT_KEYS = ("task", "system", "split", "n", "coverage", "metrics", "main_metric", "interval", "meta")
SAMPLE_KEYS = ("id", "gold", "answer", "correct")


def read_samples(path: Path) -> list[tuple[int, dict]]:
    """Numbered rows of a samples file: parsed in one call, or line by line to name a bad line."""
    try:
        with open_text(path) as handle:
            lines = [(k, line) for k, line in enumerate(handle.read().split("\n"), start=1) if line.strip()]
        rows = loads_strict("[" + ",".join(line for _, line in lines) + "]")  # a key named twice: read_jsonl names it
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return list(read_jsonl(path))
    if not all(isinstance(row, dict) for row in rows):
        return list(read_jsonl(path))
    return [(k, row) for (k, _), row in zip(lines, rows)]


def sample_problem(row: dict) -> str | None:
    """What is wrong with one samples row, if anything: its schema, or `correct` against answer ∈ gold."""
    absent = [key for key in SAMPLE_KEYS if key not in row]
    if absent:
        return f"unknown samples schema (no {', '.join(absent)})"
    gold, answer, correct = row["gold"], row["answer"], row["correct"]
    if not isinstance(gold, list) or not gold or not all(isinstance(label, str) for label in gold):
        return "unknown samples schema (gold is not a list of labels)"
    if not (answer is None or isinstance(answer, str)) or not isinstance(correct, bool):
        return "unknown samples schema (answer is not a label or null, or correct is not true or false)"
    if correct != (answer in gold):
        return (f"sample {row['id']}: correct is {str(correct).lower()} but its answer {answer!r} is "
                f"{'' if answer in gold else 'not '}among the gold answers {gold} (hand-edited file?)")
    return None


def schema_problem(result, task: Task) -> str | None:
    if not isinstance(result, dict):
        return "not a results object"
    absent = [key for key in RESULT_KEYS if key not in result]
    if absent:
        return f"unknown results schema (no {', '.join(absent)})"
    if result["task"] != task.name:
        return f"results of task {result['task']!r}, not {task.name!r}"
    metrics = result["metrics"]
    if result["main_metric"] != task.main_metric or not isinstance(metrics, dict) or task.main_metric not in metrics:
        return f"main metric {result['main_metric']!r}, but {task.name} is scored by {task.main_metric!r}"
    unknown = [name for name in metrics if name not in M.METRICS]
    if unknown:
        return f"unknown metric {unknown[0]!r}"
    if not isinstance(result["interval"], list) or len(result["interval"]) != 2 or not result["n"]:
        return "unknown results schema (interval or n)"
    missing = result.get("missing", 0)
    if not isinstance(missing, int) or isinstance(missing, bool) or missing < 0 or \
            result.get("missing_policy", "error") not in MISSING_POLICIES:
        return "unknown results schema (missing or missing_policy)"
    failed = result.get("failed", 0)
    if not isinstance(failed, int) or isinstance(failed, bool) or not 0 <= failed <= missing:
        return "unknown results schema (failed: a count of the missing)"
    return None
