"""What each word of a generation is where it stands: the tokens of one text, with the positions the committing
forms look for (next word, sentence break, label word) listed once and found by bisection, and what a word means
where it stands (`label_at`, `stands`) worked out once per word, so a generation is read in time about linear in its
length."""
from __future__ import annotations

from bisect import bisect_left
from functools import cached_property
from itertools import accumulate

from baselines.evaluation.reading.words import DECORATION, Matcher, Token, normal_text, tokens_of

OPENERS = set("([{<*_`'\"$")
CLOSERS = set(")]}>*_`'\"$")
STOPS = set(".):;]}!?—–")  # a dash after a label reads as a colon: "3 — holding that ..."
BREAKS = set(".!?")
GLUE_MARKS = set("([.")
MARKERS = {"option", "options", "choice", "choices", "letter", "letters", "label", "labels"}
NEGATORS = {"not", "never", "nor", "neither", "except", "excluding", "exclude", "than", "isn't", "isn’t",
            "wasn't", "aren't", "eliminate", "eliminating", "eliminated", "against", "without"}
NAMING = {"title", "titles", "article", "articles", "part", "parts", "section", "sections", "subsection",
          "chapter", "schedule", "exhibit", "appendix", "annex", "count", "counts", "class", "type", "plan",
          "category", "tier", "grade", "level", "division", "paragraph", "clause", "rule", "form", "step",
          "phase", "group", "footnote", "note", "amendment", "volume", "vol", "item", "figure", "fig",
          "table", "question", "model", "vitamin", "page", "p", "pp"}
NEGATING_PAIRS = {"of": "instead", "from": "apart", "for": "except"}  # "instead of E", "apart from D": not E, not D
RANGES = {"through", "thru", "until", "till"}  # "0 through 4"; not "to": "from B to C" names C
WORD_TYPES = ("word", "abbrev", "number")
SPACERS = ("latex", "newline")  # read as white space in a normal form
ENGLISH_LETTERS = {"a", "i"}  # single-letter English words: the article and the pronoun
_NOT_LABEL_AFTER = NAMING | NEGATORS
_SENTENCE_OPENING_MARKS = BREAKS | {":"}
_TRAILING_MARKS = CLOSERS - STOPS
_CLOSING_QUOTES = set("\"'”’)]*_")


class Text:
    """The tokens of one generation, with the tests the committing forms are made of."""

    def __init__(self, raw: str, matcher: Matcher):
        self.raw, self.tokens, self.matcher = raw, tokens_of(raw, matcher), matcher
        self._labels_at: dict[int, str | None] = {}  # label_at of each word asked about
        self._standing_at: dict[int, bool] = {}  # stands (before the end) of each word asked about

    def __len__(self) -> int:
        return len(self.tokens)

    def is_word(self, k: int) -> bool:
        return self.tokens[k].token_type in WORD_TYPES

    def is_break(self, k: int) -> bool:
        """A line break, or . ! ? followed (past closing quotes or brackets) by a space or the end."""
        token = self.tokens[k]
        if token.token_type == "newline":
            return True
        if token.token_type != "mark" or token.text not in BREAKS:
            return False
        j = k + 1
        while j < len(self.tokens) and j <= k + 3 and not self.tokens[j].gap and self.tokens[j].text in _CLOSING_QUOTES:
            j += 1
        following = self.tokens[j] if j < len(self.tokens) else None
        return following is None or following.gap or following.token_type == "newline"

    def sentence_end(self, k: int) -> int:
        """Index of the first break after token k (or the number of tokens)."""
        return _first(self.breaks, k + 1, len(self.tokens), len(self.tokens))

    def index_at(self, position: int) -> int:
        """Index of the first token starting at or after character `position`."""
        return bisect_left(self._starts, position)

    def next_word(self, k: int, stop: int | None = None) -> int | None:
        """The first word at or after k (before `stop`), skipping marks, LaTeX and line breaks."""
        return _first(self.words, k, len(self.tokens) if stop is None else stop)

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
    def line_starts(self) -> list[int]:
        """For each token, the index of the first token of its line (found once for the whole text)."""
        starts, first = [], 0
        for k, token in enumerate(self.tokens):
            starts.append(first)
            if token.token_type == "newline":
                first = k + 1
        return starts

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
        if before is not None and self.tokens[before].text.casefold() in RANGES:
            bound = self.previous_word(before)  # "numbered 0 through 4": the bound of a range names no choice
            return bound is not None and self.tokens[bound].label is not None
        if before is not None and self.tokens[before].text.casefold() in NEGATING_PAIRS:  # "instead of E"
            prior = self.previous_word(before)
            if prior is not None and self.tokens[prior].text.casefold() == NEGATING_PAIRS[self.tokens[before].text.casefold()]:
                return True
        if before is None or self.tokens[before].text.casefold() not in _NOT_LABEL_AFTER:
            return False
        return not any(self.tokens[j].text in ":;,." for j in range(before + 1, k))  # "a benchmark item: D" names D

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
        """Written exactly as a label, and not the English word it could also be ("I"; "A" opening a sentence, unless
        a comma follows it: "A, since ..." is no article)."""
        token = self.tokens[k]
        if not token.exact or token.text == "I":
            return False
        comma = k + 1 < len(self.tokens) and self.tokens[k + 1].text == ","
        return not (token.text == "A" and self._sentence_start(k) and not comma)

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


def _first(positions: list[int], k: int, stop: int, default=None):
    """The first of the sorted `positions` at or after k and before `stop`, else `default`."""
    index = bisect_left(positions, k)
    return positions[index] if index < len(positions) and positions[index] < stop else default


def _solid(token: Token) -> bool:
    """Not LaTeX, a line break or a decoration mark: keeps at least one character in a normal form."""
    return token.token_type not in SPACERS and (token.token_type != "mark" or token.text not in DECORATION)
