"""The words of a generation, for the reader (`baselines.evaluation.reading`): tokens and the labels
they may stand for.

A generation is cut into tokens: words (`I'd`, `H-1B` and `ARG_PETITIONER` are one word each),
abbreviations (`e.g.`, `U.S.`, `N/A`), decimal numbers (`3.5`), LaTeX commands (`\\boxed`), line breaks
and single marks (`(`, `*`, `.`). A word may match a label (`Matcher`), each distinct word once.
"""
from __future__ import annotations

import gc
import re
from contextlib import contextmanager
from typing import Mapping, Sequence

_TOKEN = re.compile(r"(?P<latex>\\[A-Za-z]+)|(?P<abbrev>(?:[^\W\d_]\.){2,}|[Nn]/[Aa](?![\w/]))|(?P<number>\d+(?:[.,]\d+)+)"
                    r"|(?P<word>[^\W_]+(?:[_'’\-][^\W_]+)*)|(?P<newline>\n)|(?P<mark>\S)")
_DIGITS = re.compile(r"[0-9]+")
_NO_LABEL = (None, False)
DECORATION = "*_`'\"()[]{}<>.,:;!?$# \t\n—–"  # stripped from both ends of a normal form


def normal_text(text: str) -> str:
    """The normal form compared with choice texts: LaTeX commands dropped, white space collapsed,
    decoration stripped from both ends, case folded."""
    return " ".join(re.sub(r"\\[A-Za-z]+", " ", text).split()).strip(DECORATION).casefold()


class Matcher:
    """Maps a word to (label, exact): exact when written as a label or alias is, or a number by value.

    `offered`: the spellings the prompt offered (labels and aliases, e.g. SCALR's "0".."4" in LegalBench's
    prompt or "A".."E" in ours); None reads them all. A label not offered is read only through the offered
    aliases that stand for it."""

    def __init__(self, labels: Sequence[str], aliases: Mapping[str, str], offered: Sequence[str] | None = None):
        valid = set(labels)
        self.exact = {key: value for key, value in aliases.items() if value in valid}
        if offered is not None:
            spelled = set(offered)
            self.exact = {key: value for key, value in self.exact.items() if key in spelled}
            labels = [label for label in labels if label in spelled]
        self.exact.update({label: label for label in labels if label not in self.exact})  # "4": D, by ordinal
        self.folded = {key.casefold(): value for key, value in self.exact.items() if key not in valid}
        self.folded.update({label.casefold(): label for label in labels})
        numeric = bool(labels) and all(_DIGITS.fullmatch(label) for label in labels)
        self.by_value = {int(label): label for label in labels} if numeric else {}

    def __call__(self, word: str) -> tuple[str | None, bool]:
        if word in self.exact:
            return self.exact[word], True
        if self.by_value and _DIGITS.fullmatch(word):
            return self.by_value.get(int(word)), True
        return self.folded.get(word.casefold()), False


class Token:
    __slots__ = ("token_type", "text", "start", "end", "gap", "label", "exact")

    def __init__(self, token_type: str, text: str, start: int, end: int, gap: bool, meaning: tuple[str | None, bool]):
        self.token_type, self.text, self.start, self.end = token_type, text, start, end
        self.gap = gap  # whitespace before it
        self.label, self.exact = meaning


def tokens_of(raw: str, matcher: Matcher) -> list[Token]:
    """The tokens of `raw`, each distinct word matched once (a long generation repeats its words).

    Python's cycle collector is paused meanwhile: tokens hold no reference cycles, and the collections their
    number alone would set off (the older ones rescanning every object of the process) took about half the time
    of cutting 1 MB of "(A) (A) ..." into tokens."""
    tokens, end, meanings = [], 0, {}
    with _collector_paused():
        for match in _TOKEN.finditer(raw):
            token_type, word = match.lastgroup, match.group()
            start, stop = match.span()
            if token_type != "word":
                meaning = _NO_LABEL
            elif (meaning := meanings.get(word)) is None:
                meaning = meanings[word] = matcher(word)
            tokens.append(Token(token_type, word, start, stop, start > end, meaning))
            end = stop
    return tokens


@contextmanager
def _collector_paused():
    """Pause the cycle collector (when it runs) for the block, and restore it after, even on an error."""
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()


def numbering(word: str) -> str:
    """How a word that matches a label numbers the choices: "digit" ("3", "007") or "word" ("D", "FAC")."""
    return "digit" if word.isascii() and word.isdigit() else "word"  # as [0-9]+
