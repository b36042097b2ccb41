"""A training that survives a kill: the results of its per-unit jobs (a CaselawQA task's head), kept as they finish.

While `checkpointing(folder, ...)` is open, a method's parallel stages (run_parallel of CaselawQA) ask `active()`
for their `Stage` and write each finished job's result into the model folder being written, as plain files
(plain_state.py), beside a marker that names the training they belong to:

    <model folder>/training.partial.json   what was being trained (method, parameters, digest of the items)
    <model folder>/training.partial/       sNN-tNNNN.json/.npz: job NNNN of the method's NN-th parallel stage

A folder holding these and no config.json is not a model: loading it says so and names `--resume`. A rerun
with `--resume` of the same training (same method, parameters and items: the marker's digest; the
parameters that only place the jobs, `placement_params`, may differ) reads the jobs
already done and runs the others; jobs are numbered in the order the method makes them, which is deterministic,
so the resumed model equals an uninterrupted run's. A finished training replaces the whole folder (Method.save),
so no partial file outlives it.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from baselines.core import progress
from baselines.core.errors import BaselinesError, DataError
from baselines.core.io import read_json, write_json
from baselines.methods.plain_state import load_plain, save_plain

MARKER = "training.partial.json"  # marks a folder that holds an unfinished training (methods/base.py accepts it)
FOLDER = "training.partial"
FORMAT = "training-checkpoint/1"
_active: dict = {"checkpoint": None}


@dataclass
class Checkpoint:
    """The checkpoint of the training being run: where its jobs go, what marks them, how many stages asked."""

    folder: Path  # <model folder>/training.partial
    marker: dict  # what training.partial.json holds, written with the first job kept
    stages: int = 0

    def stage(self, desc: str) -> "Stage":
        stage = Stage(self, self.stages, desc)
        self.stages += 1
        return stage

    def prepare(self) -> None:
        """Mark the folder as holding an unfinished training, before its first job is kept."""
        if not (self.folder.parent / MARKER).is_file():
            self.folder.mkdir(parents=True, exist_ok=True)
            write_json(self.folder.parent / MARKER, self.marker)


@dataclass
class Stage:
    """One parallel stage of a training: its finished jobs, read from and written to the checkpoint folder."""

    checkpoint: Checkpoint
    number: int
    desc: str

    def _stem(self, index: int) -> str:
        return f"s{self.number:02d}-t{index:04d}"

    def finished(self, total: int) -> dict[int, object]:
        """Job index -> result, for the jobs of this stage a killed run finished (a job that was being written
        when it was killed has no .json yet: it runs again)."""
        folder, done = self.checkpoint.folder, {}
        for index in range(total):
            if (folder / f"{self._stem(index)}.json").is_file():
                kept = load_plain(folder, self._stem(index))
                if not isinstance(kept, dict) or kept.get("stage") != self.desc:
                    raise DataError(f"holds job {index} of another stage than {self.desc!r}: the training "
                                    "changed; train again without --resume", folder / f"{self._stem(index)}.json")
                done[index] = kept["result"]
        return done

    def save(self, index: int, result) -> None:
        self.checkpoint.prepare()
        save_plain(self.checkpoint.folder, self._stem(index), {"stage": self.desc, "result": result})


def active() -> Checkpoint | None:
    """The checkpoint of the training being run in this process, or None (no checkpointing)."""
    return _active["checkpoint"]


def fingerprint(method, items: dict) -> str:
    """What a checkpoint must match to be resumed: the method's class and parameters (but those that only say
    where the jobs run: a run killed on one machine may be resumed on a cluster), and the items it is fit on."""
    placement = getattr(method, "placement_params", ())
    params = {key: value for key, value in method.get_params().items() if key not in placement}
    text = json.dumps({"class": f"{type(method).__module__}:{type(method).__qualname__}",
                       "params": params, "items": items}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_partial(folder: Path) -> bool:
    """Whether `folder` holds an unfinished training (and no model)."""
    return (Path(folder) / MARKER).is_file() and not (Path(folder) / "config.json").is_file()


@contextlib.contextmanager
def checkpointing(folder: Path, method, items: dict, *, resume: bool) -> Iterator[Checkpoint]:
    """Keep the finished jobs of the training run inside in `folder`/training.partial/. With `resume`, those of
    an earlier run of the same training are reused (one of another training is refused); without, any earlier
    checkpoint there is discarded first."""
    folder = Path(folder)
    digest = fingerprint(method, items)
    marker, jobs = folder / MARKER, folder / FOLDER
    if marker.is_file() and resume:
        kept = read_json(marker)
        if not isinstance(kept, dict) or kept.get("fingerprint") != digest:
            raise DataError("is a checkpoint of another training (other method, parameters or data): train "
                            "without --resume to start again", marker)
        progress.say(f"resuming the training kept in {folder} ({_count(jobs)} jobs done)")
    elif marker.is_file() or jobs.exists():
        progress.say(f"discarding the unfinished training in {folder} (--resume continues one)")
        marker.unlink(missing_ok=True)
        shutil.rmtree(jobs, ignore_errors=True)
    if _active["checkpoint"] is not None:
        raise BaselinesError("a training is already being checkpointed in this process")
    _active["checkpoint"] = Checkpoint(jobs, {"format": FORMAT, "method": getattr(method, "name", ""),
                                              "fingerprint": digest, "params": method.get_params()})
    try:
        yield _active["checkpoint"]
    finally:
        _active["checkpoint"] = None


def _count(jobs: Path) -> int:
    return len(list(jobs.glob("*.json"))) if jobs.is_dir() else 0
