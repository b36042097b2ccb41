"""The words of a generation and what each can mean, for the answer extractor (`baselines.extract`).

A generation is cut into tokens: words (`I'd`, `H-1B` and `ARG_PETITIONER` are one word each),
abbreviations (`e.g.`, `U.S.`), decimal numbers (`3.5`), LaTeX commands (`\\boxed`), line breaks
and single marks (`(`, `*`, `.`). A word may match a label (`Matcher`); `Text` then says whether
that word stands as a label where it is (see the module docstring of `baselines.extract`).
"""
from __future__ import annotations

import re
from typing import Mapping, Sequence

_TOKEN = re.compile(r"(?P<latex>\\[A-Za-z]+)|(?P<abbrev>(?:[^\W\d_]\.){2,})|(?P<number>\d+(?:[.,]\d+)+)"
                    r"|(?P<word>[^\W_]+(?:[_'’\-][^\W_]+)*)|(?P<newline>\n)|(?P<mark>\S)")
OPENERS = set("([{<*_`'\"$")
CLOSERS = set(")]}>*_`'\"$")
STOPS = set(".):;]}!?")
BREAKS = set(".!?")
JOINING_MARKS = set(",/&+")
GLUE_MARKS = set("([.")
CONNECTORS = {"or", "and", "vs", "versus"}
HEDGES = {"either", "possibly", "perhaps", "maybe", "also", "alternatively", "even", "probably", "potentially"}
MARKERS = {"option", "options", "choice", "choices", "letter", "letters", "label", "labels"}
NEGATORS = {"not", "never", "nor", "neither", "except", "excluding", "exclude", "than", "isn't", "isn’t",
            "wasn't", "aren't", "eliminate", "eliminating", "eliminated", "against", "without"}
NAMING = {"title", "titles", "article", "articles", "part", "parts", "section", "sections", "subsection",
          "chapter", "schedule", "exhibit", "appendix", "annex", "count", "counts", "class", "type", "plan",
          "category", "tier", "grade", "level", "division", "paragraph", "clause", "rule", "form", "step",
          "phase", "group", "footnote", "note", "amendment", "volume", "vol", "item", "figure", "fig",
          "table", "question", "model", "vitamin", "page", "p", "pp"}
ENGLISH_LETTERS = {"a", "i"}  # single-letter English words: the article and the pronoun


class Matcher:
    """Maps a word to (label, exact): exact when written as a label or alias is, or a number by value."""

    def __init__(self, labels: Sequence[str], aliases: Mapping[str, str]):
        valid = set(labels)
        self.exact = {key: value for key, value in aliases.items() if value in valid}
        self.exact.update({label: label for label in labels})
        self.folded = {key.casefold(): value for key, value in self.exact.items() if key not in valid}
        self.folded.update({label.casefold(): label for label in labels})
        numeric = bool(labels) and all(re.fullmatch(r"[0-9]+", label) for label in labels)
        self.by_value = {int(label): label for label in labels} if numeric else {}

    def __call__(self, word: str) -> tuple[str | None, bool]:
        if word in self.exact:
            return self.exact[word], True
        if self.by_value and re.fullmatch(r"[0-9]+", word):
            return self.by_value.get(int(word)), True
        return self.folded.get(word.casefold()), False


class Token:
    __slots__ = ("kind", "text", "start", "end", "gap", "label", "exact")

    def __init__(self, match: re.Match, previous_end: int, matcher: Matcher):
        self.kind, self.text = match.lastgroup, match.group()
        self.start, self.end = match.span()
        self.gap = match.start() > previous_end  # whitespace before it
        self.label, self.exact = matcher(self.text) if self.kind == "word" else (None, False)


class Text:
    """The tokens of one generation, with the tests the extraction rules are made of."""

    def __init__(self, raw: str, matcher: Matcher):
        self.raw, self.tokens, end = raw, [], 0
        for match in _TOKEN.finditer(raw):
            self.tokens.append(Token(match, end, matcher))
            end = match.end()

    def __len__(self) -> int:
        return len(self.tokens)

    def is_word(self, k: int) -> bool:
        return self.tokens[k].kind in ("word", "abbrev", "number")

    def is_break(self, k: int) -> bool:
        """A line break, or . ! ? followed by a space or the end."""
        token = self.tokens[k]
        if token.kind == "newline":
            return True
        following = self.tokens[k + 1] if k + 1 < len(self.tokens) else None
        return token.kind == "mark" and token.text in BREAKS and (following is None or following.gap
                                                                  or following.kind == "newline")

    def sentence_end(self, k: int) -> int:
        """Index of the first break after token k (or the number of tokens)."""
        for j in range(k + 1, len(self.tokens)):
            if self.is_break(j):
                return j
        return len(self.tokens)

    def index_at(self, position: int) -> int:
        """Index of the first token starting at or after character `position`."""
        return next((k for k, token in enumerate(self.tokens) if token.start >= position), len(self.tokens))

    def next_word(self, k: int, stop: int | None = None) -> int | None:
        """The first word at or after k (before `stop`), skipping marks, LaTeX and line breaks."""
        stop = len(self.tokens) if stop is None else stop
        return next((j for j in range(k, stop) if self.is_word(j)), None)

    def previous_word(self, k: int) -> int | None:
        """The word before k on the same line, skipping marks and LaTeX."""
        for j in range(k - 1, -1, -1):
            if self.tokens[j].kind == "newline":
                return None
            if self.is_word(j):
                return j
        return None

    def label_at(self, k: int) -> str | None:
        """The label word k matches, unless it names something else, is negated or is glued to a word."""
        token = self.tokens[k]
        if token.kind != "word" or token.label is None or self._glued(k):
            return None
        before = self.previous_word(k)
        if before is not None and self.tokens[before].text.casefold() in MARKERS:
            before = self.previous_word(before)
        if before is not None and self.tokens[before].text.casefold() in NAMING | NEGATORS:
            return None
        return token.label

    def _glued(self, k: int) -> bool:
        """Part of a citation or compound: `1983(a)`, `II.B`, `U.S.C`."""
        if self.tokens[k].gap or k == 0:
            return False
        before = self.tokens[k - 1]
        if self.is_word(k - 1):
            return True
        return (before.kind == "mark" and before.text in GLUE_MARKS and not before.gap and k >= 2
                and self.is_word(k - 2))

    def strong(self, k: int) -> bool:
        """Written exactly as a label, and not the English word it could also be ("I"; "A" opening a sentence)."""
        token = self.tokens[k]
        if not token.exact or token.text == "I":
            return False
        return not (token.text == "A" and self._sentence_start(k))

    def _sentence_start(self, k: int) -> bool:
        for j in range(k - 1, -1, -1):
            token = self.tokens[j]
            if token.kind == "newline" or (token.kind == "mark" and token.text in BREAKS | {":"}):
                return True
            if token.kind not in ("mark", "latex"):
                return False
        return True

    def decorated(self, k: int) -> bool:
        """Wrapped in brackets or markup (`(C)`, `**C**`, `\\boxed{C}`), or after "option"/"choice"."""
        tokens = self.tokens
        if (0 < k < len(tokens) - 1 and tokens[k - 1].kind == "mark" and tokens[k - 1].text in OPENERS
                and tokens[k + 1].kind == "mark" and tokens[k + 1].text in CLOSERS):
            return True
        before = self.previous_word(k)
        return before is not None and tokens[before].text.casefold() in MARKERS

    def ends(self, k: int, stop: int | None = None) -> bool:
        """Nothing but closing marks before a stop (`.`, `)`, `:`), a line break, `stop` or the end."""
        stop = len(self.tokens) if stop is None else stop
        j = k + 1
        while j < stop and self.tokens[j].kind == "mark" and self.tokens[j].text in CLOSERS - STOPS:
            j += 1
        if j >= stop:
            return True
        token = self.tokens[j]
        return token.kind == "newline" or (token.kind == "mark" and token.text in STOPS)

    def stands(self, k: int, stop: int | None = None) -> bool:
        """Word k can only be meant as a label here: strong, decorated, or standing alone before a stop."""
        return self.strong(k) or self.decorated(k) or self.ends(k, stop)

    def named_labels(self, k: int) -> set[str]:
        """The label at k and every label joined to it as an alternative ("A, B, or C", "B and/or C")."""
        found = {self.label_at(k)}
        for step in (1, -1):
            found |= self._joined(k, step)
        return found

    def _joined(self, k: int, step: int) -> set[str]:
        found, joined, j = set(), False, k + step
        while 0 <= j < len(self.tokens) and not self.is_break(j):
            token = self.tokens[j]
            word = token.text.casefold()
            if token.kind in ("mark", "latex"):
                joined = joined or token.text in JOINING_MARKS
            elif word in CONNECTORS:
                joined = True
            elif word not in HEDGES | MARKERS:
                label = self.label_at(j)
                if label is None or not joined or not self._listed(j):
                    break
                found.add(label)
                joined = False
            j += step
        return found

    def _listed(self, k: int) -> bool:
        """Stands as a label, or is followed by a joining word or mark (so "a" in "a or b" counts)."""
        if self.stands(k):
            return True
        following = k + 1 if k + 1 < len(self.tokens) else None
        if following is None:
            return True
        token = self.tokens[following]
        return token.text in JOINING_MARKS or token.text.casefold() in CONNECTORS
