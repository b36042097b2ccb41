"""The estimator contract every method follows, and its model-folder format."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import ClassVar

from baselines.core.config import with_former_defaults
from baselines.encoders.bundle import bundle_encoders, restore_encoders
from baselines.core.errors import BaselinesError
from baselines.core.io import atomic_path, read_json, write_json
from baselines.core.versions import library_versions
from baselines.methods import registration
from baselines.methods.checkpoint import MARKER as PARTIAL_MARKER


class _FromRegistry:
    """`task` or `name` of a method class: that of its entry in the registry, looked up when first read (so that
    defining a method class triggers no discovery of benchmarks); "" for a class that is not registered. A class
    may set its own (a class attribute overrides this)."""

    def __set_name__(self, owner, attribute: str) -> None:
        self.attribute = attribute
        self.found: dict[type, str] = {}

    def __get__(self, instance, owner) -> str:
        if owner not in self.found:
            entry = registration(owner)
            value = getattr(entry, self.attribute) if entry is not None else ""
            if entry is None:
                return value  # not (yet) registered: looked up again next time
            self.found[owner] = value
        return self.found[owner]


class Method:
    """Base of all methods: a dataclass of hyperparameters; fitted state ends in '_'.

    Subclasses are dataclasses and implement `fit(train, val=None) -> self`, `predict(records)`
    (a list of {"id", "prediction", ...} rows) and, when fitted state exists, `save_state(folder)` /
    `load_state(folder)` writing plain files (JSON, .npz read without pickle, torch state_dict; a joblib
    pickle only where no plain format exists, see plain_state.py). A registered class takes `task` and
    `name` from its entry in the registry (baselines/methods/__init__.py), read when first used.
    """

    task = _FromRegistry()  # the task and the method name of the class's registry entry ("": not registered)
    name = _FromRegistry()
    needs_fit: ClassVar[bool] = True  # False: predicts without training (similarity choosers)
    placement_params: ClassVar[tuple] = ()  # parameters that say where the work runs, not what it computes

    def get_params(self) -> dict:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def fit(self, train, val=None):
        return self

    def predict(self, records) -> list[dict]:
        raise NotImplementedError

    def fit_notes(self) -> dict:
        """What a fit says of itself: name -> a JSON document with a one-line "summary", kept in config.json
        under "notes" and printed by `train` (none here)."""
        return {}

    def save_state(self, folder: Path) -> None:
        """Write fitted state into `folder` (nothing for stateless methods)."""

    def load_state(self, folder: Path) -> None:
        """Read fitted state written by save_state."""

    def config_dict(self, extra: dict | None = None) -> dict:
        """What config.json holds: the method's class, resolved parameters and library versions."""
        return {"task": self.task, "method": self.name, "class": f"{type(self).__module__}:{type(self).__qualname__}",
                "params": self.get_params(), "versions": library_versions(), **(extra or {})}

    def save(self, folder: Path, extra: dict | None = None, records: dict | None = None) -> Path:
        """Write config.json, the fitted state and `records` (file name -> JSON document, such as the digests of
        the items it was fit on) into `folder`, atomically replacing it: only a model folder (one that holds
        config.json) or an empty one is replaced, and never through a symbolic link. A model folder that the
        state holds (an ensemble's member) gets the records too, so it is checked as its own model when it is
        evaluated alone."""
        folder = Path(folder)
        with atomic_path(folder, marker=("config.json", PARTIAL_MARKER)) as tmp:  # a model, or one being trained
            tmp.mkdir(parents=True)
            write_json(tmp / "config.json", self.config_dict(extra))
            self.save_state(tmp)
            for model_folder in [tmp, *nested_model_folders(tmp)]:
                for name, document in (records or {}).items():
                    write_json(model_folder / name, document)
            bundle_encoders(self, tmp)
        return folder

    @classmethod
    def load(cls, folder: Path) -> "Method":
        """Rebuild a method from a folder written by save()."""
        folder = Path(folder)
        config_path = folder / "config.json"
        if not config_path.is_file() and (folder / PARTIAL_MARKER).is_file():
            raise BaselinesError(f"{folder} holds an unfinished training, not a model: rerun its `baselines train` "
                                 "with --resume to finish it")
        if not config_path.is_file():
            raise BaselinesError(f"{folder} is not a model folder (no config.json); train one first")
        config = read_json(config_path)
        klass = saved_class(config.get("class", ""), config_path)
        method = klass(**with_former_defaults(config["params"], {f.name for f in dataclasses.fields(klass)}))
        method.load_state(folder)
        restore_encoders(folder)
        return method


def saved_class(target: str, where: Path) -> type:
    """The method class that a config.json names as 'module:Class'."""
    from baselines.core.lazy import import_object
    from baselines.registry import current_target

    try:
        klass = import_object(current_target(target))
    except (ValueError, ImportError, AttributeError):
        raise BaselinesError(f"{where}: names the class {target!r}, which this version does not have") from None
    if not (isinstance(klass, type) and issubclass(klass, Method)):
        raise BaselinesError(f"{where}: {target!r} is not a method class")
    return klass


def params_of(config_class: type, method) -> object:
    """A `config_class` dataclass filled from the same-named parameters of `method`."""
    return config_class(**{f.name: getattr(method, f.name) for f in dataclasses.fields(config_class)})


def nested_model_folders(folder: Path) -> list[Path]:
    """The model folders (config.json naming a method) directly inside `folder`: an ensemble's members, not a
    bundled encoder's folder."""
    return [config.parent for config in sorted(folder.glob("*/config.json")) if "method" in read_json(config)]
