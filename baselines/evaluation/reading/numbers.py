"""Bare numbers by the prompt that asked. Where a task's choices may be named by letter or by digit (SCALR: "A".."E"
are LegalBench's "0".."4"), a bare number ("Option 4", `{"choice": 3}`, `\\boxed{4}`) names a choice only where the
numbering is known: LegalBench's prompt numbers the choices 0-4 (4 is the fifth), a prompt that letters them
makes "4" the fourth letter (D). The numbering is known from the prompt's offered spellings (a harness document's
`labels`), its `numbering` (our exports write it), or `baselines score --numbering`; elsewhere a bare number is not
read, and a generation that would have been read by one records the rule NUMBERING_UNKNOWN."""
from __future__ import annotations

from typing import Mapping, Sequence

NUMBERINGS = ("legalbench", "letters")
NUMBERING_UNKNOWN = "numbering_unknown"

Spelled = tuple[tuple[tuple[str, str], ...], tuple[str, ...] | None]  # (aliases, offered) of a matcher


def numbered(labels: Sequence[str], aliases: Mapping[str, str], offered: Sequence[str] | None,
             numbering: str | None) -> list[Spelled]:
    """The spellings to read a generation with: one set where the numbering is known (or the task has one way of
    naming its choices), else one per numbering (the reading stands only where they agree)."""
    given: Spelled = (tuple(sorted(aliases.items())), None if offered is None else tuple(offered))
    letters = tuple(key for key, label in aliases.items() if not key.isdigit() and label in labels)
    if not (labels and letters and all(label.isdigit() for label in labels)) or numbering == "legalbench" or \
            (offered is not None and numbering is None):
        return [given]  # one way, LegalBench's digits and the letters beside them, or the prompt's own spellings
    ordinal = {str(k + 1): label for k, label in enumerate(labels)}  # "4": the fourth letter
    by_letters: Spelled = (tuple(sorted({**aliases, **ordinal}.items())), letters + tuple(ordinal))
    return [by_letters] if numbering == "letters" else [given, by_letters]
