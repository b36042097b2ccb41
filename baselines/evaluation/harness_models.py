"""One model per scored harness folder: an `--output_path` that holds the runs of two models is not one system.

lm-evaluation-harness writes each model's run into its own folder under `--output_path`
(`<output>/<model name>/`), a `results_<date>.json` beside the sample logs; the results file names the model
(`model_name`, else `config.model_args`' pretrained=, model=, path= ... as the harness reads it, else
`config.model`). A folder whose sample logs lie beside results files naming two models or more is refused,
naming each model and its folder: score the folder of one model. Logs with no results file beside them name no
model and are not counted.
"""
from __future__ import annotations

import json
from pathlib import Path

from baselines.core.errors import DataError

MODEL_ARGS_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine")  # the harness's order


def results_model(path: Path) -> str | None:
    """The model a harness `results_*.json` names, or None when it names none (or is no JSON object)."""
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(results, dict):
        return None
    if isinstance(results.get("model_name"), str) and results["model_name"]:
        return results["model_name"]
    config = results.get("config") if isinstance(results.get("config"), dict) else {}
    args = config.get("model_args")
    for key in MODEL_ARGS_KEYS:
        if isinstance(args, dict) and args.get(key):
            return str(args[key])
        if isinstance(args, str) and f"{key}=" in args:
            return args.split(f"{key}=", 1)[1].split(",")[0]
    return str(config["model"]) if config.get("model") else None


def check_one_model(folder: Path, files: list[Path]) -> None:
    """Refuse a folder whose sample logs (`files`) lie beside results files of two models or more."""
    models: dict[str, set[Path]] = {}
    for place in sorted({path.parent for path in files}):
        for results in sorted(place.glob("results_*.json")):
            name = results_model(results)
            if name is not None:
                models.setdefault(name, set()).add(place)
    if len(models) < 2:
        return
    shown = "; ".join(f"{name} (in {', '.join(_shown(place, folder) for place in sorted(places))})"
                      for name, places in sorted(models.items()))
    example = _shown(sorted(next(iter(models.values())))[0], folder)
    raise DataError(f"the harness logs here are the runs of {len(models)} models: {shown}; score one model's "
                    f"folder at a time (e.g. {Path(folder) / example})", folder)


def _shown(place: Path, folder: Path) -> str:
    try:
        return place.relative_to(folder).as_posix() or "."
    except ValueError:
        return str(place)
