"""Library versions and the code's git commit, recorded with every model and result."""
from __future__ import annotations

import platform
import subprocess
from importlib import metadata
from pathlib import Path

LIBRARIES = ("legal-baselines", "numpy", "scikit-learn", "torch", "pytorch-crf", "sentence-transformers",
             "transformers", "spacy", "onnxruntime", "onnx")


def library_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def git_commit() -> str | None:
    """The commit of the checkout this package runs from, with '+dirty' for uncommitted changes."""
    here = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5)
        if commit.returncode != 0:
            return None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, timeout=5)
        return commit.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None
