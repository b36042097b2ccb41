"""Method parameters: the method's dataclass defaults, then a YAML config, then command-line overrides.

The dataclass is the one source of defaults. A YAML file holds only what differs from them: named
variants live in configs/<task>/<method>-<variant>.yaml (`--config FILE`, or `--config NAME` for a
file of the configs folder); configs/<task>/<method>.yaml, when present, applies without --config.
Unknown keys are errors; the resolved parameters are saved with the model and the results.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Hashable
from pathlib import Path

import yaml

from baselines.core.errors import BaselinesError
from baselines.core.reading import read_text_as_given
from baselines.core.params import (allows_none, check_params, field_defaults, hint_options, is_number_grid,
                                   type_hints)


FORMER_DEFAULTS = {"encode_backend": "torch"}  # parameter -> its default before configs recorded it


def with_former_defaults(saved: dict, known: set | dict) -> dict:
    """`saved` parameters plus the former default of each parameter in `known` that `saved` does not record
    (a model or run saved before `encode_backend` existed was encoded with torch)."""
    return {**{k: v for k, v in FORMER_DEFAULTS.items() if k in known and k not in saved}, **saved}


def config_path(task: str, method: str) -> Path:
    """configs/<task>/<method>.yaml under the configs folder, or in the folder the task's own package ships (see
    paths.task_configs)."""
    from baselines.core.paths import task_configs

    return task_configs(task) / f"{method}.yaml"


def config_file(task: str, given: Path | str) -> Path:
    """The YAML file that --config names: a path, or the name of a file in configs/<task>/ ('learned-lexical')."""
    path = Path(given)
    if path.is_file() or path.suffix or len(path.parts) > 1:
        return path
    named = config_path(task, str(given))
    return named if named.is_file() else path


def read_config(path: Path) -> dict:
    """The parameter values a YAML config file sets (plain UTF-8 YAML: no aliases, no key named twice in one mapping,
    at most MAX_CONFIG_BYTES)."""
    path = Path(path)
    if path.stat().st_size > MAX_CONFIG_BYTES:
        raise BaselinesError(f"{path}: a config is at most {MAX_CONFIG_BYTES // 1024} KiB of YAML")
    text = read_text_as_given(path)  # not UTF-8 (a Latin-1 byte, UTF-16): refused naming the line and the byte
    if "\x00" in text:
        raise BaselinesError(f"{path}: holds a NUL byte (at byte {text.encode().index(0) + 1}): not UTF-8 text "
                             "(UTF-16 without a byte-order mark?); save it as UTF-8")
    try:
        loaded = yaml.load(text, Loader=_PlainLoader) or {}
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f":{mark.line + 1}" if mark is not None else ""
        raise BaselinesError(f"{path}{where}: invalid YAML ({exc.problem or exc.context})") from None
    except yaml.YAMLError as exc:
        raise BaselinesError(f"{path}: invalid YAML ({' '.join(str(exc).split())})") from None
    except RecursionError:
        raise BaselinesError(f"{path}: YAML nested too deeply to read") from None
    if not isinstance(loaded, dict):
        raise BaselinesError(f"{path}: expected a mapping of parameter names to values")
    return loaded


MAX_CONFIG_BYTES = 64 * 1024


class _PlainLoader(yaml.SafeLoader):
    """yaml's safe loader without aliases: a parameter file never needs them, and nested aliases can expand
    a few lines into billions of values."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.MarkedYAMLError(problem="aliases (*name) are not allowed in a config",
                                       problem_mark=event.start_mark)
        return super().compose_node(parent, index)

    def construct_mapping(self, node, deep=False):
        """A mapping that names each key once: YAML would keep the last value of a key named twice, unsaid."""
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                if isinstance(key, Hashable) and key in seen:
                    raise yaml.MarkedYAMLError(problem=f"the key {key!r} is named twice in one mapping; each key may "
                                                       "appear once", problem_mark=key_node.start_mark)
                if isinstance(key, Hashable):
                    seen.add(key)
        return super().construct_mapping(node, deep)


def parse_overrides(pairs: list[str]) -> dict:
    """'key=value' strings -> dict, values parsed as YAML scalars ('3' -> 3, 'true' -> True); a key set twice is
    refused, as in a config file (the last value would win, unsaid)."""
    out = {}
    for pair in pairs or []:
        if "=" not in pair:
            raise BaselinesError(f"--set expects key=value, got {pair!r}")
        key, value = pair.split("=", 1)
        if key.strip() in out:
            raise BaselinesError(f"--set {key.strip()} is given twice; give each key once")
        try:
            out[key.strip()] = yaml.load(value, Loader=_PlainLoader) if value else ""
        except yaml.YAMLError as exc:
            raise BaselinesError(f"--set {pair!r}: the value is not valid YAML "
                                 f"({getattr(exc, 'problem', None) or exc})") from None
        except RecursionError:
            raise BaselinesError(f"--set {key.strip()}: the value is nested too deeply") from None
    return out


def resolve_config(klass, task: str, method: str, path: Path | None = None, overrides: dict | None = None) -> dict:
    """The method's parameters: class defaults < config file < overrides; unknown keys are errors, and every value,
    defaults included, is checked (baselines.core.params) before anything else is done."""
    fields = {f.name for f in dataclasses.fields(klass)}
    chosen = config_file(task, path) if path else config_path(task, getattr(klass, "name", "") or method)
    from_file: dict = {}
    if chosen.is_file():
        loaded = read_config(chosen)
        _check_keys(loaded, fields, str(chosen))
        from_file = typed(loaded, klass, str(chosen))
    elif path:
        raise _missing_config(task, Path(path))
    overrides = dict(overrides or {})
    _check_keys(overrides, fields, "command-line overrides")
    from_overrides = typed(overrides, klass, "command-line overrides")
    origins = {**{key: str(chosen) for key in from_file}, **{key: "command-line overrides" for key in from_overrides}}
    check_params(klass, {**field_defaults(klass), **from_file, **from_overrides}, origins)
    defaults = {f.name: f.default for f in dataclasses.fields(klass) if f.default is not dataclasses.MISSING}
    return {**defaults, **from_file, **from_overrides}


def typed(given: dict, klass, where: str) -> dict:
    """`given` with each value fitted to its parameter's type: numbers YAML reads as strings ('2e-5') become
    numbers, whole floats become ints where an int is meant (for a number whose default is null: as its annotation
    says); anything that does not fit (a word for a number, a number for a flag, null where neither the default nor
    the annotation is null) is an error naming the parameter. Ranges and allowed values are check_params's."""
    defaults, hints = field_defaults(klass), type_hints(klass)
    checked = {}
    for key, value in given.items():
        default = defaults.get(key, dataclasses.MISSING)
        if value is None and default is not None and not allows_none(hints.get(key)):
            raise BaselinesError(f"{where}: {key} cannot be null (its default is {default!r})")
        example = _annotated_example(hints.get(key)) if default is None else default
        checked[key] = _fit(value, example, key, where)
    return checked


def _annotated_example(hint):
    """A number of the one number type (int or float) that an optional parameter's annotation names, else None."""
    if hint is None:
        return None
    kinds = [option for option in hint_options(hint) if option is not type(None)]
    return {int: 0, float: 0.0}.get(kinds[0]) if len(kinds) == 1 else None


def _fit(value, default, key: str, where: str):
    kind = type(default)
    sequences = isinstance(value, (list, tuple)) and isinstance(default, (list, tuple))
    if sequences and is_number_grid(default):
        return _number_grid(value, default, key, where)
    if value is None or default is None or default is dataclasses.MISSING or sequences \
            or isinstance(value, kind) and kind is not int:
        return value
    try:
        if kind is bool:
            raise ValueError
        if kind is float and not isinstance(value, bool):
            return float(value)
        if kind is int and not isinstance(value, bool):
            if isinstance(value, int):
                return value
            number = float(value)
            if number.is_integer():
                return int(number)
        if kind is str and isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
    except (TypeError, ValueError, OverflowError):
        pass
    raise BaselinesError(f"{where}: {key} must be {_KINDS.get(kind, kind.__name__)}, got {value!r}")


def _number_grid(value, default, key: str, where: str):
    """Numbers given for a parameter that lists numbers, each fitted as the default's are: whole numbers where the
    default lists only whole numbers (boosting rounds), else numbers."""
    example = 0 if all(isinstance(x, int) for x in default) else 0.0
    return type(value)(_fit(item, example, key, where) for item in value)


_KINDS = {bool: "true or false", int: "a whole number", float: "a number", str: "text", list: "a list",
          tuple: "a list", dict: "a mapping"}


def _missing_config(task: str, given: Path) -> BaselinesError:
    """A --config that names no file: a bare name lists the named configs of the task."""
    if given.suffix or len(given.parts) > 1:
        return BaselinesError(f"config file {given} not found")
    from baselines.core.errors import unknown_name

    names = [p.stem for p in config_path(task, str(given)).parent.glob("*.yaml")]
    return unknown_name(f"config for task {task!r} (a file, or a name in configs/{task}/)", str(given), names)


def _check_keys(given: dict, fields: set, where: str) -> None:
    unknown = sorted(set(given) - fields)
    if unknown:
        valid = ", ".join(sorted(fields)) or "none (this method takes no parameters)"
        raise BaselinesError(f"{where}: unknown key(s) {', '.join(unknown)}; valid: {valid}")
