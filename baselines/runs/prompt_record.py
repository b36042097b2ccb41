"""The prompts an export sent, recorded beside what it wrote, so that a run's cost counts the prompt actually sent
(`--max-chars 4000`: about 1,400 tokens) rather than our default one (about 4,800).

`baselines export lm-eval` writes `prompts.json` into its folder and `baselines export batch` writes
`<name>.prompts.json` beside its request file: the task, the split, the export's settings (`--max-chars`,
`--prompt`, `--window`, `--sample`, ...), the tokenizer that counted, and per prompt set (a harness task, or
"batch") the prompt tokens of each item id. `baselines score` finds the record (`find_prompt_records`): the one
given (`--prompts`), else those beside the scored file (or in the scored folder), else the export folder that
`baselines llm run` ran (`--include_path` of its command) or that the harness's `results_*.json` names. Two
records at one place that both hold the scored items but give them different prompts are not guessed between:
the cost then falls back to our default prompt, and says so."""
from __future__ import annotations

import json
import shlex
from pathlib import Path

from baselines.core.errors import BaselinesError
from baselines.llm.run_record import read_run_record

KIND = "legal-baselines prompt record"
EXPORT_RECORD = "prompts.json"
SUFFIX = ".prompts.json"


def record_bytes(task: str, split: str, settings: dict, counted_by: str, sets: dict[str, dict[str, int]]) -> bytes:
    """The JSON of a prompt record (settings: the export's options that shape a prompt, None left out)."""
    record = {"kind": KIND, "task": task, "split": split,
              "settings": {name: value for name, value in settings.items() if value is not None},
              "tokens_counted_by": counted_by, "prompt_tokens": sets}
    return (json.dumps(record, indent=1, sort_keys=True) + "\n").encode("utf-8")


def batch_record_path(out: Path) -> Path:
    """Where `export batch --out requests.jsonl` records its prompts (of every part): `requests.prompts.json`."""
    return out.with_name(out.stem + SUFFIX)


def read_prompt_record(path: Path) -> dict | None:
    """The record at `path` (a record file, or an export folder holding one), or None when it is not one."""
    path = Path(path)
    path = path / EXPORT_RECORD if path.is_dir() else path
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("kind") != KIND or not isinstance(record.get("prompt_tokens"), dict):
        return None
    return {**record, "path": str(path)}


def find_prompt_records(predictions: Path, task: str, given: Path | None = None) -> list[dict]:
    """The prompt records of the export the scored file came from (see the module): the one given (`--prompts`;
    one that is none, or of another task, is refused), else those of `task` at the nearest place that has any."""
    if given is not None:
        record = read_prompt_record(given)
        if record is None or record.get("task") != task:
            raise BaselinesError(f"--prompts {given}: not a prompt record of {task} (the `prompts.json` of a "
                                 "`baselines export lm-eval` folder, or the `.prompts.json` beside a "
                                 "`baselines export batch` file)")
        return [record]
    for places in _places(Path(predictions)):
        records = [record for record in map(read_prompt_record, places)
                   if record is not None and record.get("task") == task]
        if records:
            return records
    return []


def _places(predictions: Path) -> list[list[Path]]:
    """Where prompt records may be, nearest first: beside the file (or in the folder), then the export folders
    that `baselines llm run`'s record and the harness's results files name."""
    folder = predictions if predictions.is_dir() else predictions.parent
    return [sorted(folder.glob("*" + SUFFIX)) + [folder / EXPORT_RECORD],
            [found for place in (folder, folder.parent) for found in _include_paths(place)],
            _harness_exports(folder)]


def _include_paths(place: Path) -> list[Path]:
    """The folders `--include_path` names in the command `baselines llm run` recorded (llm_run.json) in `place`."""
    try:
        command = (read_run_record(place) or {}).get("command") or []
    except BaselinesError:
        return []
    command = shlex.split(command) if isinstance(command, str) else [str(word) for word in command]
    return [Path(command[k + 1]) for k, word in enumerate(command[:-1]) if word == "--include_path"]


def _harness_results(folder: Path) -> list[Path]:
    """The harness's `results_*.json` files in `folder` or one folder below it, where lm-evaluation-harness writes
    them (<output_path>/<model>/): never a walk of the whole tree a file happens to lie in (a home folder, or
    folders that other runs are writing)."""
    found: list[Path] = []
    for pattern in ("results_*.json", "*/results_*.json"):
        try:
            found += sorted(folder.glob(pattern))
        except OSError:  # a folder renamed or removed while listed
            continue
    return found[:20]


def _harness_exports(folder: Path) -> list[Path]:
    """The export folders whose documents the harness's `results_*.json` files in `folder` name."""
    found = []
    for results in _harness_results(folder):
        try:
            configs = json.loads(results.read_text(encoding="utf-8")).get("configs") or {}
        except (OSError, ValueError, AttributeError):
            continue
        for config in configs.values():
            files = ((config or {}).get("dataset_kwargs") or {}).get("data_files") or {}
            for data in (files.values() if isinstance(files, dict) else []):
                found += [Path(str(data)).parent, Path(str(data)).parent.parent]
    return list(dict.fromkeys(found))


def log_task(log: str) -> str | None:
    """The harness task a sample log's file name names: `samples_<task>_<timestamp>.jsonl(.gz)`, the timestamp
    the last underscore-separated part (`2024-05-01T12-00-00.123456`), so `scalr_legalbench_mc` is never read as
    `scalr_legalbench`; None for another name."""
    name = Path(log).name
    for suffix in (".gz", ".jsonl"):
        name = name[:-len(suffix)] if name.endswith(suffix) else name
    if not name.startswith("samples_") or "_" not in name[len("samples_"):]:
        return None
    return name[len("samples_"):].rsplit("_", 1)[0] or None


def sent_prompt_tokens(record: dict, ids: list[str], logs: list[str]) -> tuple[float, str] | None:
    """(mean prompt tokens per item, the prompt sets counted) of the items `ids` in the record: each item's count
    from the prompt sets that hold it, first those whose harness task the scored logs name (`logs`: their file
    names, `samples_<task>_<date>.jsonl`), else any; None when an item is in none, or in sets that differ on it."""
    sets = {name: tokens for name, tokens in record["prompt_tokens"].items() if isinstance(tokens, dict)}
    tasks = {log_task(log) for log in logs}
    named = {name: tokens for name, tokens in sets.items() if name in tasks}
    for chosen in (named, sets):
        counts = [{tokens[item] for tokens in chosen.values() if item in tokens} for item in ids]
        if ids and all(len(found) == 1 for found in counts):
            used = sorted(name for name, tokens in chosen.items() if any(item in tokens for item in ids))
            return sum(found.pop() for found in counts) / len(ids), ", ".join(used)
    return None
