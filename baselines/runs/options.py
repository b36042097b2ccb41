"""The defaults and checks that the CLI's options and the Python API's keywords share: one meaning, one place."""
from __future__ import annotations

from pathlib import Path

from baselines.core.errors import BaselinesError

MISSING = ("error", "wrong", "skip", "failed-wrong")  # --missing / missing=: references without a prediction


def missing_policy(missing: str, only_present: bool, only_present_name: str = "only_present=True",
                   missing_name: str = "missing={!r}") -> str:
    """only_present is missing "skip"; with another missing policy it is a contradiction, refused (the names
    are those of the caller's vocabulary: `--only-present` / `--missing wrong` for the CLI)."""
    if missing not in MISSING:
        raise BaselinesError(f"{missing_name.format(missing)} is not a missing-id policy; valid: {', '.join(MISSING)}")
    if only_present and missing not in ("error", "skip"):
        raise BaselinesError(f"{only_present_name} (score the covered ids only) contradicts "
                             f"{missing_name.format(missing)}: give one of them")
    return "skip" if only_present else missing


def name_list(names) -> list[str] | None:
    """A list of names from a list or a comma-separated string; None when none is given."""
    if isinstance(names, str):
        names = names.split(",")
    names = [name.strip() for name in names or [] if name.strip()]
    return names or None


def load_options(subtasks) -> dict:
    """The loaders' options: the subtasks kept (CaselawQA), when given (a list or a comma-separated string)."""
    names = name_list(subtasks)
    return {"subtasks": names} if names else {}


def method_of(task: str, config: Path | None, model: Path | None = None) -> str:
    """The method a named config belongs to (config "learned-lexical": learned), else the one a saved `model` folder
    was saved by, else the task's default."""
    from baselines.methods.configs import method_of_config
    from baselines.registry import get_task
    from baselines.runs.model_choice import saved_method

    return method_of_config(task, config) or saved_method(task, model) or get_task(task).default_method


def system_name(method: str | None, name: str | None, encoder: str | None, config: Path | None = None) -> str | None:
    """The system name when none is given: a named config's name (`learned-lexical`), with the encoder's folder
    name after it or after the method (`embed-all-mpnet-base-v2`); None: the method's own."""
    if name is not None:
        return name
    named = config is not None and not Path(config).suffix and len(Path(config).parts) == 1
    base = Path(config).name if named else method
    if encoder and base:
        return f"{base}-{Path(encoder).name}"
    return base if named else None
