"""Turning an LLM's raw generation into an answer label.

The rule, in order (the first that yields a valid label wins):

1. Seed recipe: the text after the last "The final answer is" (any case); its first token.
2. The whole generation is a label, possibly decorated: "C", " C", "(C)", "C.", "**C**", "[C]".
3. The last "answer: C" / "answer is C" / "answer is (C)" anywhere in the text.
4. The generation opens with a label followed by punctuation: "C. First Amendment", "(C) ...", "C) ...".
5. Multi-character labels only (rhetorical-role names, zero-padded numbers): exactly one distinct
   label occurs as a whole word in the text (case-sensitive, so "analysis" is not ANALYSIS).

A token matches a label exactly, case-insensitively, through the task's aliases (SCALR: "A".."E"
stand for "0".."4"), or, when every label is a number, by numeric value ("7" or "07" for "007").
No match returns None: the item counts as wrong and lowers coverage.
"""
from __future__ import annotations

import re
from typing import Mapping, Sequence

_FINAL = re.compile(r"the final answer is", re.IGNORECASE)
_DECORATION = "*_`'\"()[]{}<>.,:;!?$\\ \t\n"
_ANSWER_IS = re.compile(r"answer\s*(?:is|:)\s*[*_(\[]*\s*([A-Za-z0-9_]+)", re.IGNORECASE)
_LEADING = re.compile(r"^\s*[*_]*\s*[(\[]?\s*([A-Za-z0-9_]+)\s*[)\].:]")
_BOXED = re.compile(r"\\boxed\{([^}]*)\}")


def _strip(token: str) -> str:
    return token.strip(_DECORATION)


class _Matcher:
    """Maps a candidate token to a valid label, or None."""

    def __init__(self, labels: Sequence[str], aliases: Mapping[str, str]):
        self.labels = set(labels)
        self.folded = {label.casefold(): label for label in labels}
        self.aliases = {key.casefold(): value for key, value in aliases.items() if value in self.labels}
        self.numeric = bool(labels) and all(label.isdigit() for label in labels)
        self.by_value = {int(label): label for label in labels} if self.numeric else {}

    def __call__(self, token: str) -> str | None:
        token = _strip(token)
        if not token:
            return None
        if token in self.labels:
            return token
        folded = token.casefold()
        if folded in self.folded:
            return self.folded[folded]
        if folded in self.aliases:
            return self.aliases[folded]
        if self.numeric and token.isdigit():
            return self.by_value.get(int(token))
        return None


def extract_answer(raw: str, labels: Sequence[str], aliases: Mapping[str, str] | None = None) -> str | None:
    """The answer label stated in `raw`, or None when none can be found (see module docstring)."""
    if not isinstance(raw, str) or not raw.strip():
        return None
    match = _Matcher(labels, aliases or {})
    finals = list(_FINAL.finditer(raw))
    if finals:
        rest = raw[finals[-1].end():]
        boxed = _BOXED.search(rest)
        tokens = (boxed.group(1) if boxed else rest).split()
        if tokens and (label := match(tokens[0])):
            return label
    if label := match(raw):
        return label
    for found in reversed(list(_ANSWER_IS.finditer(raw))):
        if label := match(found.group(1)):
            return label
    leading = _LEADING.match(raw)
    if leading and (label := match(leading.group(1))):
        return label
    return _unique_long_label(raw, labels)


def _unique_long_label(raw: str, labels: Sequence[str]) -> str | None:
    long_labels = [label for label in labels if len(label) > 1]
    if not long_labels:
        return None
    words = set(re.findall(r"[A-Za-z0-9_]+", raw))
    present = {label for label in long_labels if label in words}
    return present.pop() if len(present) == 1 else None
