"""An LLM run's cost as `baselines llm run` measured it: the record it wrote beside the harness's sample logs
(`llm_run.json`, baselines.llm.measured_run), turned into the run's `meta.cost` in the shape our methods' costs
have (CPU seconds of answering the items per 1,000 items, start-up and model loading apart, on the CPU named), so
the tables show it as measured, beside the estimated rows. The estimate from tokens and parameters is kept beside
it (`estimate_from_tokens`)."""
from __future__ import annotations

from pathlib import Path

from baselines.llm.measured_run import answering
from baselines.llm.run_record import RECORD, find_record, read_run_record, record_mismatch


def find_run_record(predictions: Path) -> Path | None:
    """The `llm_run.json` of the harness run whose logs `predictions` is or holds (in the logs' folder, or in the
    --output_path above it), or None."""
    return find_record(Path(predictions))


def llm_run_cost(source: Path, scored: int, estimate: dict | None) -> dict | None:
    """An LLM run's `meta.cost`: measured, where `baselines llm run` recorded the run of exactly these logs; else
    the estimate, with `measured_record_not_used` saying why a record beside them was not taken."""
    record = find_run_record(source)
    if record is None:
        return estimate
    mismatch = record_mismatch(record, source)
    if mismatch is None:
        return measured_llm_cost(record, scored, estimate)
    return {**(estimate or {}), "measured_record_not_used": f"{mismatch}: the cost is estimated, not measured"}


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
