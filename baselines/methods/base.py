"""The estimator contract every method follows, and its model-folder format."""
from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path
from typing import ClassVar

from ..errors import BaselinesError
from ..io import atomic_path, read_json, write_json
from ..versions import library_versions


class Method:
    """Base of all methods: a dataclass of hyperparameters; fitted state ends in '_'.

    Subclasses are dataclasses and implement `fit(train, val=None) -> self`, `predict(records)`
    (a list of {"id", "prediction", ...} rows) and, when fitted state exists, `save_state(folder)` /
    `load_state(folder)` writing plain files (joblib, torch state_dict, JSON).
    """

    task: ClassVar[str] = ""
    name: ClassVar[str] = ""
    needs_fit: ClassVar[bool] = True  # False: predicts without training (similarity choosers)

    def get_params(self) -> dict:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def fit(self, train, val=None):
        return self

    def predict(self, records) -> list[dict]:
        raise NotImplementedError

    def save_state(self, folder: Path) -> None:
        """Write fitted state into `folder` (nothing for stateless methods)."""

    def load_state(self, folder: Path) -> None:
        """Read fitted state written by save_state."""

    def config_dict(self, extra: dict | None = None) -> dict:
        """What config.json holds: the method's class, resolved parameters and library versions."""
        return {"task": self.task, "method": self.name, "class": f"{type(self).__module__}:{type(self).__qualname__}",
                "params": self.get_params(), "versions": library_versions(), **(extra or {})}

    def save(self, folder: Path, extra: dict | None = None) -> Path:
        """Write config.json and the fitted state into `folder`, atomically replacing it."""
        folder = Path(folder)
        with atomic_path(folder) as tmp:
            tmp.mkdir(parents=True)
            write_json(tmp / "config.json", self.config_dict(extra))
            self.save_state(tmp)
            _keep_cross_validated_outputs(folder, tmp)
        return folder

    @classmethod
    def load(cls, folder: Path) -> "Method":
        """Rebuild a method from a folder written by save()."""
        folder = Path(folder)
        config_path = folder / "config.json"
        if not config_path.is_file():
            raise BaselinesError(f"{folder} is not a model folder (no config.json); train one first")
        config = read_json(config_path)
        module, qualname = config["class"].split(":")
        klass = getattr(importlib.import_module(module), qualname)
        method = klass(**config["params"])
        method.load_state(folder)
        return method


def _keep_cross_validated_outputs(old: Path, new: Path) -> None:
    """Carry <split>.cvK.* files over to a retrained model's folder: they do not depend on the saved model."""
    import shutil

    if old.is_dir():
        for path in old.glob("*.cv[0-9]*.*"):
            shutil.copy2(path, new / path.name)
