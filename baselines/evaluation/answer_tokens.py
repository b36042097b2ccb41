"""The words of a generation and what each can mean, for the answer extractor (`baselines.evaluation.extract`).

A generation is cut into tokens: words (`I'd`, `H-1B` and `ARG_PETITIONER` are one word each),
abbreviations (`e.g.`, `U.S.`), decimal numbers (`3.5`), LaTeX commands (`\\boxed`), line breaks
and single marks (`(`, `*`, `.`). A word may match a label (`Matcher`); `Text` then says whether
that word stands as a label where it is (see the module docstring of `baselines.evaluation.extract`).
The positions rules look for (next word, sentence break, word standing as a label) are listed once
per text and found by bisection, so a generation is read in time about linear in its length.
"""
from __future__ import annotations

import re
from bisect import bisect_left
from functools import cached_property
from itertools import accumulate
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
APPOSING_MARKS = set("()[]{}:-=–—*_`'\",")  # between a label and the same label in another numbering: "3 (D)"
RESTATING = {"i.e.", "ie", "namely", "viz", "which", "is", "that"}  # "D, i.e. choice 3", "D, which is 3."
APPOSED_SPAN = 6  # tokens looked at on each side for it
HEDGES = {"either", "possibly", "perhaps", "maybe", "also", "alternatively", "even", "probably", "potentially"}
MARKERS = {"option", "options", "choice", "choices", "letter", "letters", "label", "labels"}
NEGATORS = {"not", "never", "nor", "neither", "except", "excluding", "exclude", "than", "isn't", "isn’t",
            "wasn't", "aren't", "eliminate", "eliminating", "eliminated", "against", "without"}
NAMING = {"title", "titles", "article", "articles", "part", "parts", "section", "sections", "subsection",
          "chapter", "schedule", "exhibit", "appendix", "annex", "count", "counts", "class", "type", "plan",
          "category", "tier", "grade", "level", "division", "paragraph", "clause", "rule", "form", "step",
          "phase", "group", "footnote", "note", "amendment", "volume", "vol", "item", "figure", "fig",
          "table", "question", "model", "vitamin", "page", "p", "pp"}
WORD_TYPES = ("word", "abbrev", "number")
SPACERS = ("latex", "newline")  # read as white space in a normal form
ENGLISH_LETTERS = {"a", "i"}  # single-letter English words: the article and the pronoun
_DIGITS = re.compile(r"[0-9]+")
DECORATION = "*_`'\"()[]{}<>.,:;!?$# \t\n"  # stripped from both ends of a normal form


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
        self.exact.update({label: label for label in labels})
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

    def __init__(self, match: re.Match, previous_end: int, matcher: Matcher):
        self.token_type, self.text = match.lastgroup, match.group()
        self.start, self.end = match.span()
        self.gap = match.start() > previous_end  # whitespace before it
        self.label, self.exact = matcher(self.text) if self.token_type == "word" else (None, False)


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
        return self.tokens[k].token_type in WORD_TYPES

    def is_break(self, k: int) -> bool:
        """A line break, or . ! ? followed by a space or the end."""
        token = self.tokens[k]
        if token.token_type == "newline":
            return True
        following = self.tokens[k + 1] if k + 1 < len(self.tokens) else None
        return token.token_type == "mark" and token.text in BREAKS and (following is None or following.gap
                                                                  or following.token_type == "newline")

    def sentence_end(self, k: int) -> int:
        """Index of the first break after token k (or the number of tokens)."""
        return _first(self.breaks, k + 1, len(self.tokens), len(self.tokens))

    def index_at(self, position: int) -> int:
        """Index of the first token starting at or after character `position`."""
        return bisect_left(self._starts, position)

    def next_word(self, k: int, stop: int | None = None) -> int | None:
        """The first word at or after k (before `stop`), skipping marks, LaTeX and line breaks."""
        return _first(self.words, k, len(self.tokens) if stop is None else stop)

    def next_standing(self, k: int, stop: int | None = None) -> int | None:
        """The first word at or after k (before `stop`) that matches a label and stands as one (`stands`)."""
        return _first(self._standing, k, len(self.tokens) if stop is None else stop)

    def previous(self, positions: list[int], k: int) -> int:
        """The last of the sorted token `positions` (`labelled`, `breaks`) before k, or -1."""
        index = bisect_left(positions, k)
        return positions[index - 1] if index else -1

    def solid(self, start: int, stop: int) -> int:
        """How many of tokens start..stop-1 are not LaTeX, line breaks or decoration: a lower bound on the
        length of their normal form."""
        return self._solid_before[stop] - self._solid_before[start]

    def normal(self, start: int, stop: int, longest: int) -> str | None:
        """`normal_text` of tokens start..stop-1, or None when longer than `longest` characters; read from the
        text when it spans few characters, else from the pieces (long runs of marks, LaTeX or line breaks)."""
        if start >= stop:
            return ""
        if self.solid(start, stop) > longest:
            return None
        low, high = self.tokens[start].start, self.tokens[stop - 1].end
        if high - low <= 8 * longest + 64:
            return normal_text(self.raw[low:high])
        pieces, content, solid = self._pieces
        low, high = bisect_left(solid, bisect_left(content, start)), bisect_left(solid, bisect_left(content, stop))
        if low >= high:
            return ""
        first, last = solid[low], solid[high - 1]  # each piece between them keeps at least one character
        return "".join(pieces[first:last + 1]).strip(DECORATION).casefold() if last - first < longest else None

    @cached_property
    def labelled(self) -> list[int]:
        """Indexes of the words that match a label: no rule finds a label without one."""
        return [k for k, token in enumerate(self.tokens) if token.label is not None]

    @cached_property
    def _starts(self) -> list[int]:
        return [token.start for token in self.tokens]

    @cached_property
    def words(self) -> list[int]:
        """Indexes of the words (`is_word`)."""
        return [k for k, token in enumerate(self.tokens) if token.token_type in WORD_TYPES]

    @cached_property
    def breaks(self) -> list[int]:
        """Indexes of the sentence breaks (`is_break`)."""
        return [k for k, token in enumerate(self.tokens)
                if (token.token_type == "newline" or token.text in BREAKS) and self.is_break(k)]

    @cached_property
    def _standing(self) -> list[int]:
        return [k for k in self.labelled if self.label_at(k) is not None and self.stands(k)]

    @cached_property
    def _solid_before(self) -> list[int]:
        return list(accumulate(map(_solid, self.tokens), initial=0))

    @cached_property
    def _pieces(self) -> tuple[list[str], list[int], list[int]]:
        """The text of each token but LaTeX and line breaks, after a space where white space, LaTeX or a
        line break precedes it; the index of the token of each piece; the pieces that are not decoration."""
        tokens = self.tokens
        content = [k for k, token in enumerate(tokens) if token.token_type not in SPACERS]
        pieces = [" " + tokens[k].text if tokens[k].gap or (k and tokens[k - 1].token_type in SPACERS)
                  else tokens[k].text for k in content]
        return pieces, content, [j for j, k in enumerate(content) if _solid(tokens[k])]

    def previous_word(self, k: int) -> int | None:
        """The word before k on the same line, skipping marks and LaTeX."""
        for j in range(k - 1, -1, -1):
            if self.tokens[j].token_type == "newline":
                return None
            if self.is_word(j):
                return j
        return None

    def label_at(self, k: int) -> str | None:
        """The label word k matches, unless it names something else, is negated or is glued to a word."""
        token = self.tokens[k]
        if token.token_type != "word" or token.label is None or self._glued(k):
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
        return (before.token_type == "mark" and before.text in GLUE_MARKS and not before.gap and k >= 2
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
            if token.token_type == "newline" or (token.token_type == "mark" and token.text in BREAKS | {":"}):
                return True
            if token.token_type not in ("mark", "latex"):
                return False
        return True

    def decorated(self, k: int) -> bool:
        """Wrapped in brackets or markup (`(C)`, `**C**`, `\\boxed{C}`), or after "option"/"choice"."""
        tokens = self.tokens
        if (0 < k < len(tokens) - 1 and tokens[k - 1].token_type == "mark" and tokens[k - 1].text in OPENERS
                and tokens[k + 1].token_type == "mark" and tokens[k + 1].text in CLOSERS):
            return True
        before = self.previous_word(k)
        return before is not None and tokens[before].text.casefold() in MARKERS

    def ends(self, k: int, stop: int | None = None) -> bool:
        """Nothing but closing marks before a stop (`.`, `)`, `:`), a line break, `stop` or the end."""
        stop = len(self.tokens) if stop is None else stop
        j = k + 1
        while j < stop and self.tokens[j].token_type == "mark" and self.tokens[j].text in CLOSERS - STOPS:
            j += 1
        if j >= stop:
            return True
        token = self.tokens[j]
        return token.token_type == "newline" or (token.token_type == "mark" and token.text in STOPS)

    def stands(self, k: int, stop: int | None = None) -> bool:
        """Word k can only be meant as a label here: strong, decorated, or standing alone before a stop."""
        return self.strong(k) or self.decorated(k) or self.ends(k, stop)

    def named_labels(self, k: int) -> set[str]:
        """The label at k and every label joined to it as an alternative ("A, B, or C", "B and/or C")."""
        found = {self.label_at(k)}
        for step in (1, -1):
            found |= self._joined(k, step)
        return found

    def apposed_labels(self, k: int) -> set[str]:
        """Labels written right by word k in the other numbering ("3 (D)", "D (choice 3)", "D: 3"), with only
        brackets, colons, dashes or "option"/"choice" between: the same choice named twice, or two choices."""
        own = numbering(self.tokens[k].text)
        found = set()
        for step in (1, -1):
            j = self._apposed(k, step)
            if j is not None and numbering(self.tokens[j].text) != own and self.label_at(j) is not None \
                    and (self._set_apart(j) or self.decorated(k) or self.ends(k)):
                found.add(self.label_at(j))
        return found

    def _set_apart(self, k: int) -> bool:
        """Bracketed, marked ("choice 3") or before a stop, or a letter written as a label: a label of the other
        numbering by another label names a choice too when it is set apart or the other one is bracketed or
        before a stop ("3 (D)", "D: 3", "3 (choice D)"); "D (2 cases ...)" names one."""
        return self.decorated(k) or self.ends(k) or (numbering(self.tokens[k].text) == "word" and self.strong(k))

    def _apposed(self, k: int, step: int) -> int | None:
        """The word next to k (step 1: after, -1: before) with only apposing marks or markers between."""
        for j in range(k + step, max(-1, min(len(self.tokens), k + step * APPOSED_SPAN)), step):
            token = self.tokens[j]
            if token.token_type == "newline" or self.is_break(j):
                return None
            if token.token_type in ("mark", "latex"):
                if token.text not in APPOSING_MARKS:
                    return None
            elif token.text.casefold() not in MARKERS | RESTATING:
                return j if self.is_word(j) else None
        return None

    def _joined(self, k: int, step: int) -> set[str]:
        found, joined, j = set(), False, k + step
        while 0 <= j < len(self.tokens) and not self.is_break(j):
            token = self.tokens[j]
            word = token.text.casefold()
            if token.token_type in ("mark", "latex"):
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
        """Stands as a label, or is followed by a joining word or mark (so "a" in "a or b" counts); a number
        only set apart ("12 or 13", "B, (2)"), not before other words ("B, 2 cases agree")."""
        if self.stands(k) and (numbering(self.tokens[k].text) == "word" or self._set_apart(k)):
            return True
        following = k + 1 if k + 1 < len(self.tokens) else None
        if following is None:
            return True
        token = self.tokens[following]
        return token.text in JOINING_MARKS or token.text.casefold() in CONNECTORS


def numbering(word: str) -> str:
    """How a word that matches a label numbers the choices: "digit" ("3", "007") or "word" ("D", "FAC")."""
    return "digit" if _DIGITS.fullmatch(word) else "word"


def _first(positions: list[int], k: int, stop: int, default=None):
    """The first of the sorted `positions` at or after k and before `stop`, else `default`."""
    index = bisect_left(positions, k)
    return positions[index] if index < len(positions) and positions[index] < stop else default


def _solid(token: Token) -> bool:
    """Not LaTeX, a line break or a decoration mark: keeps at least one character in a normal form."""
    return token.token_type not in SPACERS and (token.token_type != "mark" or token.text not in DECORATION)
