"""Method configs: configs/<task>/<method>.yaml, strict keys, plus command-line overrides."""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import yaml

from .errors import BaselinesError

CONFIG_ROOT = Path(os.environ.get("BASELINES_CONFIGS", Path(__file__).resolve().parent.parent / "configs"))


def config_path(task: str, method: str) -> Path:
    return CONFIG_ROOT / task / f"{method}.yaml"


def parse_overrides(pairs: list[str]) -> dict:
    """'key=value' strings -> dict, values parsed as YAML scalars ('3' -> 3, 'true' -> True)."""
    out = {}
    for pair in pairs or []:
        if "=" not in pair:
            raise BaselinesError(f"--set expects key=value, got {pair!r}")
        key, value = pair.split("=", 1)
        out[key.strip()] = yaml.safe_load(value) if value else ""
    return out


def resolve_config(klass, task: str, method: str, path: Path | None = None, overrides: dict | None = None) -> dict:
    """The method's parameters: class defaults < config file < overrides; unknown keys are errors."""
    fields = {f.name for f in dataclasses.fields(klass)}
    chosen = Path(path) if path else config_path(task, method)
    params: dict = {}
    if chosen.is_file():
        try:
            loaded = yaml.safe_load(chosen.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as exc:
            raise BaselinesError(f"{chosen}: invalid YAML ({exc})") from None
        if not isinstance(loaded, dict):
            raise BaselinesError(f"{chosen}: expected a mapping of parameter names to values")
        _check_keys(loaded, fields, str(chosen))
        params.update(loaded)
    elif path:
        raise BaselinesError(f"config file {chosen} not found")
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    _check_keys(overrides, fields, "command-line overrides")
    params.update(overrides)
    defaults = {f.name: f.default for f in dataclasses.fields(klass) if f.default is not dataclasses.MISSING}
    return {**defaults, **params}


def _check_keys(given: dict, fields: set, where: str) -> None:
    unknown = sorted(set(given) - fields)
    if unknown:
        raise BaselinesError(f"{where}: unknown key(s) {', '.join(unknown)}; valid: {', '.join(sorted(fields))}")
