"""Exported encoders travel with the models trained on them.

A method that encodes with an ONNX backend gets a copy of its exported encoder(s) in its model folder
(`encoders/<encoder key>-<precision>/`). Loading the folder puts a missing copy back into the cache, so a
model predicts on a machine, or with a cache, that never exported the encoder: no export, and no import
of torch's transformer stack, at prediction time.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from .onnx_encoder import BACKENDS, ensure_exported, model_folder

BUNDLE = "encoders"
FILES = ("model.onnx", "export.json")


def encoders_of(method) -> list[str | None]:
    """The encoders `method` runs through an ONNX backend (none for torch or for methods without encoders)."""
    backend = getattr(method, "encode_backend", None)
    if backend not in BACKENDS or backend == "torch" or not hasattr(method, "encoder"):
        return []
    return [method.encoder, *getattr(method, "extra_encoders", [])]


def bundle_encoders(method, folder: Path) -> None:
    """Copy the exported encoders of `method` into `folder`/encoders/ (exporting any not exported yet)."""
    for encoder in encoders_of(method):
        source = ensure_exported(encoder, method.encode_backend)
        target = Path(folder) / BUNDLE / source.name
        target.mkdir(parents=True, exist_ok=True)
        for name in FILES:
            if (source / name).is_file():
                shutil.copyfile(source / name, target / name)


def restore_encoders(method, folder: Path) -> None:
    """Put the exported encoders bundled in `folder` back into the cache where they are missing."""
    for encoder in encoders_of(method):
        cached = model_folder(encoder, method.encode_backend)
        bundled = Path(folder) / BUNDLE / cached.name
        if (cached / "model.onnx").is_file() or not (bundled / "model.onnx").is_file():
            continue
        cached.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{cached.name}-", dir=cached.parent))
        try:
            for name in FILES:
                if (bundled / name).is_file():
                    shutil.copyfile(bundled / name, work / name)
            if cached.exists():
                shutil.rmtree(cached)
            os.replace(work, cached)
        finally:
            shutil.rmtree(work, ignore_errors=True)
