"""The one table of predictions formats: the generic ones here, each task's own from its `Formats` capability,
every one an ExternalFormat entry of the same kind (its reader, its help, who produces it, the score options it
reads, whether it reads a folder, how `--format auto` knows it).

`chosen_format` is the one place `--format` is checked: an unknown name lists the valid ones, `auto` picks the
generic format whose shape the file (its first row) or folder has, and an option that the chosen format does not
read (`--id-prefix`, `--id-field`, `--lm-eval-filter`) is refused, naming the formats that read it.
"""
from __future__ import annotations

from pathlib import Path

from baselines.core.errors import DataError
from baselines.core.io import read_jsonl
from baselines.evaluation import batch_files
from baselines.evaluation.harness_logs import rows_from_lm_eval, rows_from_lm_eval_folder
from baselines.evaluation.predictions import file_stem, validated_rows
from baselines.registry import ExternalFormat

AUTO = "auto"
OPTION_FLAGS = {"id_prefix": ("--id-prefix", "batch API files"), "id_field": ("--id-field", "lm-evaluation-harness logs"),
                "filter_name": ("--lm-eval-filter", "lm-evaluation-harness logs")}  # options some formats read


def _rows(path: Path) -> list[tuple[int, dict]]:
    rows = list(read_jsonl(path))
    if not rows:
        raise DataError("the predictions file is empty", path)
    return rows


def _jsonl(path: Path, records=None, load_whole=None) -> tuple[list[dict], None, str]:
    return validated_rows(_rows(path), path), None, file_stem(path)


def _lm_eval(path: Path, records=None, load_whole=None, id_field=None, filter_name=None) -> tuple[list[dict], None, str]:
    if path.is_dir():  # the harness's output folder: one samples file per task
        return rows_from_lm_eval_folder(path, id_field=id_field, filter_name=filter_name), None, file_stem(path)
    return rows_from_lm_eval(_rows(path), path, id_field=id_field, filter_name=filter_name), None, file_stem(path)


def _batch(kind: str):
    def read(path: Path, records=None, load_whole=None, task_name=None, id_prefix=None):
        reader = batch_files.rows_from_openai_batch if kind == "openai" else batch_files.rows_from_anthropic_batch
        return reader(_rows(path), path, task_name=task_name, id_prefix=id_prefix), None, file_stem(path)
    return read


def _is_lm_eval(row: dict) -> bool:
    return "doc" in row and ("resps" in row or "filtered_resps" in row)


def _is_batch(kind: str):
    def detect(row: dict) -> bool:
        return batch_files.batch_format_of(row) == f"{kind}-batch"
    return detect


GENERIC: dict[str, ExternalFormat] = {
    "jsonl": ExternalFormat(read=_jsonl, producer=None, help='rows {"id", "prediction"}, {"id", "raw"} or '
                            '{"id", "spans"}'),
    "lm-eval": ExternalFormat(read=_lm_eval, producer=None, folder=True, detect=_is_lm_eval,
                              options=("id_field", "filter_name"),
                              help="lm-evaluation-harness samples: a samples_*.jsonl file or the output folder"),
    "openai-batch": ExternalFormat(read=_batch("openai"), producer=None, detect=_is_batch("openai"),
                                   options=("task_name", "id_prefix"), help="an OpenAI Batch API output file"),
    "anthropic-batch": ExternalFormat(read=_batch("anthropic"), producer=None, detect=_is_batch("anthropic"),
                                      options=("task_name", "id_prefix"),
                                      help="an Anthropic Message Batches results file"),
}
FORMATS = (AUTO, *GENERIC)  # the generic names --format takes on every task


def format_named(fmt: str, own: dict[str, ExternalFormat] | None = None, task: str | None = None,
                 owners: list[str] = ()) -> ExternalFormat | None:
    """The entry `fmt` names among the generic formats and a task's `own` (None: auto, told by the file); the
    one check of a --format name: an unknown one lists the valid names, and names the tasks (`owners`) whose
    own format it is."""
    table = {**GENERIC, **(own or {})}
    if fmt == AUTO or fmt in table:
        return table.get(fmt)
    valid = ", ".join([AUTO, *table])
    if owners:
        raise DataError(f"--format {fmt} applies to {', '.join(owners)} only; valid for {task}: {valid}")
    raise DataError(f"unknown --format {fmt!r}{f' for {task}' if task else ''}; valid: {valid}")


def chosen_format(path: Path, fmt: str = AUTO, own: dict[str, ExternalFormat] | None = None,
                  given: dict | None = None) -> tuple[str, ExternalFormat]:
    """(name, entry) of the format `path` is read in: `fmt`, one of the generic formats or of the task's `own`
    (checked by format_named); `auto`, the generic format whose shape the folder or the file's first row has.
    `given` (option -> value, None: not given) is checked against the options the format reads."""
    table = {**GENERIC, **(own or {})}
    format_named(fmt, own)
    name = _detected(Path(path)) if fmt == AUTO else fmt
    entry = table[name]
    if Path(path).is_dir() and not entry.folder:
        raise DataError(f"a folder is read as lm-evaluation-harness output; --format {name} needs a file", path)
    for option, value in (given or {}).items():
        if value is not None and option in OPTION_FLAGS and option not in entry.options:
            flag, what = OPTION_FLAGS[option]
            takers = " or ".join(n for n, other in table.items() if option in other.options)
            raise DataError(f"{flag} applies to {what} only (--format {takers})", path)
    return name, entry


def _detected(path: Path) -> str:
    """The generic format whose shape the folder (lm-eval) or the file's first row has; a row with a custom_id
    that is no batch result is refused."""
    if path.is_dir():
        return "lm-eval"
    line, row = next(read_jsonl(path), (None, None))  # the first row only: a large file is read once, later
    if row is None:
        raise DataError("the predictions file is empty", path)
    for name, entry in GENERIC.items():
        if entry.detect is not None and entry.detect(row):
            return name
    if "custom_id" in row and "id" not in row:
        raise DataError("a row with 'custom_id' but no batch API result: an OpenAI Batch output line has "
                        "'response' or 'error', an Anthropic Message Batches result line 'result' (a batch "
                        "input file holds the requests, not the answers)", path, line)
    return "jsonl"


def read_format(entry: ExternalFormat, path: Path, records=None, load_whole=None, **options) -> tuple:
    """(rows, report, name) of `path` read by `entry`, given only the options it reads."""
    return entry.read(Path(path), records, load_whole, **{k: v for k, v in options.items() if k in entry.options})


def load_predictions(path: Path, fmt: str = AUTO, task_name: str | None = None, id_prefix: str | None = None,
                     **lm_eval_options) -> list[dict]:
    """Rows of a predictions file in a generic format (`fmt`, or `auto`): {"id", "prediction"} or {"id", "raw"}
    (or {"id", "spans"}); bad rows, mixed kinds and duplicate ids name the line. `task_name` and `id_prefix` map
    the custom_ids of batch API files; `lm_eval_options` (id_field, filter_name) apply to harness logs."""
    given = {"id_prefix": id_prefix, **lm_eval_options}
    _, entry = chosen_format(Path(path), fmt, given=given)
    return read_format(entry, path, task_name=task_name, **given)[0]
