"""Fetching a missing benchmark on a user's first run: the one command to run, or `--download` to do it now."""
from __future__ import annotations

from typing import Callable

from baselines.core.errors import BaselinesError
from baselines.core.paths import MissingData, data_location


def with_benchmark(task_name: str, function: Callable, *, download: bool = False,
                   confirm: Callable[[str], bool] | None = None):
    """`function()`; when it finds a benchmark's files missing from the data folder (MissingData), fetch them
    there (with `download`, or when `confirm(question)` says yes) and call it once more; otherwise one error
    naming the command that fetches them."""
    from baselines.registry import Download, get_task

    try:
        return function()
    except MissingData as missing:
        task, root = get_task(task_name), missing.root
        fetcher = task.capability(Download)
        if fetcher is None:
            raise
        if not (download or (confirm is not None and confirm(f"{missing}. Download {task.name} into {root} now?"))):
            raise BaselinesError(missing_message(missing, task.name)) from None
    fetcher.fetch(root)
    try:
        return function()
    except MissingData as again:
        raise BaselinesError(f"{again} (after downloading {task.name} into {root})") from None


def missing_message(missing: MissingData, task_name: str) -> str:
    """The error for missing benchmark files: what is missing, the one command that fetches them and where."""
    home, origin = data_location(None)
    dest = "" if missing.root == home else f" --dest {missing.root}"
    where = (" (the default data folder; --data-dir DIR or BASELINES_DATA=DIR choose another)"  # said already
             if origin == "default" and missing.root == home and home.exists() else "")  # when it does not exist
    return (f"{missing}. `baselines data download {task_name}{dest}` fetches it into {missing.root}{where}, "
            "or rerun with --download")
