"""What a run of ours costs, measured in the run itself: each step's wall and CPU seconds (start-up, model loading,
data loading and prediction apart), the prediction's seconds per 1,000 items, peak memory, the training cost the
model folder recorded, and the machine (CPU model as `lscpu` names it, cores, load average, and the cores other work
kept busy during the prediction step: `machine.others_cores`, baselines.core.machine).

CPU seconds are user + system time of this process (every thread) and of its child processes (training and
prediction workers, whether they finished during the step or are still running), so a step spread over two cores shows about twice its wall time.
`--cv` runs fit a model in every fold inside the prediction step: their prediction cost includes that fitting, and
says so (`includes_fitting`). What the on-disk caches of per-item work (sentence encodings, TF-IDF rows) served
during the prediction is recorded beside it (`caches`): a step they served cost less than computing would."""
from __future__ import annotations

import json
import resource
import time
from dataclasses import dataclass, field
from pathlib import Path

from baselines.core import cache_use
from baselines.core.machine import (busy_cpu_seconds, busy_since, cpu_model, load_1min, machine_record, others_cores,
                                    thread_settings)
from baselines.core.process_time import running_children_seconds
from baselines.core.provenance import PROCESS_START, peak_memory_mib


def cpu_seconds() -> float:
    """User + system seconds of this process (all threads), of its finished children and of the child processes
    still running (worker pools that outlive a step: their time so far, read from /proc where there is one)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + running_children_seconds()


@dataclass
class Stopwatch:
    """Wall and CPU seconds of the `with` blocks it times, added up, the whole machine's busy CPU-seconds over them
    (None where /proc/stat is absent), and what the on-disk caches served in them."""
    wall: float = 0.0
    cpu: float = 0.0
    machine_busy: float | None = 0.0
    caches: dict = field(default_factory=dict)  # kind -> {"served": n, "computed": m} (baselines.core.cache_use)
    _started: tuple[float, float] = field(default=(0.0, 0.0), repr=False)
    _tally: dict = field(default_factory=dict, repr=False)
    _busy: float | None = field(default=None, repr=False)

    def __enter__(self) -> "Stopwatch":
        cache_use.step_begins()
        self._started, self._tally = (time.perf_counter(), cpu_seconds()), cache_use.tally()
        self._busy = busy_cpu_seconds()
        return self

    def __exit__(self, *exc) -> None:
        cache_use.step_ends()
        self.wall += time.perf_counter() - self._started[0]
        self.cpu += cpu_seconds() - self._started[1]
        busy = busy_since(self._busy)
        self.machine_busy = None if busy is None or self.machine_busy is None else self.machine_busy + busy
        for kind, counts in cache_use.since(self._tally).items():
            added = self.caches.setdefault(kind, {"served": 0, "computed": 0})
            added["served"] += counts["served"]
            added["computed"] += counts["computed"]


@dataclass
class RunClock:
    """The steps of one run, timed apart: loading the model, loading the data, the checks of the data (overlap with
    the training items, diagnostics), predicting, scoring."""
    started: float = field(default_factory=time.time)
    load_before: float | None = field(default_factory=load_1min)
    model: Stopwatch = field(default_factory=Stopwatch)
    data: Stopwatch = field(default_factory=Stopwatch)
    predict: Stopwatch = field(default_factory=Stopwatch)
    score: Stopwatch = field(default_factory=Stopwatch)
    checks: Stopwatch = field(default_factory=Stopwatch)  # the overlap with the training items, diagnostics

    def record(self, items: int, *, includes_fitting: bool = False, model_folder: Path | None = None) -> dict:
        """The run's `meta.cost`: prediction per 1,000 items (wall and CPU), the other steps apart, peak memory,
        the machine (with the cores other work kept busy during the prediction), and the model's training cost
        when it recorded one."""
        per_1000 = 1000 / items if items else 0.0
        return {
            "items": items,
            "predict": {"wall_seconds": round(self.predict.wall, 3), "cpu_seconds": round(self.predict.cpu, 3),
                        "wall_seconds_per_1000": round(self.predict.wall * per_1000, 3),
                        "cpu_seconds_per_1000": round(self.predict.cpu * per_1000, 3),
                        "includes_fitting": includes_fitting, "caches": self.predict.caches},
            "startup_seconds": round(max(self.started - PROCESS_START, 0.0), 3),
            "model_load_seconds": round(self.model.wall, 3),
            "data_load_seconds": round(self.data.wall, 3),
            "score_seconds": round(self.score.wall, 3),
            "checks_seconds": round(self.checks.wall, 3),
            "peak_memory_mib": peak_memory_mib(),
            "machine": machine_record(self.load_before, load_1min(),
                                      others_cores(self.predict.machine_busy, self.predict.cpu, self.predict.wall)),
            "threads": thread_settings(),  # the thread variables set (none: every core the run could use)
            "train": training_cost(model_folder),
        }


def training_record(stopwatch: Stopwatch, load_before: float | None = None) -> dict:
    """What a model folder keeps of its training: wall and CPU seconds, peak memory, the CPU it ran on and the
    1-minute load average before and after it (other work on the cores slows a training down)."""
    return {"train_seconds": round(stopwatch.wall, 2), "train_cpu_seconds": round(stopwatch.cpu, 2),
            "peak_memory_mib": peak_memory_mib(), "cpu": cpu_model(),
            "train_load_1min": {"before": load_before, "after": load_1min()}}


def training_cost(model_folder: Path | None) -> dict | None:
    """The training cost a saved model recorded in its config.json (None for a stateless method or a model saved
    before it was recorded)."""
    if model_folder is None or not (model_folder / "config.json").is_file():
        return None
    saved = json.loads((model_folder / "config.json").read_text(encoding="utf-8"))
    if "train_seconds" not in saved:
        return None
    return {"wall_seconds": saved["train_seconds"], "cpu_seconds": saved.get("train_cpu_seconds"),
            "peak_memory_mib": saved.get("peak_memory_mib"), "cpu": saved.get("cpu"),
            "load_average_1min": saved.get("train_load_1min")}
