"""Items, not answers: a label that opens a line or sentence the way labels open others of the text (a list, a walk
through the choices, a checklist), or that a cross or an empty box marks. The label forms (`label_lines`) never read
such a label as the answer.

Lines are compared by their signature: what opens them up to the mark after their label ("**Option L**:", "1. (L)
—", "- [ ] L"), worked out once per text, so the test is linear in the text's length."""
from __future__ import annotations

import re

from baselines.evaluation.reading.text import MARKERS, Text

_ENUMERATOR = re.compile(r"[0-9]+|[^\W\d_]|[ivxlcdm]+", re.IGNORECASE)


def listed_line(text: Text, k: int) -> bool:
    """Label k opens a line or sentence the way a label or enumerator opens another one of the text that goes on
    after it: an item of a list ("A) ...\nB) ...", "1. (A) — ...\n2. (B) — ..."), or of a walk through the choices
    ("**Option A**: ...\n**Option B**"), even when cut off there. Lines that are nothing but a label ("B.\n\nWait,
    no. D.") are answers, not items."""
    own = _opening(text, k)
    if own is None:
        return False
    start, signature = own
    label = text.label_at(k)
    return any(other != start and named != label
               for other, named in _item_openings(text, len(signature)).get(signature, {}).items())


def _opening(text: Text, k: int) -> tuple[int, tuple] | None:
    """(first token, signature) of the line or sentence that label k opens, up to the mark after k; None when k
    does not open one."""
    start = k
    while start > 0 and not (text.tokens[start - 1].token_type == "newline" or text.is_break(start - 1)):
        start -= 1
        if text.is_word(start) and _kind(text, start) is None:
            return None
    stop = k + 1
    if stop < len(text) and text.tokens[stop].token_type == "mark":
        stop += 1
    return (start, _signature(text, start, stop - start)) if stop - start > 1 else None


def _item_openings(text: Text, length: int) -> dict[tuple, dict[int, str | None]]:
    """Signature -> {first token: the label it names} of the lines and sentences that open with it and go on after
    it (a list names different choices; a line repeated with the same label is no list): worked out once per text
    and signature length, so a text is looked through once, not once per label."""
    known = text.__dict__.setdefault("_item_openings", {})
    if length not in known:
        found: dict[tuple, dict[int, str | None]] = {}
        for other in _openings(text):
            if not _bare(text, other + length) or _enumerated(text, other, length):
                named = next((text.label_at(j) for j in range(other, min(len(text), other + length))
                              if text.is_word(j) and text.tokens[j].label is not None), None)
                found.setdefault(_signature(text, other, length), {})[other] = named
        known[length] = found
    return known[length]


def _enumerated(text: Text, start: int, length: int) -> bool:
    """The opening holds an enumerator, a marker or a bullet besides its label ("1. choice 4", "**Option B**", "- [ ]
    C"): an item even when nothing follows it."""
    signature = _signature(text, start, length)
    words = sum(1 for kind in signature if kind and kind[0].isalpha())
    marked = bool(signature) and signature[0] not in ("L", None) and not signature[0][0].isalpha() \
        and signature[0] not in ("*", "_", "(", "`", "'", '"')
    return words >= 2 or marked or "[" in signature


def _bare(text: Text, j: int) -> bool:
    """Nothing but marks from token j to the end of its line or sentence."""
    while j < len(text) and not text.is_word(j):
        if text.tokens[j].token_type == "newline" or text.is_break(j):
            return True
        j += 1
    return j >= len(text)


def _openings(text: Text):
    """The first token of each line and sentence."""
    yield 0
    for j in text.breaks:
        if j + 1 < len(text):
            yield j + 1


def _signature(text: Text, start: int, length: int) -> tuple:
    """What the `length` tokens from `start` are: a label or enumerator ("L"), a marker word, a mark."""
    shown = []
    for j in range(start, min(len(text), start + length)):
        token = text.tokens[j]
        if token.token_type == "newline":
            break
        shown.append(_kind(text, j) if text.is_word(j) else token.text)
    return tuple(shown)


def _kind(text: Text, j: int) -> str | None:
    """"L" for a label or an enumerator, the word itself for a marker ("option", "holding"), else None."""
    word = text.tokens[j].text
    if text.tokens[j].label is not None or _ENUMERATOR.fullmatch(word):
        return "L"
    folded = word.casefold()
    return folded if folded in MARKERS | {"holding", "holdings", "role", "step", "answer"} else None


CROSSES = {"✗", "✘", "❌", "☐", "✕", "×"}


def crossed(text: Text, k: int) -> bool:
    """A cross or an empty box before label k on its line ("✗ A", "- [ ] A"): an item marked no, not an answer."""
    j = k - 1
    while j >= 0 and text.tokens[j].token_type != "newline" and not text.is_word(j):
        if text.tokens[j].text in CROSSES or (text.tokens[j].text == "]" and j and text.tokens[j - 1].text == "["):
            return True
        j -= 1
    return False
