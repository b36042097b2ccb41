"""Reading predictions files: our methods' rows {"id", "prediction"} and LLM rows {"id", "raw"}.

Formats (`fmt`): jsonl (rows {"id", "prediction"}, {"id", "raw"} or {"id", "spans"}), lm-eval
(lm-evaluation-harness samples, see harness_logs.py), openai-batch and anthropic-batch (the output
files of the OpenAI Batch and Anthropic Message Batches APIs, read as {"id", "raw"}, see batch_files.py),
or auto: the format whose shape the first row has.
"""
from __future__ import annotations

from pathlib import Path

from baselines.core.errors import DataError
from baselines.core.io import read_jsonl

BATCH_FORMATS = ("openai-batch", "anthropic-batch")
FORMATS = ("auto", "jsonl", "lm-eval", *BATCH_FORMATS)  # a task may read formats of its own too (Formats)
SHOWN_ID_CHARS = 60  # of an id in an error; the rest is counted, not shown


def shown_id(value) -> str:
    """An id as an error shows it: quoted and escaped as Python writes a string ('0\\n', not 0 and a line
    break), cut after SHOWN_ID_CHARS characters with its length said ('abc...'... (1,000,000 characters)), so
    the error stays one short line whatever the id holds."""
    text = value if isinstance(value, str) else str(value)
    if len(text) <= SHOWN_ID_CHARS:
        return repr(text)
    return f"{text[:SHOWN_ID_CHARS]!r}... ({len(text):,} characters)"


def load_predictions(path: Path, fmt: str = "auto", task_name: str | None = None, id_prefix: str | None = None,
                     **lm_eval_options) -> list[dict]:
    """Rows with 'id' and either 'prediction' or 'raw'; bad rows, mixed kinds and duplicate ids name the line.

    `task_name` (the benchmark's name) and `id_prefix` map the custom_ids of batch API files to ids (see
    batch_files.py), whose rows come as a list with a `report`; `id_prefix` applies to those files only.
    `lm_eval_options` (id_field, filter_name) apply to lm-evaluation-harness logs only."""
    path = Path(path)
    if fmt not in FORMATS:
        raise DataError(f"unknown predictions format {fmt!r}; valid: {', '.join(FORMATS)}", path)
    if path.is_dir():  # lm-evaluation-harness output: one samples file per task
        if fmt not in ("auto", "lm-eval"):
            raise DataError(f"a folder is read as lm-evaluation-harness output; --format {fmt} needs a file", path)
        _refuse_id_prefix(id_prefix, path)
        from baselines.evaluation.harness_logs import rows_from_lm_eval_folder

        return rows_from_lm_eval_folder(path, **lm_eval_options)
    rows = list(read_jsonl(path))
    if not rows:
        raise DataError("the predictions file is empty", path)
    if fmt == "auto":
        fmt = _detected_format(rows[0], path)
    if fmt == "lm-eval":
        _refuse_id_prefix(id_prefix, path)
        from baselines.evaluation.harness_logs import rows_from_lm_eval

        return rows_from_lm_eval(rows, path, **lm_eval_options)
    if any(value is not None for value in lm_eval_options.values()):
        raise DataError("--id-field / --lm-eval-filter apply to lm-evaluation-harness logs only", path)
    if fmt in BATCH_FORMATS:
        from baselines.evaluation import batch_files

        reader = batch_files.rows_from_openai_batch if fmt == "openai-batch" else batch_files.rows_from_anthropic_batch
        return reader(rows, path, task_name=task_name, id_prefix=id_prefix)
    _refuse_id_prefix(id_prefix, path)
    return _validated(rows, path)


def _detected_format(first: tuple[int, dict], path: Path) -> str:
    """The format whose shape the first row has; a row with a custom_id that is no batch result is refused."""
    from baselines.evaluation.batch_files import batch_format_of

    line, row = first
    if _looks_like_lm_eval(row):
        return "lm-eval"
    batch = batch_format_of(row)
    if batch is not None:
        return batch
    if "custom_id" in row and "id" not in row:
        raise DataError("a row with 'custom_id' but no batch API result: an OpenAI Batch output line has "
                        "'response' or 'error', an Anthropic Message Batches result line 'result' (a batch "
                        "input file holds the requests, not the answers)", path, line)
    return "jsonl"


def _refuse_id_prefix(id_prefix: str | None, path: Path) -> None:
    if id_prefix is not None:
        raise DataError("--id-prefix applies to batch API files only (--format openai-batch or anthropic-batch)",
                        path)


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
            raise DataError(f"duplicate id {shown_id(key)} (first on line {seen[key]})", path, line)
        seen[key] = line
        out.append({**row, "id": key})
    return out
