"""The encoder speed test: speed and fidelity of the sentence-encoding backends on the same texts (those a task
offers through its record's `speed_texts`, e.g. RR training sentences), without the cache."""
from __future__ import annotations

import contextlib
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Iterator

import numpy as np

from baselines.core.errors import BaselinesError
from baselines.core.machine import (describe_machine, disturbance_lines, load_1min, load_disturbances,
                                    machine_record)
from baselines.encoders.onnx_backend import CONCRETE


def speed_texts(name: str):
    """The SpeedTexts of task `name`; a task that offers none is refused, naming those that do."""
    from baselines.registry import TASKS, SpeedTexts, tasks_with

    offered = tasks_with(SpeedTexts)
    if name not in offered:
        raise BaselinesError(f"speed: --texts must be one of {', '.join(offered)}, got {name!r}")
    return TASKS[name].capability(SpeedTexts)


def backend_encoder(encoder: str | None, backend: str, max_seq_length: int | None, batch_size: int):
    """A function texts -> unit vectors for `backend`, bypassing the encoding cache."""
    if backend == "torch":
        from baselines.encoders.sentence import load_encoder

        model = load_encoder(encoder, max_seq_length)
        return lambda texts: model.encode(texts, batch_size=batch_size, convert_to_numpy=True,
                                          normalize_embeddings=True, show_progress_bar=False)
    from baselines.encoders.onnx_backend import load_onnx_encoder

    model = load_onnx_encoder(encoder, backend, max_seq_length)
    return lambda texts: model.encode(texts, batch_size)


def encoder_speed(data_dir=None, encoder: str | None = None, n: int = 2000, repeats: int = 3,
                  backends: tuple[str, ...] = CONCRETE, max_seq_length: int | None = None,
                  batch_size: int = 64, task: str | None = None) -> dict:
    """Per backend: texts/s (median, min, max over `repeats` interleaved runs) and the mean and minimum
    cosine of its vectors with torch's (fp32 sentence-transformers), on the texts that `task` offers (default:
    registry.default_speed_texts()), cut at its token limit (else the encoder's); with the machine it ran on, its
    load before and after, and what disturbed the measurement (baselines.core.machine)."""
    from baselines.registry import default_speed_texts

    if n < 1 or repeats < 1:
        raise BaselinesError("speed: --n and --repeats must be at least 1")
    load_before = load_1min()  # before anything of this run: loading the encoders raises the load too
    name = task or default_speed_texts()
    offered = speed_texts(name)
    texts = offered.read(data_dir, n)
    max_seq_length = max_seq_length or offered.max_seq_length
    encoders = {b: backend_encoder(encoder, b, max_seq_length, batch_size) for b in ("torch", *backends)}
    for encode in encoders.values():
        encode(texts[:batch_size])  # warm-up: exports, loads and allocates outside the timed runs
    seconds: dict[str, list[float]] = {b: [] for b in backends}
    vectors: dict[str, np.ndarray] = {}
    for _ in range(repeats):
        for backend in backends:
            start = time.perf_counter()
            vectors[backend] = np.asarray(encoders[backend](texts), dtype=np.float32)
            seconds[backend].append(time.perf_counter() - start)
    machine = machine_record(load_before, load_1min())
    reference = vectors["torch"] if "torch" in vectors else np.asarray(encoders["torch"](texts), dtype=np.float32)
    rows = {}
    for backend in backends:
        rates = [len(texts) / s for s in seconds[backend]]
        cosines = (vectors[backend] * reference).sum(axis=1)
        rows[backend] = {"texts_per_s": {"median": round(statistics.median(rates), 1),
                                         "min": round(min(rates), 1), "max": round(max(rates), 1)},
                         "cosine_to_torch": {"mean": round(float(cosines.mean()), 6),
                                             "min": round(float(cosines.min()), 6)}}
    return {"encoder": encoder or "minilm", "texts": name, "n_texts": len(texts), "repeats": repeats,
            "batch_size": batch_size, "max_seq_length": max_seq_length, "machine": machine,
            "disturbed": load_disturbances(machine), "backends": rows}


@contextlib.contextmanager
def without_encoding_cache() -> Iterator[Path]:
    """Everything encoded afresh while inside: the caches moved to an empty temporary folder, the exported
    encoders linked into it (nothing is exported again), and put back after."""
    from baselines.core.paths import cache_root

    exported = cache_root() / "onnx"
    before = os.environ.get("BASELINES_CACHE")
    with tempfile.TemporaryDirectory(prefix="baselines-speed-") as folder:
        if exported.is_dir():
            os.symlink(exported.resolve(), Path(folder) / "onnx")
        os.environ["BASELINES_CACHE"] = folder
        try:
            yield Path(folder)
        finally:
            if before is None:
                os.environ.pop("BASELINES_CACHE", None)
            else:
                os.environ["BASELINES_CACHE"] = before


def write_speed_report(report: dict, out: Path) -> Path:
    """`report` as JSON at `out`, written atomically through the one safe write path."""
    from baselines.core.io import write_json

    write_json(Path(out), report, follow_link=True)  # a file the user named may be a link to it
    return Path(out)


def render_speed(report: dict) -> str:
    """A small text table of a speed report: what was encoded, on which machine under which load, the figures,
    and what disturbed them."""
    what = speed_texts(report["texts"]).label
    lines = [f"{report['n_texts']} {what}, {report['repeats']} repeats, encoder {report['encoder']}, "
             f"max_seq_length {report['max_seq_length'] or 'the encoder limit'}",
             f"measured on {describe_machine(report['machine'])}",
             f"{'backend':<10} {'texts/s median':>14} {'min':>8} {'max':>8} {'cos mean':>9} {'cos min':>8}"]
    for backend, row in report["backends"].items():
        speed, cos = row["texts_per_s"], row["cosine_to_torch"]
        lines.append(f"{backend:<10} {speed['median']:>14} {speed['min']:>8} {speed['max']:>8} "
                     f"{cos['mean']:>9} {cos['min']:>8}")
    lines += disturbance_lines(report["disturbed"])
    return "\n".join(lines)
