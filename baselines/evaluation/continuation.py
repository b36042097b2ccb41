"""Where a generation stops answering and goes on writing the prompt: the continuation of a few-shot prompt.

Base models, and any model given a few-shot prompt, often keep writing after their answer: the next example
of the prompt's pattern ("3\\n\\nQuestion: ...\\nChoices:\\n0: ...\\nAnswer: 1"). What follows is no answer to
this item, so the extractor reads only the text before it: the answer is the one given before the
continuation starts, and a generation that gave none before it has no answer.

A continuation starts at a line that opens with one of the prompt's own section openers (`Question:`, a
benchmark's instruction, ...), after some text: a generation that opens with "Question:" restates the
question, it does not continue the prompt, unless it goes on to list choices ("A. ...", "B. ..."): then it
writes a new example of its own, and nothing in it answers this item. Each benchmark names its openers (the task record's
`continuation` hook); `GENERIC_OPENERS` ("Question:", "Q:", "Input:") are read for every task.
Openers match what opens a new example, not one spelling: in any case, with any white space between their
words, numbered ("Question 2:", "Question 4 -", "2. Question:", "Q2:"), after markdown; at the start of a line
(after any line break: \\r, U+2028 and U+2029 included, see `plain_lines`) or after a gap of two or more spaces
inside one (no-break and zero-width spaces included: "Answer: B\\u200bQuestion: ...").
"""
from __future__ import annotations

import functools
import re
from typing import Sequence

GENERIC_OPENERS = ("Question:", "Q:", "Input:", "Example:")
_LINE_BREAKS = re.compile("\r\n?|[\u2028\u2029\x0b\x0c\x85]")
_SPACES = re.compile("[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")
_CHOICE_LINES = re.compile(r"(?m)^[ \t]*\(?(?:[A-Z]|[0-9]{1,2})[.):][ \t]")  # "A. ...", "(B) ...", "0: ..."
_NUMBER = r"(?:\(?[0-9]+[.):]?[ \t]*)?"  # "2. Question:", "(2) Question:"
_NUMBERED = r"(?:[ \t]*(?:#|no\.?|number)?[ \t]*\(?[0-9]+\)?[ \t]*[.)\-–—]?)?"  # "Question 2:", "Question #2 -", "Q2:"


def plain_lines(raw: str) -> str:
    """`raw` with every line break written as "\\n" (\\r\\n, a bare \\r, U+2028, U+2029 ...), each no-break,
    other Unicode or zero-width space as two spaces (a gap no writer types by hand: a continuation may open after
    it, see `continuation_start`), soft hyphens removed: the text the extractor reads."""
    if raw.isascii() and "\r" not in raw and "\x0b" not in raw and "\x0c" not in raw:
        return raw
    return _INVISIBLE.sub("  ", _SPACES.sub("  ", _LINE_BREAKS.sub("\n", raw.replace("\u00ad", ""))))


def _opener(opener: str) -> str:
    """One opener as a pattern: any case, any run of white space between its words, and a number before a
    closing colon ("Question 2:"), or a markdown heading of its words alone ("### Question")."""
    words = [re.escape(word) for word in opener.split()]
    pattern = r"\s+".join(words)
    if opener.endswith(":"):
        bare = pattern[:-1]
        pattern = (bare + r"(?:" + _NUMBERED + r"[ \t]*:|[ \t]*\(?[0-9]+\)?[ \t]*[.)\-–—])"
                   + r"|(?<=#)[ \t]*" + bare + r"[ \t]*$")
    return pattern


@functools.lru_cache(maxsize=64)
def opener_pattern(openers: tuple[str, ...]) -> re.Pattern:
    """A pattern matching each opener at the start of a line (after spaces, markdown emphasis, "#" or a number),
    or inside a line after a gap of two or more spaces ("Answer: B  Q: ..."), ignoring case."""
    alternatives = "|".join(_opener(opener) for opener in sorted(set(openers), key=len, reverse=True))
    return re.compile(r"(?mi)(?:^[ \t]*|(?<=\S)[ \t]{2,})(?:[#*_>]+[ \t]*)?" + _NUMBER + r"(?:[#*_>]+[ \t]*)?(?:"
                      + alternatives + ")")


def continuation_start(raw: str, openers: Sequence[str] | None) -> int | None:
    """The character position where a continuation of the prompt starts in `raw` (read with `plain_lines`), or
    None when there is none."""
    if not openers:
        return None
    for match in opener_pattern(tuple(openers) + GENERIC_OPENERS).finditer(raw):
        if raw[:match.start()].strip():
            return match.start()
        if len(_CHOICE_LINES.findall(raw, match.end())) >= 2:
            return match.start()  # it opens by writing a new example, choices and all: nothing is answered
    return None
