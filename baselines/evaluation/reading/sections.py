"""Which part of a generation is read: the visible answer, not the reasoning before it, not what is struck out,
not a continuation of the prompt.

- Reasoning sections. Reasoning models write their thinking in a section of its own (`<think>...</think>`,
  `<thinking>`, `<reasoning>`, `<reflection>`, `[THINK]...[/THINK]`, `<|begin_of_thought|>...<|end_of_thought|>`,
  the analysis channel before `<|channel|>final<|message|>`), and so do servers that run them without a reasoning
  parser. Such a section is read only when nothing follows it: the answer is what the visible response after the
  last one commits to (`visible_span`). A section opened and never closed runs to the end of the text.
- Struck-out text (`~~C~~`, `<del>C</del>`, `<s>C</s>`, `<strike>C</strike>`) is retracted: it is read as blank.
- Continuations. Base models, and any model given a few-shot prompt, often keep writing after their answer: the
  next example of the prompt's pattern ("3\n\nQuestion: ...\nChoices:\n0: ...\nAnswer: 1"). What follows is no
  answer to this item, so only the text before it is read (`continuation_start`). A continuation starts at a line
  that opens with one of the prompt's own section openers (`Question:`, a benchmark's instruction, ...), after some
  text: a generation that opens with "Question:" restates the question, unless it goes on to list choices ("A.
  ...", "B. ..."): then it writes a new example of its own, and nothing in it answers this item. Each benchmark
  names its openers (the task record's `continuation` hook); `GENERIC_OPENERS` ("Question:", "Q:", "Input:") are
  read for every task. Openers match what opens a new example, not one spelling: in any case, with any white space
  between their words, numbered ("Question 2:", "Question 4 -", "2. Question:", "Q2:"), after markdown; at the
  start of a line (after any line break: \r, U+2028 and U+2029 included, see `plain_lines`) or after a gap of two
  or more spaces inside one (no-break and zero-width spaces included: "Answer: B\u200bQuestion: ...").
"""
from __future__ import annotations

import functools
import re
from typing import Sequence

GENERIC_OPENERS = ("Question:", "Q:", "Input:", "Example:", "User:", "Human:")
_LINE_BREAKS = re.compile("\r\n?|[\u2028\u2029\x0b\x0c\x85]")
_SPACES = re.compile("[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")
_CHOICE_LINES = re.compile(r"(?m)^[ \t]*\(?(?:[A-Z]|[0-9]{1,2})[.):][ \t]")  # "A. ...", "(B) ...", "0: ..."
_NUMBER = r"(?:\(?[0-9]+[.):][ \t]*)?"  # "2. Question:", "(2) Question:"
_NUMBERED = r"(?:[ \t]*(?:#|no\.?|number)?[ \t]*\(?[0-9]+\)?[ \t]*[.)\-–—]?)?"  # "Question 2:", "Question #2 -", "Q2:"
_REASONING_NAMES = r"think|thinking|thought|thoughts|reasoning|reflection|scratchpad|analysis|internal_thoughts"
_REASONING_OPEN = re.compile(r"<(?:" + _REASONING_NAMES + r")\s*>|\[THINK\]|◁think▷|<\|begin_of_thought\|>"
                             r"|<\|channel\|>analysis<\|message\|>", re.IGNORECASE)
_REASONING_CLOSE = re.compile(r"</(?:" + _REASONING_NAMES + r")\s*>|\[/THINK\]|◁/think▷|<\|end_of_thought\|>"
                              r"|<\|channel\|>final<\|message\|>", re.IGNORECASE)
_SPECIAL = re.compile(r"(?m)^[ \t#*]*(?:assistant|model|chatbot|bot|ai)[ \t*]*:|<\|(?:im_start|start_header_id)\|>[ \t]*(?:assistant|model|system|user)?(?:<\|end_header_id\|>)?"
                      r"|<start_of_turn>[ \t]*(?:model|user)?|\[/?INST\]|<\|[a-z_]+\|>|</?(?:answer_section|solution|"
                      r"response|output)\s*>|</s>|<eos>|<bos>|<pad>|<unk>|\[PAD\]|<end_of_turn>", re.IGNORECASE)
# text that is not the writer's answer: an echoed format or example (to the end of its line; "for example", to the
# end of its sentence), a stated confidence
ASIDES = re.compile(r"(?:^|(?<=[.!?:;\s(]))(?:example\s+(?:output|response|answer)|sample\s+(?:output|response|answer)"
                    r"|expected\s+(?:format|output)|output\s+format|format\s+example|answer\s+format|required\s+format"
                    r"|(?:respond|reply|answer)\s+(?:in|with|using)\s+the\s+(?:format|form|template)"
                    r"|you\s+asked\s+for|something\s+like|(?:should|would|must|will)\s+look\s+like|templates?|placeholder)\b[^\n]*"
                    r"|(?:^|(?<=[.!?:;\s(]))for\s+(?:example|instance)\b[^\n]*?(?=(?<=[.!?])[ \t]|\n|$)|(?:^|(?<=[.!?;\s(]))(?:format\s*:|e\.g\.)[^\n]*"
                    r"|[ \t]*[,;(—–-]?[ \t]*(?:with\s+(?:\w+\s+){0,2}confidence\b|confidence(?:\s+level)?\s*[:=]?\s*(?:\d{1,3}"
                    r"\s*%|high|medium|moderate|low|\d(?:\.\d+)?)\b|(?:about|around|roughly|~)?\s*\d{1,3}\s*%\s*(?:sure|"
                    r"confident|certain)\b|[,;(—–-][ \t]*(?:(?:very|fairly|moderately|quite|somewhat|reasonably|highly)\s+)(?:confident|"
                    r"sure|certain)\b|[ \t]*\([ \t]*(?:~|about[ \t]+)?\d{1,3}[ \t]*%[ \t]*\))[ \t]*\)?", re.IGNORECASE | re.MULTILINE)
_STRUCK = re.compile(r"~~(?:(?!~~)[^\n])+~~|<(del|s|strike)>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)


def plain_lines(raw: str) -> str:
    """`raw` with every line break written as "\\n" (\\r\\n, a bare \\r, U+2028, U+2029 ...), each no-break,
    other Unicode or zero-width space as two spaces (a gap no writer types by hand: a continuation may open after
    it, see `continuation_start`), soft hyphens removed: the text the extractor reads."""
    if raw.isascii() and "\r" not in raw and "\x0b" not in raw and "\x0c" not in raw:
        return raw
    return _INVISIBLE.sub("  ", _SPACES.sub("  ", _LINE_BREAKS.sub("\n", raw.replace("\u00ad", ""))))


def visible_span(raw: str) -> tuple[int, int, bool]:
    """(start, end, unfinished) of the part of `raw` that is read: after the last closed reasoning section when
    anything follows it; the inside of that section when nothing does; all of `raw` when it has none. A section
    opened and never closed was cut off while reasoning: the text before it is read when there is any, else the
    section itself, as a generation cut off by its token limit is (`unfinished`)."""
    closes = list(_REASONING_CLOSE.finditer(raw))
    opens = list(_REASONING_OPEN.finditer(raw, closes[-1].end() if closes else 0))
    if opens:
        start = closes[-1].end() if closes else 0
        if _SPECIAL.sub(" ", raw[start:opens[0].start()]).strip():
            return start, opens[0].start(), False
        return opens[0].end(), len(raw), True
    if not closes:
        return 0, len(raw), False
    last = closes[-1]
    if _SPECIAL.sub(" ", raw[last.end():]).strip():
        return last.end(), len(raw), False
    opened = [match for match in _REASONING_OPEN.finditer(raw, 0, last.start())]
    return (opened[-1].end() if opened else 0), last.start(), False


def blank_struck(raw: str) -> str:
    """`raw` with struck-out text, the markup of reasoning sections and chat templates, and asides that are not
    the writer's answer (`ASIDES`) written as spaces (positions unchanged)."""
    for pattern in (_STRUCK, _REASONING_OPEN, _REASONING_CLOSE, _SPECIAL, ASIDES):
        raw = pattern.sub(lambda match: " " * len(match.group()), raw)
    return raw


def _opener(opener: str) -> str:
    """One opener as a pattern: any case, any run of white space between its words, and a number before a
    closing colon ("Question 2:"), or a markdown heading of its words alone ("### Question")."""
    words = [re.escape(word) for word in opener.split()]
    pattern = r"(?:(?:next|new|another|following)\s+)?" + r"\s+".join(words)
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
    opened = False
    for match in opener_pattern(tuple(openers) + GENERIC_OPENERS).finditer(raw):
        if raw[:match.start()].strip():
            return 0 if opened else match.start()  # a second example after one it opened with: none is ours
        if len(_CHOICE_LINES.findall(raw, match.end())) >= 2:
            return match.start()  # it opens by writing a new example, choices and all: nothing is answered
        opened = True
    return None
