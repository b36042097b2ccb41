"""An lm-evaluation-harness run with its cost measured: the harness's own `lm_eval` command, run as it is, timed.

`baselines llm run -- lm_eval ARGS` starts the command given after `--` and passes its output through. It records
the wall and CPU seconds of the whole process tree (user + system, every thread and child), and apart the part
spent before the harness starts its first batch of requests (the line "Running <kind> requests" it logs):
start-up, model loading and building the prompts. What follows is the cost of answering the items, comparable
with the prediction step our methods record.

The command runs with OMP_NUM_THREADS=1 unless the environment sets it (a cost measured on however many cores the
machine lends a run moves with them), and a warning says when other work keeps more than a quarter of a core busy
just before the run, and after it when other work did so while it ran: the whole machine's busy CPU-seconds (from
/proc/stat) less the run's process tree's own, per wall second (`machine.others_cores`); where /proc/stat is absent,
by the 1-minute load average (baselines.core.machine.busy_load).

The record, `llm_run.json`, goes into the folder of the sample logs the run wrote (the harness's
`<output_path>/<model>/`), one per model run (baselines.llm.run_record): the logs with their digests, the documents
answered, the machine (CPU model, cores, load average before and after, the cores other work kept busy during the
run) and the thread settings. `baselines
score` reads it when it scores those logs, unchanged, and records the cost as measured, per 1,000 items. A failed
command writes no record and removes the record of any folder it wrote logs into; a command that logged no sample
is refused.

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
from baselines.core.machine import (busy_cpu_seconds, busy_load, busy_since, load_1min, machine_record, others_cores,
                                    others_cores_now, thread_count, thread_settings)
from baselines.core.process_time import process_seconds
from baselines.core.safe_write import atomic_path
from baselines.llm.run_record import RECORD, changed_since, common_folder, describe_samples, snapshot

FIRST_REQUESTS = re.compile(rb"Running (?:generate_until|loglikelihood|loglikelihood_rolling) requests")


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


def run_measured(argv: list[str], warn=None) -> dict:
    """Run the harness command with OMP_NUM_THREADS=1 unless the environment sets it, pass its output through, and
    write `llm_run.json` into the folder of the sample logs it wrote (one record per model run). Returns the record.

    A failed command raises, naming its exit status, writes no record and removes the record of any folder it wrote
    logs into (it described other logs); a command that logged no sample is refused. `warn` (a function taking one
    line) is told when the machine is loaded before the run starts (busy_load: other work over half a second, else
    the load average)."""
    command, output = harness_command(argv)
    root = output.parent if output.suffix == ".json" else output  # the harness's own rule for a .json path
    environment, threads = _thread_environment()
    before, existing = load_1min(), snapshot(root)
    if warn is not None:
        _warn_if_loaded(before, warn)
    started, usage, own, busy = time.perf_counter(), _children_cpu(), _self_cpu(), busy_cpu_seconds()
    process = subprocess.Popen(command, stderr=subprocess.PIPE, env=environment)
    try:
        loading = _pass_through(process, started, usage)
        status = process.wait()
    except BaseException:  # interrupted: the logs written so far are no measured run's
        _drop_records(changed_since(root, existing))
        raise
    wall, cpu = time.perf_counter() - started, _children_cpu() - usage
    others = others_cores(busy_since(busy), cpu + _self_cpu() - own, wall)
    written = changed_since(root, existing)
    if status != 0:
        _drop_records(written)
        raise BaselinesError(f"lm_eval exited with status {status}: no cost was recorded")
    if not written:
        raise BaselinesError(f"lm_eval logged no samples under {root}: no cost was recorded (the sample logs, which "
                             "--log_samples writes, are what is measured and scored)")
    folder = common_folder(written)
    samples, items = describe_samples(written, folder)
    record = {"command": command, "output_path": str(output), "samples_folder": os.path.relpath(folder),
              "exit_status": status, "items": items,
              "samples": samples, "wall_seconds": round(wall, 3), "cpu_seconds": round(cpu, 3),
              "before_requests": loading, "machine": machine_record(before, load_1min(), others), "threads": threads,
              "threads_default": "OMP_NUM_THREADS" not in os.environ,
              "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    with atomic_path(folder / RECORD) as tmp:
        tmp.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return record


def _warn_if_loaded(load_before: float | None, warn) -> None:
    """Tell `warn` when other work keeps the machine busy just before the run (over half a second; by the 1-minute
    load average where /proc/stat is absent)."""
    machine = {"cores": os.cpu_count() or 1, "load_average_1min": {"before": load_before, "after": None},
               "others_cores": others_cores_now()}
    reason = busy_load(machine)
    if reason:
        warn(f"warning: the machine is loaded ({reason}): the cost measured will be higher than on a quiet machine")


def _thread_environment() -> tuple[dict, dict]:
    """(the command's environment, its thread settings): OMP_NUM_THREADS=1 unless the user set it, so that the
    cost does not depend on how many cores the machine lends the run."""
    environment = dict(os.environ)
    environment.setdefault("OMP_NUM_THREADS", "1")
    return environment, thread_settings(environment)


def _drop_records(written: list[Path]) -> None:
    """Remove the record of each folder a failed run wrote logs into: it no longer describes what lies there."""
    for folder in {path.parent for path in written}:
        (folder / RECORD).unlink(missing_ok=True)


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


def _self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def answering(record: dict) -> tuple[float, float]:
    """(wall, CPU) seconds of answering the items: the run's, less what it spent before its first requests."""
    loading = record.get("before_requests") or {"wall_seconds": 0.0, "cpu_seconds": 0.0}
    return (max(0.0, record["wall_seconds"] - loading["wall_seconds"]),
            max(0.0, record["cpu_seconds"] - loading["cpu_seconds"]))


def summary(record: dict) -> str:
    """The record in one line: items, seconds, the CPU, the threads and the load."""
    wall, cpu = answering(record)
    per_item = f"{1000 * cpu / record['items']:,.0f} CPU-s per 1,000 items" if record["items"] else "no items logged"
    loading = record.get("before_requests")
    loaded = f"; {loading['wall_seconds']:.0f} s before the first request" if loading else ""
    machine = record["machine"]
    load = machine.get("load_average_1min") or {}
    shown = " to ".join("?" if load.get(when) is None else f"{load[when]:.2f}" for when in ("before", "after"))
    return (f"{record['items']:,} items in {wall:,.0f} s ({cpu:,.0f} CPU-s): {per_item}{loaded} "
            f"(CPU: {machine['cpu']}, {thread_count(machine, record.get('threads') or {})} thread(s), 1-minute load "
            f"{shown})")


def load_warning(record: dict) -> str | None:
    """A line for standard error when the machine was loaded while the run measured its cost, else None."""
    machine = record["machine"]
    reason = busy_load(machine, thread_count(machine, record.get("threads") or {}))
    return None if reason is None else (f"warning: the machine was loaded ({reason}): this cost is higher than on a "
                                        "quiet machine; run again when the load is low to measure what the model costs")
