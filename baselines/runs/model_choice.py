"""The method a run uses and its saved model, resolved once per run: the class, and the model folder it loads
(--model, or models/<task>/<name>; none for a stateless method), then the method itself, built or loaded."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from baselines.core.config import config_file, read_config, resolve_config, with_former_defaults
from baselines.core.errors import BaselinesError
from baselines.core.io import read_json
from baselines.core.paths import models_root
from baselines.core.safe_write import settled
from baselines.methods import method_class, registration, saved_model_folder
from baselines.methods.base import Method, saved_class
from baselines.methods.checkpoint import is_partial
from baselines.registry import Task


@dataclass(frozen=True)
class ModelChoice:
    """What an evaluation runs: the method's name and class, and the saved model folder it loads (None: a
    stateless method, built from its config); `given` when the folder came from --model."""

    task: str
    method_name: str
    klass: type[Method]
    folder: Path | None
    given: bool


def resolve_model(task: Task, method_name: str, *, model: Path | None, models_dir, name: str | None) -> ModelChoice:
    """The method class and the model folder an evaluation loads (--model, or models/<task>/<name>)."""
    klass = method_class(task.name, method_name)
    if not klass.needs_fit and not model:
        folder = None
    else:
        folder = Path(model) if model else saved_model_folder(models_root(models_dir), task.name, name or method_name)
    return ModelChoice(task.name, method_name, klass, folder, bool(model))


def build_method(task: str, method: str, config: Path | None = None, overrides: dict | None = None,
                 klass: type[Method] | None = None) -> Method:
    """A fresh, unfitted method with its resolved parameters (`klass`: the method's class, when already known)."""
    klass = klass or method_class(task, method)
    return method_from_params(klass, resolve_config(klass, task, method, config, overrides))


def method_from_params(klass: type[Method], params: dict) -> Method:
    """A fresh, unfitted method of parameters resolved by resolve_config."""
    if params.get("encode_backend") == "auto":  # saved and recorded as the backend it stands for here
        from baselines.encoders.bundle import method_encoders
        from baselines.encoders.onnx_backend import resolve_backend

        params["encode_backend"] = resolve_backend(method_encoders(params), "auto")
    return klass(**params)


def load_method(task: Task, choice: ModelChoice, *, name: str | None, config: Path | None,
                overrides: dict | None) -> Method:
    """The saved model of `choice` when it exists (or was given); a stateless method is built from its config."""
    params = resolve_config(choice.klass, task.name, choice.method_name, config, overrides)  # bad values first
    folder = choice.folder
    if folder is None:
        return method_from_params(choice.klass, params)
    settled(folder)  # a retraining killed between its renames: the model it replaced is put back (or named)
    if (folder / "config.json").is_file():
        check_saved_method(folder, choice)
        check_saved_config(task, folder, config, overrides)
        return Method.load(folder)
    if choice.given and not is_partial(folder):
        raise BaselinesError(f"{folder} is not a model folder (no config.json)")
    method = method_from_params(choice.klass, params)
    if method.needs_fit:
        command = train_command(task.name, choice.method_name, name, config, overrides)
        if is_partial(folder):
            raise BaselinesError(f"{folder} holds an unfinished training, not a model: run `{command} --resume` to "
                                 "finish it")
        raise BaselinesError(f"no trained model in {folder}; run `{command}` first"
                             + (" or evaluate with --cv K" if task.train_split is None else ""))
    return method


def named_model(task: str, name: str | None, models_dir) -> Path | None:
    """The model folder a --name names (models/<task>/<name>), or None without a name."""
    return saved_model_folder(models_root(models_dir), task, name) if name else None


def saved_method(task: str, folder) -> str | None:
    """The name of the method a saved model folder was saved by (the class its config.json names), or None: no
    folder, no config.json, or a class that is no method of `task`."""
    if folder is None:
        return None
    settled(Path(folder))  # a retraining killed between its renames: the model it replaced is put back (or named)
    path = Path(folder) / "config.json"
    if not path.is_file():
        return None
    entry = registration(_saved_class(path))
    return entry.name if entry is not None and entry.task == task else None


def check_saved_method(folder: Path, choice: ModelChoice) -> None:
    """Refuse to evaluate a saved model under another method's name (its run would be filed, and reproduced, as
    that method): the class its config.json names must be the class of the method asked for."""
    klass = _saved_class(folder / "config.json")
    if klass is not choice.klass:
        entry = registration(klass)
        saved = entry.name if entry is not None else klass.__name__
        raise BaselinesError(f"{folder} holds a model saved by the method {saved!r}, not {choice.method_name!r}: "
                             f"leave --method out (a saved model is evaluated as the method that saved it), or "
                             f"give --method {saved}")


def _saved_class(path: Path) -> type[Method]:
    config = read_json(path)
    return saved_class(config.get("class", "") if isinstance(config, dict) else "", path)


def train_command(task: str, method: str, name: str | None, config: Path | None, overrides: dict | None) -> str:
    """The `baselines train` command that fits what an eval of the same options looks for: the method, its
    --config and every override, and --name where it is not the default one (the config's name, else the
    method's)."""
    overrides = dict(overrides or {})
    encoder = overrides.pop("encoder", None)
    parts = [f"baselines train {task} --method {method}"] + ([f"--config {config}"] if config else [])
    parts += [f"--set {key}={str(value).lower() if isinstance(value, bool) else value}"
              for key, value in overrides.items()]
    parts += [f"--encoder {encoder}"] if encoder else []
    default_name = Path(config).stem if config else method
    parts += [f"--name {name}"] if name and name != default_name and not encoder else []
    return " ".join(parts)


def check_saved_config(task: Task, folder: Path, config: Path | None, overrides: dict | None) -> None:
    """Refuse --config/--set/--encoder values that differ from those the saved model was trained with."""
    saved_config = read_json(folder / "config.json")
    given = {**(read_config(config_file(task.name, config)) if config else {}), **(overrides or {})}
    if given.get("encode_backend") == "auto":  # stands for the backend it resolves to, as at training
        from baselines.encoders.bundle import method_encoders
        from baselines.encoders.onnx_backend import resolve_backend

        given["encode_backend"] = resolve_backend(method_encoders({**saved_config["params"], **given}), "auto")
    saved = with_former_defaults(saved_config["params"], given)  # a value it was trained with is no override
    differing = sorted(k for k, v in given.items() if saved.get(k, object()) != v)
    if differing:
        raise BaselinesError(f"{folder} holds a saved model trained with other values of {', '.join(differing)}: "
                             "--config/--set/--encoder do not apply to it (retrain with them, or evaluate with --cv K)")
