"""Labels as a reader of the prompt knows them, for the per-label tables of `score` and `compare`.

A task whose prompt offers its choices under other names keeps its labels apart from those names
(`Answers.aliases`: SCALR's labels are the digits "0".."4", offered as the letters "A".."E"). A table that showed the
bare label would show "1" where the model answered "B", so each label is shown as its alias first, the label
after it: "B (1)". A task without aliases shows its labels as they are."""
from __future__ import annotations

from collections.abc import Mapping


def label_as_offered(label: str, aliases: Mapping[str, str]) -> str:
    """`label` with the first alias that stands for it (in the task's order), e.g. "B (1)"; the label alone when
    no alias stands for it."""
    alias = next((alias for alias, target in aliases.items() if target == label and alias != label), None)
    return label if alias is None else f"{alias} ({label})"
