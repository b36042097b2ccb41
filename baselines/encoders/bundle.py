"""Exported encoders travel with the models trained on them.

A method that encodes with an ONNX backend gets a copy of its exported encoder(s) in its model folder
(`encoders/<encoder key>-<precision>/`). Loading the folder puts a missing copy back into the cache, so a
model predicts with a cache that never exported the encoder: no export, and no import of torch's
transformer stack, at prediction time. The encoder's source folder (its tokenizer and configuration, and
what keys the cache) is still needed: the packaged MiniLM always is there; another encoder must be given
as the same folder it was trained with.
"""
from __future__ import annotations

import logging
import shutil
import tempfile
import time
from pathlib import Path

from baselines.encoders.onnx_backend import ensure_exported, install_folder, resolve_backend
from baselines.core.paths import cache_root

logger = logging.getLogger(__name__)

BUNDLE = "encoders"
FILES = ("model.onnx", "export.json")


def method_encoders(params: dict) -> list:
    """The encoders a method's parameters name: `encoder` and any `extra_encoders`."""
    return [params.get("encoder"), *params.get("extra_encoders", [])] if "encoder" in params else []


def exports_of(method) -> list[tuple]:
    """(encoder, backend) of each export `method` encodes with; with `auto`, also the int8 exports, whose
    export.json holds the fidelity that `auto` decides by."""
    backend = getattr(method, "encode_backend", None)
    if backend in (None, "torch"):
        return []
    encoders = method_encoders(vars(method))
    chosen = resolve_backend(encoders, backend)
    extra = ["onnx-int8"] if backend == "auto" and chosen != "onnx-int8" else []
    return [(encoder, each) for each in (chosen, *extra) for encoder in encoders]


def bundle_encoders(method, folder: Path) -> None:
    """Copy the exports `method` encodes with into `folder`/encoders/ (exporting any not exported yet)."""
    for encoder, backend in exports_of(method):
        source = ensure_exported(encoder, backend)
        target = Path(folder) / BUNDLE / source.name
        target.mkdir(parents=True, exist_ok=True)
        for name in FILES:
            if (source / name).is_file():
                shutil.copyfile(source / name, target / name)


def restore_encoders(folder: Path) -> None:
    """Put the exports bundled in `folder` back into the cache where they are missing (a cache that cannot
    take them is reported, not an error: an encoder is exported again if it is needed)."""
    bundle = Path(folder) / BUNDLE
    for bundled in sorted(bundle.iterdir()) if bundle.is_dir() else []:
        cached = cache_root() / "onnx" / bundled.name
        if (cached / "model.onnx").is_file() or not (bundled / "model.onnx").is_file():
            continue
        try:
            _copy_into_cache(bundled, cached)
        except OSError as exc:
            logger.warning("cannot restore the bundled encoder %s into the cache (%s)", bundled, exc)


def _copy_into_cache(bundled: Path, cached: Path) -> None:
    started = time.time()
    cached.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{cached.name}-", dir=cached.parent))
    try:
        for name in FILES:
            if (bundled / name).is_file():
                shutil.copyfile(bundled / name, work / name)
        install_folder(work, cached, started)
    finally:
        shutil.rmtree(work, ignore_errors=True)
