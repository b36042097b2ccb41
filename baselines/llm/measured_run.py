"""An lm-evaluation-harness run with its cost measured: the harness's own `lm_eval` command, run as it is, timed.

`baselines llm run -- lm_eval ARGS` starts the command given after `--` and passes its output through. It records
the wall and CPU seconds of the whole process tree (user + system, every thread and child), and apart the part
spent before the harness starts its first batch of requests (the line "Running <kind> requests" it logs):
start-up, model loading and building the prompts. What follows is the cost of answering the items, comparable
with the prediction step our methods record. The record, `llm_run.json`, goes into the run's `--output_path`
beside the sample logs, with the machine (CPU model, cores, load average before and after) and the thread
settings of the environment; `baselines score` reads it when it scores that folder and records the cost as
measured, per 1,000 items.

The command must be lm_eval's, with --output_path and --log_samples (the sample logs are what is scored).
"""
from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from baselines.core.errors import BaselinesError
from baselines.core.machine import load_1min, machine_record
from baselines.core.process_time import process_seconds
from baselines.core.safe_write import atomic_path

RECORD = "llm_run.json"
FIRST_REQUESTS = re.compile(rb"Running (?:generate_until|loglikelihood|loglikelihood_rolling) requests")
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "TORCH_NUM_THREADS")


def harness_command(argv: list[str]) -> tuple[list[str], Path]:
    """The command (lm_eval's, with --log_samples) and its --output_path folder; anything else is refused."""
    if not argv:
        raise BaselinesError("give the lm_eval command after --: baselines llm run -- lm_eval --model hf ...")
    if Path(argv[0]).name not in ("lm_eval", "lm-eval"):
        raise BaselinesError(f"the command is {argv[0]!r}: `baselines llm run` times lm-evaluation-harness's own "
                             "command, lm_eval")
    if "--log_samples" not in argv and "-s" not in argv:
        raise BaselinesError("add --log_samples to the lm_eval command: its sample logs are what `baselines "
                             "score` reads")
    output = _option_value(argv, "--output_path", "-o")
    if output is None:
        raise BaselinesError("add --output_path FOLDER to the lm_eval command: the cost record is written there, "
                             "beside the sample logs")
    if shutil.which(argv[0]) is None and not Path(argv[0]).is_file():
        raise BaselinesError(f"{argv[0]} is not installed here: pip install \".[llm]\" (lm-evaluation-harness)")
    return argv, Path(output)


def _option_value(argv: list[str], *names: str) -> str | None:
    for k, word in enumerate(argv):
        for name in names:
            if word == name and k + 1 < len(argv):
                return argv[k + 1]
            if word.startswith(name + "="):
                return word.split("=", 1)[1]
    return None


def run_measured(argv: list[str]) -> dict:
    """Run the harness command, pass its output through, and write `llm_run.json` into its --output_path when it
    succeeds. Returns the record; a failed command raises, naming its exit status, and writes nothing."""
    command, output = harness_command(argv)
    before = load_1min()
    started, usage = time.perf_counter(), _children_cpu()
    process = subprocess.Popen(command, stderr=subprocess.PIPE)
    loading = _pass_through(process, started, usage)
    status = process.wait()
    wall, cpu = time.perf_counter() - started, _children_cpu() - usage
    if status != 0:
        raise BaselinesError(f"lm_eval exited with status {status}: no cost was recorded")
    items = count_logged_items(output)
    record = {"command": command, "output_path": str(output), "exit_status": status, "items": items, "wall_seconds": round(wall, 3),
              "cpu_seconds": round(cpu, 3), "before_requests": loading,
              "machine": machine_record(before, load_1min()),
              "threads": {name: os.environ[name] for name in THREAD_VARIABLES if name in os.environ},
              "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    output.mkdir(parents=True, exist_ok=True)
    with atomic_path(output / RECORD) as tmp:
        tmp.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return record


def _pass_through(process: subprocess.Popen, started: float, usage: float) -> dict | None:
    """Copy the command's standard error to ours as it comes; note the wall and CPU seconds spent when it first
    logs that it runs its requests."""
    loading, tail = None, b""
    while chunk := os.read(process.stderr.fileno(), 1 << 14):
        sys.stderr.buffer.write(chunk)
        sys.stderr.buffer.flush()
        if loading is None and FIRST_REQUESTS.search(tail + chunk):
            loading = {"wall_seconds": round(time.perf_counter() - started, 3),
                       "cpu_seconds": round(process_seconds(process.pid) + _children_cpu() - usage, 3)}
        tail = (tail + chunk)[-256:]
    return loading


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def answering(record: dict) -> tuple[float, float]:
    """(wall, CPU) seconds of answering the items: the run's, less what it spent before its first requests."""
    loading = record.get("before_requests") or {"wall_seconds": 0.0, "cpu_seconds": 0.0}
    return (max(0.0, record["wall_seconds"] - loading["wall_seconds"]),
            max(0.0, record["cpu_seconds"] - loading["cpu_seconds"]))


def summary(record: dict) -> str:
    """The record in one line: items, seconds, and the CPU."""
    wall, cpu = answering(record)
    per_item = f"{1000 * cpu / record['items']:,.0f} CPU-s per 1,000 items" if record["items"] else "no items logged"
    loading = record.get("before_requests")
    loaded = f"; {loading['wall_seconds']:.0f} s before the first request" if loading else ""
    return (f"{record['items']:,} items in {wall:,.0f} s ({cpu:,.0f} CPU-s): {per_item}{loaded} "
            f"(CPU: {record['machine']['cpu']})")


def count_logged_items(folder: Path) -> int:
    """The samples the harness logged under `folder` (every samples_*.jsonl line)."""
    total = 0
    for path in folder.rglob("samples_*.jsonl"):
        with path.open("rb") as handle:
            total += sum(1 for line in handle if line.strip())
    return total


def read_run_record(folder: Path) -> dict | None:
    """The `llm_run.json` of a harness output folder, or None when it has none."""
    path = Path(folder) / RECORD
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BaselinesError(f"{path}: not a cost record of `baselines llm run` ({exc})") from None
    if not isinstance(record, dict) or not {"items", "wall_seconds", "cpu_seconds"} <= set(record):
        raise BaselinesError(f"{path}: not a cost record of `baselines llm run` (items, wall_seconds, cpu_seconds)")
    return record
