"""Parameter checks: every value a method is given is refused at load time, before any data is read, in one line
naming the parameter, what it allows and the value (resolve_config calls check_params for every method).

A value is checked three ways, in this order:
  - every number in it, nested ones included, is finite (no NaN, no infinity);
  - its parameter's rule: the one the method class or one of its parameter dataclasses declares in its
    PARAMETER_RULES (name -> rule; a subclass's declaration wins), else the one SHARED declares for that name in
    every method, else "at least 0" for a number and for each number of a list of numbers;
  - a list or mapping only where the parameter's annotation names one.
Values a method hands to a scikit-learn estimator are checked by the rule Sklearn against that estimator's own
`_parameter_constraints`, so scikit-learn's limits (C greater than 0, ...) apply, in its words, before any fit.
"""
from __future__ import annotations

import dataclasses
import math
import numbers
import re
import typing
from dataclasses import dataclass
from typing import Callable

from baselines.core.errors import BaselinesError


@dataclass(frozen=True)
class Range:
    """A number from `low` to `high` (None: no bound); `above` / `below`: the bound itself is excluded."""

    low: float | None = None
    high: float | None = None
    above: bool = False
    below: bool = False
    whole: bool = False  # a whole number (a seed, a count)

    def text(self) -> str:
        bounds = [f"{'greater than' if self.above else 'at least'} {self.low}" if self.low is not None else "",
                  f"{'below' if self.below else 'at most'} {self.high}" if self.high is not None else ""]
        return " and ".join(bound for bound in bounds if bound) or "any number"

    def allowed(self, value, params: dict) -> str | None:
        """None when `value` is allowed, else what is allowed."""
        if self.whole and not (isinstance(value, numbers.Integral) and not isinstance(value, bool)):
            return f"a whole number ({self.text()})"
        if not is_number(value):
            return f"a number ({self.text()})"
        too_low = self.low is not None and (value <= self.low if self.above else value < self.low)
        too_high = self.high is not None and (value >= self.high if self.below else value > self.high)
        return self.text() if too_low or too_high else None


@dataclass(frozen=True)
class NonZero:
    """A whole number other than 0: joblib's n_jobs (-1: every core, -2: all but one)."""

    def allowed(self, value, params: dict) -> str | None:
        whole = isinstance(value, numbers.Integral) and not isinstance(value, bool)
        return None if whole and value != 0 else "a whole number other than 0 (-1: every core)"


@dataclass(frozen=True)
class OneOf:
    """One of a few values."""

    options: tuple

    def allowed(self, value, params: dict) -> str | None:
        if any(value == option and type(value) is type(option) for option in self.options):
            return None
        return f"one of {', '.join(map(repr, self.options))}"


@dataclass(frozen=True)
class TrueNeeds:
    """true or false, and true only while the parameter `other` is above 0 (`why`: what it is needed for)."""

    other: str
    why: str

    def allowed(self, value, params: dict) -> str | None:
        if not isinstance(value, bool):
            return "true or false"
        other = params.get(self.other)
        return None if not value or (is_number(other) and other > 0) else \
            f"false while {self.other} is {other!r} ({self.why})"


@dataclass(frozen=True)
class FalseOnly:
    """A switch a method does not offer: false only (`why`: why not)."""

    why: str

    def allowed(self, value, params: dict) -> str | None:
        return None if value is False else f"false ({self.why})"


@dataclass(frozen=True)
class Sklearn:
    """A value the method hands to a scikit-learn estimator as `parameter`: allowed by that estimator's own
    `_parameter_constraints`. `estimator` is 'module:Class', or a function of all the parameters that names it
    (the classifier a method builds may depend on another parameter)."""

    estimator: str | Callable[[dict], str]
    parameter: str

    def allowed(self, value, params: dict) -> str | None:
        from sklearn.utils._param_validation import InvalidParameterError, validate_parameter_constraints

        from baselines.core.lazy import import_object

        klass = import_object(self.estimator(params) if callable(self.estimator) else self.estimator)
        constraints = {self.parameter: klass._parameter_constraints[self.parameter]}
        try:
            validate_parameter_constraints(constraints, {self.parameter: value}, caller_name=klass.__name__)
        except InvalidParameterError as exc:
            said = re.search(r" must be (.+)\. Got .* instead\.$", str(exc), re.S)
            return f"{said.group(1) if said else exc} as {klass.__name__}'s {self.parameter}"
        return None


@dataclass(frozen=True)
class Each:
    """A list (candidates tried one by one, or one value per part), each value allowed by `rule`: at least
    `least` values, or `exactly` that many."""

    rule: Range | NonZero | OneOf | TrueNeeds | FalseOnly | Sklearn
    least: int = 1
    exactly: int | None = None

    def refusal(self, value, params: dict) -> str | None:
        """None when `value` is allowed, else what is wrong with it, after the parameter's name."""
        if not isinstance(value, (list, tuple)):
            return f"must be a list, got {value!r}"
        if self.exactly is not None and len(value) != self.exactly:
            return f"must hold exactly {self.exactly} values, got {value!r}"
        if len(value) < self.least:
            return f"needs at least {'one value' if self.least == 1 else f'{self.least} values'}, got {value!r}"
        for item in value:
            allowed = self.rule.allowed(item, params)
            if allowed is not None:
                return f"values must be {allowed}, got {item!r} in {value!r}"
        return None


SHARED = {  # parameters that mean the same in every method that has them
    "stop_words": OneOf((None, "english")),
    **{name: Range(1) for name in ("ngram_max", "min_df", "n_features", "max_seq_length", "batch_size",
                                   "encode_batch_size", "chunk_words", "projection", "hidden", "layers",
                                   "piece_len", "batch_pieces", "max_train_len", "torch_threads", "n_models",
                                   "workers")},
    "n_jobs": NonZero(),
    "seed": Range(0, 2 ** 32 - 1, whole=True),  # numpy's and scikit-learn's seeds
    "split_seed": Range(0, 2 ** 32 - 1, whole=True),
    "val_fraction": Range(0, 1, below=True),  # a share of the training documents held out
}


def check_params(klass, params: dict, origins: dict | None = None) -> None:
    """Refuse the first value of `params` (parameter name -> value) that its parameter of `klass` does not allow,
    in one line starting with where it was given (`origins`: name -> a config file or 'command-line overrides';
    a name without one is a default of the class)."""
    rules, defaults, hints = parameter_rules(klass), field_defaults(klass), type_hints(klass)
    for key, value in params.items():
        default = defaults.get(key)
        try:
            problem = _refusal(value, rules.get(key) or fallback_rule(default), default, hints.get(key), params)
        except RecursionError:
            problem = "is nested too deeply"
        if problem:
            where = (origins or {}).get(key, f"the defaults of {klass.__name__}")
            raise BaselinesError(f"{where}: {key} {problem}")


MIN_REPLICATES = 200
MIN_LLM_PARAMETERS = 1e7
OPTION_RULES = {  # the number options of the command line and the Python API, checked as configs are
    "seed": SHARED["seed"],
    "cv": Range(2, 1000, whole=True),  # folds of a cross-validation
    "sample": Range(1, 10 ** 9, whole=True),  # items (or documents) per group of an exported sample
    # bootstrap replicates: below 200 a 95% percentile interval rests on a handful of draws at each end (with 1 or 2
    # it can exclude its own estimate), and a p-value cannot fall below 2/(B+1)
    "replicates": Range(MIN_REPLICATES, 1_000_000, whole=True),
    # an LLM's parameter count (--params): from ten million (the smallest generative models) to a thousand trillion
    "parameters": Range(MIN_LLM_PARAMETERS, 1e15),
}


def check_option(name: str, value, shown: str | None = None) -> None:
    """Refuse a number option outside its rule (OPTION_RULES), in one line naming the option (`shown`: as the
    user wrote it, e.g. --seed), what it allows and the value: finite, in range, whole where a count is meant."""
    problem = _refusal(value, OPTION_RULES[name], None, None, {})
    if problem:
        raise BaselinesError(f"{shown or name} {problem}")


def _refusal(value, rule, default, hint, params: dict) -> str | None:
    """What is wrong with `value` (after the parameter's name), or None; null is allowed where it is the default
    or the annotation names it (`max_features: int | None`)."""
    if value is None and (default is None or allows_none(hint)):
        return None
    bad = first_non_finite(value)
    if bad is not None:
        return f"must be a finite number, got {value!r}" if bad is value else \
            f"must hold finite numbers only, got {bad!r} in {value!r}"
    problem = None
    if isinstance(rule, Each):
        problem = rule.refusal(value, params)
    elif rule is not None:
        allowed = rule.allowed(value, params)
        problem = None if allowed is None else f"must be {allowed}, got {value!r}"
    if problem is None and isinstance(value, (list, dict)) and hint is not None and not allows_container(hint):
        problem = f"takes a single value, got {value!r}"
    return problem


def parameter_rules(klass) -> dict:
    """Parameter name -> rule for `klass`: SHARED, then PARAMETER_RULES of its classes, most derived last."""
    rules = dict(SHARED)
    for base in reversed(klass.__mro__):
        rules.update(vars(base).get("PARAMETER_RULES", {}))
    return rules


def fallback_rule(default):
    """The rule of a parameter that declares none: at least 0 for a number, and for each number of a list."""
    if is_number(default):
        return Range(0)
    return Each(Range(0)) if is_number_grid(default) else None


def first_non_finite(value):
    """The first NaN or infinite number in `value`, looking inside lists, tuples, sets and mappings; else None."""
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
        return None if math.isfinite(value) else value
    if isinstance(value, dict):
        value = [*value.keys(), *value.values()]
    if isinstance(value, (list, tuple, set, frozenset)):
        return next((bad for bad in map(first_non_finite, value) if bad is not None), None)
    return None


def is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def is_number_grid(default) -> bool:
    """A default that lists numbers (candidate weights or C values, each tried and one chosen; view weights)."""
    return isinstance(default, (list, tuple)) and bool(default) and all(map(is_number, default))


def field_defaults(klass) -> dict:
    """Parameter name -> default of a dataclass (default factories called; MISSING where there is none)."""
    def default(field):
        if field.default_factory is not dataclasses.MISSING:
            return field.default_factory()
        return field.default

    return {field.name: default(field) for field in dataclasses.fields(klass)}


def type_hints(klass) -> dict:
    """The annotations of `klass`'s parameters; {} when this Python cannot evaluate one (types are then judged
    by the defaults alone)."""
    try:
        return typing.get_type_hints(klass)
    except Exception:
        return {}


def hint_options(hint) -> tuple:
    """The types a parameter's annotation allows: (int, NoneType) for `int | None`, (str,) for `str`."""
    import types

    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    return typing.get_args(hint) if union else (hint,)


def allows_container(hint) -> bool:
    return any((typing.get_origin(option) or option) in (list, tuple, dict, set, typing.Any)
               for option in hint_options(hint))


def allows_none(hint) -> bool:
    return hint is not None and type(None) in hint_options(hint)
