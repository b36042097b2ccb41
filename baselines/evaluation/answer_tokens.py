"""What each word of a generation means where it stands, for the answer extractor (`baselines.evaluation.extract`).

A generation is cut into tokens and its words matched to labels by `baselines.evaluation.answer_words`;
`Text` then says whether a word stands as a label where it is (see the module docstring of
`baselines.evaluation.extract`).
The positions rules look for (next word, sentence break, word standing as a label) are listed once
per text and found by bisection, and what a word means where it stands (`label_at`, `stands`) is worked out
once per word, so a generation is read in time about linear in its length: a few passes over its tokens.
A list of labels joined as alternatives ("A or A or ..." over a whole generation) is walked at most once in
each direction, up to its second distinct label.
"""
from __future__ import annotations

from bisect import bisect_left
from functools import cached_property
from itertools import accumulate

from baselines.evaluation.answer_words import DECORATION, Matcher, Token, normal_text, numbering, tokens_of
from baselines.evaluation.stance import Stances

OPENERS = set("([{<*_`'\"$")
CLOSERS = set(")]}>*_`'\"$")
STOPS = set(".):;]}!?—–")  # a dash after a label reads as a colon: "3 — holding that ..."
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
_NOT_LABEL_AFTER = NAMING | NEGATORS
_SKIPPED_IN_LISTS = HEDGES | MARKERS
_APPOSING_WORDS = MARKERS | RESTATING
_SENTENCE_OPENING_MARKS = BREAKS | {":"}
_TRAILING_MARKS = CLOSERS - STOPS


class Text:
    """The tokens of one generation, with the tests the extraction rules are made of."""

    def __init__(self, raw: str, matcher: Matcher):
        self.raw, self.tokens = raw, tokens_of(raw, matcher)
        self._labels_at: dict[int, str | None] = {}  # label_at of each word asked about
        self._standing_at: dict[int, bool] = {}  # stands (before the end) of each word asked about
        self._not_standing: dict[int, int] = {}  # position in `labelled` -> a later one, none standing between
        self.taken: int | None = None  # the mention a rule took its answer from (set by the extractor)
        self.passed_over: str | None = None  # the stance of the first mention a rule could not take

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
        """The first word at or after k (before `stop`) that matches a label and stands as one (`stands`).

        Label words are looked at from k on, each once per text: a run of words found not standing is
        jumped over by later searches (`_standing_from`)."""
        labelled, stop = self.labelled, len(self.tokens) if stop is None else stop
        index = self._standing_from(bisect_left(labelled, k))
        return labelled[index] if index < len(labelled) and labelled[index] < stop else None

    def _standing_from(self, index: int) -> int:
        """The first position at or after `index` in `labelled` whose word stands as a label (or its length);
        every position passed on the way is sent straight there next time."""
        labelled, passed = self.labelled, []
        while index < len(labelled) and not (self.label_at(labelled[index]) is not None
                                             and self.stands(labelled[index])):
            passed.append(index)
            index = self._not_standing.get(index, index + 1)
        for position in passed:
            self._not_standing[position] = index
        return index

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
    def stance(self) -> Stances:
        """stance(k): how the text stands on the choice that word k names (baselines.evaluation.stance)."""
        return Stances(self)

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
        tokens = self.tokens
        for j in range(k - 1, -1, -1):
            token_type = tokens[j].token_type
            if token_type == "newline":
                return None
            if token_type in WORD_TYPES:
                return j
        return None

    def label_at(self, k: int) -> str | None:
        """The label word k matches, unless it names something else, is negated or is glued to a word."""
        token = self.tokens[k]
        if token.token_type != "word" or token.label is None:
            return None
        if k not in self._labels_at:
            self._labels_at[k] = None if self._glued(k) or self._after_naming(k) else token.label
        return self._labels_at[k]

    def _after_naming(self, k: int) -> bool:
        """Word k follows a naming word or a negation, maybe through a marker ("Title I", "not option B")."""
        before = self.previous_word(k)
        if before is not None and self.tokens[before].text.casefold() in MARKERS:
            before = self.previous_word(before)
        return before is not None and self.tokens[before].text.casefold() in _NOT_LABEL_AFTER

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
            if token.token_type == "newline" or (token.token_type == "mark" and token.text in _SENTENCE_OPENING_MARKS):
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
        while j < stop and self.tokens[j].token_type == "mark" and self.tokens[j].text in _TRAILING_MARKS:
            j += 1
        if j >= stop:
            return True
        token = self.tokens[j]
        return token.token_type == "newline" or (token.token_type == "mark" and token.text in STOPS)

    def stands(self, k: int, stop: int | None = None) -> bool:
        """Word k can only be meant as a label here: strong, decorated, or standing alone before a stop."""
        if stop is not None:
            return self.strong(k) or self.decorated(k) or self.ends(k, stop)
        if k not in self._standing_at:
            self._standing_at[k] = self.strong(k) or self.decorated(k) or self.ends(k)
        return self._standing_at[k]

    def named_labels(self, k: int) -> set[str]:
        """The label at k and the labels joined to it as alternatives ("A, B, or C", "B and/or C"): every one of
        them when they are one label, else two of them (enough to tell several from one)."""
        own = self.label_at(k)
        found = {own} | self._joined(k, 1, own)
        return found if len(found) > 1 else found | self._joined(k, -1, own)

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
            elif token.text.casefold() not in _APPOSING_WORDS:
                return j if self.is_word(j) else None
        return None

    def _joined(self, k: int, step: int, own: str | None) -> set[str]:
        """The labels of the list that word k is in, read from k on (step 1: after it, -1: before it) within
        its sentence, up to the first one that is not `own`."""
        found, joined, tokens = set(), False, self.tokens
        end = self.sentence_end(k) if step > 0 else self.previous(self.breaks, k)
        for j in range(k + step, end, step):
            token = tokens[j]
            if token.token_type in ("mark", "latex"):
                joined = joined or token.text in JOINING_MARKS
                continue
            word = token.text.casefold()
            if word in CONNECTORS:
                joined = True
            elif word not in _SKIPPED_IN_LISTS:
                label = self.label_at(j)
                if label is None or not joined or not self._listed(j):
                    break
                found.add(label)
                if label != own:
                    break
                joined = False
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


def _first(positions: list[int], k: int, stop: int, default=None):
    """The first of the sorted `positions` at or after k and before `stop`, else `default`."""
    index = bisect_left(positions, k)
    return positions[index] if index < len(positions) and positions[index] < stop else default


def _solid(token: Token) -> bool:
    """Not LaTeX, a line break or a decoration mark: keeps at least one character in a normal form."""
    return token.token_type not in SPACERS and (token.token_type != "mark" or token.text not in DECORATION)
