"""The record `baselines llm run` keeps of one harness run, `llm_run.json`, and the sample logs it describes.

One record per model run: the harness writes each model's logs into its own folder under `--output_path`
(`<output>/<model name>/samples_<task>_<date>.jsonl`), and the record goes into that folder, beside them. It names
each log it measured (its path from the record's folder, `.gz` left off, so a log kept compressed is the same log)
with the SHA-256 of its text, and counts the documents answered: the distinct `doc_id`s of each log (one log per
task), not its lines, since the harness writes a line per document and filter.

`baselines score` uses a record only when the scored logs are exactly the logs it describes, unchanged
(`record_mismatch`): the logs of another run written into the same folder later, some of the logs of a run (one
task's of two: the record's seconds are those of both), a log changed by hand, or a record without the list
(written before it was kept) leave the cost estimated, with a warning naming why.
"""
from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

from baselines.core.errors import BaselinesError

RECORD = "llm_run.json"
SAMPLE_PATTERNS = ("samples_*.jsonl", "samples_*.jsonl.gz")


def sample_files(path: Path) -> list[Path]:
    """The harness's sample logs: `path` itself (a file), or every samples_*.jsonl(.gz) under it (a folder)."""
    path = Path(path)
    if path.is_file():
        return [path]
    return sorted(found for pattern in SAMPLE_PATTERNS for found in path.rglob(pattern))


def sample_name(path: Path, folder: Path) -> str:
    """A log's name in a record: its path from the record's folder, `.gz` left off."""
    name = Path(path).resolve().relative_to(Path(folder).resolve()).as_posix()
    return name[:-3] if name.endswith(".gz") else name


def sample_text(path: Path) -> bytes:
    """A log's bytes, decompressed when it is kept as .gz."""
    return gzip.decompress(path.read_bytes()) if path.name.endswith(".gz") else path.read_bytes()


def sample_digest(path: Path) -> str:
    return hashlib.sha256(sample_text(path)).hexdigest()


def snapshot(root: Path) -> dict[Path, tuple[int, int]]:
    """(size, modification time) of every sample log under `root`: what a run changed is told from it."""
    return {path: (path.stat().st_size, path.stat().st_mtime_ns) for path in sample_files(root)} \
        if Path(root).is_dir() else {}


def changed_since(root: Path, before: dict[Path, tuple[int, int]]) -> list[Path]:
    """The sample logs under `root` written or changed since `before` was taken."""
    return [path for path, state in snapshot(root).items() if before.get(path) != state]


def count_documents(files: list[Path]) -> dict[Path, int]:
    """The documents each log answers: its distinct `doc_id`s (a line per filter repeats one), a line without
    one counting alone."""
    counts = {}
    for path in files:
        seen, loose = set(), 0
        for line in sample_text(path).splitlines():
            if not line.strip():
                continue
            try:
                doc_id = json.loads(line).get("doc_id")
            except (ValueError, AttributeError):
                doc_id = None
            if doc_id is None or isinstance(doc_id, (dict, list)):
                loose += 1
            else:
                seen.add(str(doc_id))
        counts[path] = len(seen) + loose
    return counts


def describe_samples(files: list[Path], folder: Path) -> tuple[dict[str, str], int]:
    """({log name: SHA-256}, documents) of the logs a run wrote, named from the record's `folder`."""
    counts = count_documents(files)
    return {sample_name(path, folder): sample_digest(path) for path in files}, sum(counts.values())


def common_folder(files: list[Path]) -> Path:
    """The deepest folder holding every one of `files` (the model's folder of one harness run)."""
    parents = [path.resolve().parent for path in files]
    folder = parents[0]
    while not all(parent == folder or folder in parent.parents for parent in parents):
        folder = folder.parent
    return folder


def read_run_record(folder: Path) -> dict | None:
    """The `llm_run.json` of a folder, or None when it has none."""
    path = Path(folder) / RECORD
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BaselinesError(f"{path}: not a cost record of `baselines llm run` ({exc})") from None
    if not isinstance(record, dict) or not {"items", "wall_seconds", "cpu_seconds"} <= set(record):
        raise BaselinesError(f"{path}: not a cost record of `baselines llm run` (items, wall_seconds, cpu_seconds)")
    return record


def find_record(source: Path) -> Path | None:
    """The `llm_run.json` nearest the scored logs: in the folder holding them all, else the one above it (the
    `--output_path` of a record kept there), never above `source` when it is a folder."""
    files = sample_files(source)
    if not files:
        return None
    folder = common_folder(files)
    places = [folder, folder.parent]
    if Path(source).is_dir():
        top = Path(source).resolve()
        places = [place for place in places if place == top or top in place.parents]
    return next((place / RECORD for place in places if (place / RECORD).is_file()), None)


def record_mismatch(record_path: Path, source: Path) -> str | None:
    """Why the record at `record_path` does not describe the logs scored from `source`, or None when it does:
    the scored logs are exactly the logs it lists (not some of them: its seconds are those of all its logs' documents),
    with the same text."""
    record = read_run_record(record_path.parent)
    listed = record.get("samples")
    if not isinstance(listed, dict) or not listed:
        return (f"{record_path} lists no sample logs (written by an earlier version of `baselines llm run`), so "
                "it cannot be told to be the run of these logs")
    for path in sample_files(source):
        name = sample_name(path, record_path.parent)
        if name not in listed:
            return f"{record_path} is the record of another run: it does not list {name}"
        if listed[name] != sample_digest(path):
            return f"{record_path} describes {name} as it was when measured; the log has changed since"
    scored = {sample_name(path, record_path.parent) for path in sample_files(source)}
    left = sorted(set(listed) - scored)
    if left:
        return (f"{record_path} measured {len(listed)} logs together and only {len(scored)} of them are scored "
                f"(not {', '.join(left[:3])}{', ...' if len(left) > 3 else ''}): its seconds are not those of "
                "the scored documents alone")
    return None
