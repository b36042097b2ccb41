"""Finding and loading the model that `baselines train` saved, for the commands that use one (such as
`baselines predict`): the folder given with --model, else the method's folder under the models folder; a folder
without a saved model is refused with the command that would save one."""
from __future__ import annotations

from pathlib import Path

from baselines.core.errors import BaselinesError
from baselines.core.paths import models_root
from baselines.methods import saved_model_folder
from baselines.registry import get_task


def trained_model_folder(task: str, model: Path | None, method_name: str | None, models_dir, *,
                         train_command: str) -> Path:
    """The folder of `model`, else models/<task>/<method> (the task's default method when none is named).

    A folder without config.json holds no trained model: the error names `train_command`, the command that
    trains one there, and --model.
    """
    folder = Path(model) if model else saved_model_folder(models_root(models_dir), task,
                                                          method_name or get_task(task).default_method)
    if not (folder / "config.json").is_file():
        raise BaselinesError(f"no trained model in {folder}; run `{train_command}` first (or pass --model)")
    return folder


def load_trained_model(task: str, model: Path | None, method_name: str | None, models_dir, *, train_command: str):
    """The fitted method saved in trained_model_folder(...) (same arguments, same refusal)."""
    from baselines.methods.base import Method

    return Method.load(trained_model_folder(task, model, method_name, models_dir, train_command=train_command))
