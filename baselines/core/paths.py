"""Every folder the package reads or writes, and the environment variables that move them.

| folder  | option         | environment          | default                          |
|---------|----------------|----------------------|----------------------------------|
| data    | --data-dir     | BASELINES_DATA       | $XDG_DATA_HOME/legal-baselines, else ~/.local/share/legal-baselines |
| models  | --models-dir   | BASELINES_MODELS     | ./models                         |
| results | --results-dir  | BASELINES_RESULTS    | ./results                        |
| cache   |                | BASELINES_CACHE      | ~/.cache/legal-baselines         |
| configs | --config FILE  | BASELINES_CONFIGS    | the configs/ folder of this repo |

Nothing else in the package reads these variables.
"""
from __future__ import annotations

import os
from pathlib import Path

from baselines.core.errors import BaselinesError, DataError

PACKAGED_CONFIGS = Path(__file__).resolve().parents[1] / "configs"  # a wheel ships configs/ as baselines/configs
REPO_CONFIGS = Path(__file__).resolve().parents[2] / "configs"  # a source checkout (editable install)


class MissingData(DataError):
    """A benchmark's files are absent from the data folder `root` (`baselines data download` can fetch them)."""

    def __init__(self, message: str, root: Path):
        super().__init__(message)
        self.root = Path(root)


def data_home() -> Path:
    """The per-user data folder: $XDG_DATA_HOME/legal-baselines (an absolute path), else ~/.local/share/legal-baselines."""
    xdg = os.environ.get("XDG_DATA_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    return base / "legal-baselines"


def data_location(data_dir: str | Path | None = None) -> tuple[Path, str]:
    """(the data folder, what chose it: "--data-dir", "BASELINES_DATA" or "default"), not checked."""
    if data_dir:
        return Path(data_dir).expanduser(), "--data-dir"
    if os.environ.get("BASELINES_DATA"):
        return Path(os.environ["BASELINES_DATA"]).expanduser(), "BASELINES_DATA"
    return data_home(), "default"


def data_root(data_dir: str | Path | None) -> Path:
    """The benchmark data folder: --data-dir, else $BASELINES_DATA, else data_home(); it must exist and be readable."""
    root, origin = data_location(data_dir)
    if origin == "default" and not root.exists():
        raise MissingData(f"no data folder given (--data-dir DIR or BASELINES_DATA=DIR), and the default one, "
                          f"{root}, does not exist yet", root)
    if not root.is_dir() or not os.access(root, os.R_OK | os.X_OK):
        raise BaselinesError(f"data folder {root} does not exist or cannot be read")
    return root


def models_root(models_dir: str | Path | None = None) -> Path:
    """Fitted models: --models-dir, else $BASELINES_MODELS, else ./models."""
    return Path(models_dir or os.environ.get("BASELINES_MODELS") or "models")


def results_root(results_dir: str | Path | None = None) -> Path:
    """What `eval` and `score` write: --results-dir, else $BASELINES_RESULTS, else ./results."""
    return Path(results_dir or os.environ.get("BASELINES_RESULTS") or "results")


def cache_root() -> Path:
    """Encoding caches: $BASELINES_CACHE, else ~/.cache/legal-baselines."""
    return Path(os.environ.get("BASELINES_CACHE") or Path.home() / ".cache" / "legal-baselines")


_TASK_CONFIGS: dict[str, Path] = {}  # task -> the configs folder its own package ships (registered on discovery)


def register_task_configs(task: str, folder: Path) -> None:
    """A benchmark package's own configs folder for `task`, used where the configs root holds none for it."""
    _TASK_CONFIGS[task] = Path(folder)


def task_configs(task: str) -> Path:
    """The folder of `task`'s named configs: <configs root>/<task> when $BASELINES_CONFIGS is set or that folder
    exists, else the one the task's own package ships (a plugin's), else the former."""
    root = configs_root() / task
    if os.environ.get("BASELINES_CONFIGS") or root.is_dir() or task not in _TASK_CONFIGS:
        return root
    return _TASK_CONFIGS[task]


def configs_root() -> Path:
    """Named method configs: $BASELINES_CONFIGS, else the configs/ folder installed with the package, else the
    source checkout's."""
    if os.environ.get("BASELINES_CONFIGS"):
        return Path(os.environ["BASELINES_CONFIGS"])
    return PACKAGED_CONFIGS if PACKAGED_CONFIGS.is_dir() else REPO_CONFIGS
