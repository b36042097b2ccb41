"""Reading predictions files: our methods' rows {"id", "prediction"} and LLM rows {"id", "raw"}."""
from __future__ import annotations

from pathlib import Path

from baselines.core.errors import DataError
from baselines.core.io import read_jsonl

FORMATS = ("auto", "jsonl", "lm-eval")  # a task may read formats of its own too (Task.formats)


def load_predictions(path: Path, fmt: str = "auto", **lm_eval_options) -> list[dict]:
    """Rows with 'id' and either 'prediction' or 'raw'; bad rows, mixed kinds and duplicate ids name the line.

    `lm_eval_options` (id_field, filter_name) apply to lm-evaluation-harness logs only."""
    path = Path(path)
    if fmt not in FORMATS:
        raise DataError(f"unknown predictions format {fmt!r}; valid: {', '.join(FORMATS)}", path)
    if path.is_dir():  # lm-evaluation-harness output: one samples file per task
        if fmt == "jsonl":
            raise DataError("a folder is read as lm-evaluation-harness output; --format jsonl needs a file", path)
        from baselines.evaluation.harness_logs import rows_from_lm_eval_folder

        return rows_from_lm_eval_folder(path, **lm_eval_options)
    rows = list(read_jsonl(path))
    if not rows:
        raise DataError("the predictions file is empty", path)
    if fmt == "lm-eval" or (fmt == "auto" and _looks_like_lm_eval(rows[0][1])):
        from baselines.evaluation.harness_logs import rows_from_lm_eval

        return rows_from_lm_eval(rows, path, **lm_eval_options)
    if any(value is not None for value in lm_eval_options.values()):
        raise DataError("--id-field / --lm-eval-filter apply to lm-evaluation-harness logs only", path)
    return _validated(rows, path)


def _looks_like_lm_eval(first: dict) -> bool:
    return "doc" in first and ("resps" in first or "filtered_resps" in first)


def _validated(rows: list[tuple[int, dict]], path: Path) -> list[dict]:
    seen: dict[str, int] = {}
    kind = None
    out = []
    for line, row in rows:
        if "id" not in row or row["id"] is None or isinstance(row["id"], (dict, list)):
            raise DataError("row has no 'id'", path, line)
        has = [key for key in ("prediction", "raw", "spans") if key in row]
        if len(has) != 1:
            raise DataError("row needs exactly one of 'prediction' (a label), 'raw' (generated text) or 'spans' "
                            "(a segmenter's [[start, end], ...])", path, line)
        if kind is None:
            kind = has[0]
        elif has[0] != kind:
            raise DataError(f"mixed formats: earlier rows have '{kind}', this one '{has[0]}'", path, line)
        key = str(row["id"])
        if key in seen:
            raise DataError(f"duplicate id {key!r} (first on line {seen[key]})", path, line)
        seen[key] = line
        out.append({**row, "id": key})
    return out
