"""Where a generation takes back an answer it gave: a correction marker after it.

Reasoning models correct themselves: "Answer: B.\n\nCorrection: D.", "D.\n\nWait, no. B.", "The answer is A. On
reflection, the final answer is D". A correction marker that follows an answer makes what comes after it final:
the reader then reads only the text after the last such marker, and where that commits to nothing, no earlier
answer can be trusted to stand either: there is no answer. A marker that follows no answer ("Actually, the Court
decided this in 2006. The final answer is D") takes nothing back, and changes nothing.

A marker is one of a few phrases that take back a statement (`CORRECTIONS`): "correction", "wait" (opening a
sentence or after "no"), "actually" and "I mean" opening a sentence or after a comma, "No," opening a sentence or
after a comma or dash ("A... no, sorry, B", "C—no, D"), "on reflection" / "on second thought", "scratch that", "let
me reconsider", "I was wrong" and the like. "actually" inside a sentence ("the court actually held") takes nothing
back. Matching is one regular-expression pass over the text: linear in its length.
"""
from __future__ import annotations

import re

_OPENING = r"(?:^|(?<=[.!?\n…])|(?<=[.!?][\"'*)\]])|(?<=[,;:(—–])|(?<=\bno)|(?<=\bhmm)|(?<=\boh)|(?<=\bbut))"
CORRECTIONS = re.compile(
    _OPENING + r"[ \t*_>#]*(?:"
    r"wait\b|hold\s+on\b|actually\b|i\s+mean\b|i\s+meant\b|oops\b|never\s*mind\b|nope\b|scratch\s+that\b"
    r"|correction\b|correcting\s+myself\b|let\s+me\s+correct\b|let\s+me\s+(?:reconsider|rethink|re-?evaluate"
    r"|re-?examine|revise|redo)\b|i\s+(?:was|am)\s+wrong\b"
    r"|i\s+made\s+(?:a|an)\s+(?:mistake|error)\b|i\s+misspoke\b|(?<!\?)(?<!\?[ \t])no(?=[ \t]*[,.!;:—–…])|sorry\b|my\s+(?:mistake|bad|error)\b|(?:or\s+)?rather\b(?!\s+than)"
    r"|(?:edit(?:ed)?|update[d]?|revision|revised)\s*:|(?:the\s+)?corrected(?=\s+answer\b)|(?:up)?on\s+(?:further\s+)?review\b|(?:up)?on\s+(?:further\s+|second\s+|more\s+careful\s+)?"
    r"(?:reflection|reconsideration)\b|on\s+second\s+thoughts?\b|on\s+(?:closer|further|second)\s+"
    r"(?:inspection|look|reading|review)\b|having\s+reconsidered\b|revised\s+answer\b|rethinking\b"
    r"|re-?reading\b)(?:[ \t]*[,.:;!—–-]*[ \t]*(?:no|nope|sorry)\b)*[ \t]*[,.:;!—–-]*",
    re.IGNORECASE | re.MULTILINE)


_VERDICT_BEFORE = re.compile(r"(?:^|[\s(*])(?:[A-Z0-9]{1,2}|[A-Z][A-Z_]+)[)*]*[ \t]*[—–:-]+[ \t]*$")


def correction_spans(raw: str) -> list[tuple[int, int]]:
    """(start, end) of each correction marker in `raw`, in order. A "no" right after a label and a dash or colon
    ("A — no.", "PREAMBLE — no, ...") is a verdict on that choice, no correction."""
    found = []
    for match in CORRECTIONS.finditer(raw):
        if match.group().strip(" \t*_>#").lower().startswith("no") and _VERDICT_BEFORE.search(
                raw, max(0, match.start() - 40), match.start()):
            continue
        found.append(match.span())
    return found
