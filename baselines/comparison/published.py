"""Figures published elsewhere for a benchmark, kept as data with their source (the YAML its task record names).

They are shown beside our runs and marked as not run here: they were computed on other items (another split,
or a paper's test set) or by a system we did not run, so no paired difference is given for them.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from numbers import Real

import yaml

from baselines.core.errors import DataError
from baselines.registry import Task

PRODUCERS = ("llm", "other", "human")
FIGURE_KEYS = {"system", "producer", "value", "note", "command", "items", "source", "tokens_per_item", "headline",
               "basis", "answered", "published_value", "source_file"}
RECOUNTED_MARK = "‡"
RECOUNTED_LEGEND = (f"{RECOUNTED_MARK} recounted over all items, an unanswered one wrong, as our evaluator counts; the "
                    "source's own figure, over the share it answered, follows in parentheses.")
BASES = ("all", "answered")  # what a figure counts over: every item (an unanswered one wrong), or the answered ones
FILE_KEYS = {"source", "items", "figures", "headline_note"}


@dataclass(frozen=True)
class Figure:
    """One published figure of the task's main metric, in percent as the source gives it."""

    system: str
    producer: str  # llm | other | human
    value: float
    note: str = ""  # what qualifies the figure ("on the subset it answered")
    command: str = ""  # the command that scores this system's released outputs here, when they are available
    items: str = ""  # the items it was computed on, when not the file's
    source: str = ""  # who reported it, when not the file's source
    tokens_per_item: float | None = None  # prompt + output tokens per item, for a cost estimate (the file says how)
    headline: bool = False  # also shown in the headline when not an LLM's (a reference our rows are read against)
    basis: str = "all"  # what `value` counts over: "all" items (an unanswered one wrong, as our evaluator counts)
    answered: float | None = None  # the share of the items the system answered, when the source says it
    published_value: float | None = None  # the source's own figure, when `value` was recounted on our basis
    source_file: str = ""  # the exact source: repository@commit:path, or a paper's version

    def basis_note(self) -> str:
        """What the figure counts over, in words, and the source's own figure where it was recounted."""
        if self.published_value is not None:
            answered = f"the {100 * self.answered:.1f}% it answered" if self.answered is not None else "what it answered"
            return (f"recounted over all items, an unanswered one wrong; the source gives {self.published_value:.1f}, "
                    f"over {answered}")
        share = f" ({100 * self.answered:.1f}% of them)" if self.answered is not None else ""
        return f"over the answered items only{share}" if self.basis == "answered" else ""

    def short_basis_note(self) -> str:
        """basis_note in a few words, for a table cell: a recounted figure is marked RECOUNTED_MARK, which
        RECOUNTED_LEGEND explains under the table."""
        if self.published_value is None:
            return self.basis_note()
        answered = f", {100 * self.answered:.1f}% answered" if self.answered is not None else ""
        return f"recounted {RECOUNTED_MARK} (source: {self.published_value:.1f}{answered})"


@dataclass(frozen=True)
class Published:
    """A benchmark's published figures: who reported them, on which items, and a note for the headline."""

    source: str
    items: str
    figures: tuple[Figure, ...]
    headline_note: str = ""


def published_figures(task: Task) -> Published | None:
    """The figures the task's record names (`PublishedFigures.source`, 'package:file'), or None when it names
    none."""
    source = task.published.source
    if source is None:
        return None
    package, _, name = source.partition(":")
    try:
        text = resources.files(package).joinpath(name).read_text(encoding="utf-8")
    except (OSError, ModuleNotFoundError) as error:
        raise DataError(f"the published figures of {task.name} ({source}) cannot be read: {error}") from None
    return parse_published(yaml.safe_load(text), source)


def parse_published(data, where: str) -> Published:
    """The figures of one published-figures file, checked (`where` names the file in errors)."""
    if not isinstance(data, dict) or set(data) - FILE_KEYS or not {"source", "items", "figures"} <= set(data):
        raise DataError(f"{where}: expected the keys {', '.join(sorted(FILE_KEYS))} (headline_note optional)")
    if not isinstance(data["figures"], list) or not data["figures"]:
        raise DataError(f"{where}: 'figures' is a non-empty list")
    return Published(source=str(data["source"]), items=str(data["items"]),
                     figures=tuple(_figure(row, where) for row in data["figures"]),
                     headline_note=" ".join(str(data.get("headline_note") or "").split()))


def _figure(row, where: str) -> Figure:
    if not isinstance(row, dict) or set(row) - FIGURE_KEYS or not {"system", "producer", "value"} <= set(row):
        raise DataError(f"{where}: a figure has the keys system, producer, value (note, command, items, source "
                        f"optional): {row!r}")
    value = row["value"]
    if not isinstance(value, Real) or isinstance(value, bool) or not 0 <= value <= 100:
        raise DataError(f"{where}: {row['system']}: value {value!r} is not a percentage")
    if row["producer"] not in PRODUCERS:
        raise DataError(f"{where}: {row['system']}: producer {row['producer']!r} is not one of {', '.join(PRODUCERS)}")
    return Figure(system=str(row["system"]), producer=row["producer"], value=float(value),
                  note=str(row.get("note") or ""), command=" ".join(str(row.get("command") or "").split()),
                  items=str(row.get("items") or ""), source=str(row.get("source") or ""),
                  tokens_per_item=_tokens(row, where), headline=_flag(row, "headline", where),
                  **_basis(row, where))


def _basis(row: dict, where: str) -> dict:
    """basis (required: "all" or "answered"), answered (a share, required with "answered" unless null: unknown),
    published_value (a percentage, only for a figure recounted over all items) and source_file, checked."""
    name, basis = row["system"], row.get("basis")
    if basis not in BASES:
        raise DataError(f"{where}: {name}: basis {basis!r} is not one of {', '.join(BASES)} (what the figure counts "
                        "over: every item, or the answered ones)")
    answered = row.get("answered")
    if basis == "answered" and "answered" not in row:
        raise DataError(f"{where}: {name}: a figure over the answered items says which share they are (answered: "
                        "0.87, or null when the source does not say)")
    if answered is not None and (not isinstance(answered, Real) or isinstance(answered, bool) or not 0 < answered <= 1):
        raise DataError(f"{where}: {name}: answered {answered!r} is not a share of the items (0 to 1)")
    published = row.get("published_value")
    if published is not None and (basis != "all" or not isinstance(published, Real) or not 0 <= published <= 100):
        raise DataError(f"{where}: {name}: published_value {published!r} is the source's own percentage of a figure "
                        "recounted over all items (basis: all)")
    return {"basis": basis, "answered": None if answered is None else float(answered),
            "published_value": None if published is None else float(published),
            "source_file": str(row.get("source_file") or "")}


def _flag(row: dict, key: str, where: str) -> bool:
    value = row.get(key, False)
    if not isinstance(value, bool):
        raise DataError(f"{where}: {row['system']}: {key} {value!r} is not true or false")
    return value


def _tokens(row: dict, where: str) -> float | None:
    value = row.get("tokens_per_item")
    if value is not None and (not isinstance(value, Real) or isinstance(value, bool) or value <= 0):
        raise DataError(f"{where}: {row['system']}: tokens_per_item {value!r} is not a positive number")
    return None if value is None else float(value)
