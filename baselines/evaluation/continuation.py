"""Where a generation stops answering and goes on writing the prompt: the continuation of a few-shot prompt.

Base models, and any model given a few-shot prompt, often keep writing after their answer: the next example
of the prompt's pattern ("3\\n\\nQuestion: ...\\nChoices:\\n0: ...\\nAnswer: 1"). What follows is no answer to
this item, so the extractor reads only the text before it: the answer is the one given before the
continuation starts, and a generation that gave none before it has no answer.

A continuation starts at a line that opens with one of the prompt's own section openers (`Question:`, a
benchmark's instruction, ...), after some text: a generation that opens with "Question:" restates the
question, it does not continue the prompt. Each benchmark names its openers (the task record's
`continuation` hook); `GENERIC_OPENERS` serve a task that names none.
"""
from __future__ import annotations

import functools
import re
from typing import Sequence

GENERIC_OPENERS = ("Question:",)


@functools.lru_cache(maxsize=64)
def opener_pattern(openers: tuple[str, ...]) -> re.Pattern:
    """A pattern matching each opener at the start of a line (after spaces, markdown emphasis or "#")."""
    alternatives = "|".join(re.escape(opener) for opener in sorted(set(openers), key=len, reverse=True))
    return re.compile(r"(?m)^[ \t]*(?:[#*_>]+[ \t]*)?(?:" + alternatives + ")")


def continuation_start(raw: str, openers: Sequence[str] | None) -> int | None:
    """The character position where a continuation of the prompt starts in `raw`, or None when there is none."""
    if not openers:
        return None
    for match in opener_pattern(tuple(openers)).finditer(raw):
        if raw[:match.start()].strip():
            return match.start()
    return None
