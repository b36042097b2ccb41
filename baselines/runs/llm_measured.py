"""An LLM run's cost as `baselines llm run` measured it: the record it wrote beside the harness's sample logs
(`llm_run.json`, baselines.llm.measured_run), turned into the run's `meta.cost` in the shape our methods' costs
have (CPU seconds of answering the items per 1,000 items, start-up and model loading apart, on the CPU named), so
the tables show it as measured, beside the estimated rows. The estimate from tokens and parameters is kept beside
it (`estimate_from_tokens`)."""
from __future__ import annotations

from pathlib import Path

from baselines.llm.measured_run import RECORD, answering, read_run_record


def find_run_record(predictions: Path) -> Path | None:
    """The `llm_run.json` of the harness output that `predictions` is (a folder) or lies in (a sample log, which
    the harness writes one or two folders below its --output_path), or None."""
    predictions = Path(predictions)
    places = [predictions] if predictions.is_dir() else [predictions.parent, predictions.parent.parent]
    return next((place / RECORD for place in places if (place / RECORD).is_file()), None)


def measured_llm_cost(path: Path, scored: int, estimate: dict | None) -> dict:
    """The run's `meta.cost` from the record at `path`: measured per 1,000 of the items the command answered."""
    record = read_run_record(path.parent)
    wall, cpu = answering(record)
    items = record["items"] or scored
    loading = record.get("before_requests") or {}
    return {"measured_by": "baselines llm run", "source": RECORD, "items": items, "scored_items": scored,
            "predict": {"wall_seconds": round(wall, 3), "cpu_seconds": round(cpu, 3),
                        "wall_seconds_per_1000": round(1000 * wall / items, 2),
                        "cpu_seconds_per_1000": round(1000 * cpu / items, 2), "includes_fitting": False},
            "startup_seconds": loading.get("wall_seconds", 0.0), "model_load_seconds": 0.0,
            "data_load_seconds": 0.0, "before_requests_cpu_seconds": loading.get("cpu_seconds"),
            "machine": record["machine"], "threads": record.get("threads", {}), "command": record["command"],
            "llm": True, "estimate_from_tokens": estimate}
