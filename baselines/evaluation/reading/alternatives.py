"""Several choices named as one: a label joined to other labels as alternatives or a list ("A, B, or C", "B (or
possibly C)"), or written by a label of the other numbering ("3 (C)": two choices; "3 (D)": one). A committing form
whose label is named with another choice names several (`values.alone`): no answer.

Each list is walked at most once in each direction, up to its second distinct label."""
from __future__ import annotations

from baselines.evaluation.reading.languages import CONNECTORS as LANGUAGE_CONNECTORS
from baselines.evaluation.reading.text import MARKERS, Text
from baselines.evaluation.reading.words import numbering

JOINING_MARKS = set(",/&+")
CONNECTORS = {"or", "and", "vs", "versus"} | LANGUAGE_CONNECTORS
APPOSING_MARKS = set("()[]{}:-=–—*_`'\",")  # between a label and the same label in another numbering: "3 (D)"
RESTATING = {"i.e.", "ie", "namely", "viz", "which", "is", "that"}  # "D, i.e. choice 3", "D, which is 3."
APPOSED_SPAN = 6  # tokens looked at on each side for it
HEDGES = {"either", "possibly", "perhaps", "maybe", "also", "alternatively", "even", "probably", "potentially"}
_SKIPPED_IN_LISTS = HEDGES | MARKERS
_APPOSING_WORDS = MARKERS | RESTATING


def named_labels(text: Text, k: int) -> set[str]:
    """The label at k and the labels joined to it as alternatives ("A, B, or C", "B and/or C"): every one of
    them when they are one label, else two of them (enough to tell several from one)."""
    own = text.label_at(k)
    found = {own} | _joined(text, k, 1, own)
    return found if len(found) > 1 else found | _joined(text, k, -1, own)


def apposed_labels(text: Text, k: int) -> set[str]:
    """Labels written right by word k in the other numbering ("3 (D)", "D (choice 3)", "D: 3"), with only
    brackets, colons, dashes or "option"/"choice" between: the same choice named twice, or two choices."""
    own = numbering(text.tokens[k].text)
    found = set()
    for step in (1, -1):
        j = _apposed(text, k, step)
        if j is not None and numbering(text.tokens[j].text) != own and text.label_at(j) is not None \
                and (_set_apart(text, j) or text.decorated(k) or text.ends(k)):
            found.add(text.label_at(j))
    return found


def _set_apart(text: Text, k: int) -> bool:
    """Bracketed, marked ("choice 3") or before a stop, or a letter written as a label: a label of the other
    numbering by another label names a choice too when it is set apart or the other one is bracketed or
    before a stop ("3 (D)", "D: 3", "3 (choice D)"); "D (2 cases ...)" names one."""
    return text.decorated(k) or text.ends(k) or (numbering(text.tokens[k].text) == "word" and text.strong(k))


def _apposed(text: Text, k: int, step: int) -> int | None:
    """The word next to k (step 1: after, -1: before) with only apposing marks or markers between."""
    for j in range(k + step, max(-1, min(len(text.tokens), k + step * APPOSED_SPAN)), step):
        token = text.tokens[j]
        if token.token_type == "newline" or text.is_break(j):
            return None
        if token.token_type in ("mark", "latex"):
            if token.text not in APPOSING_MARKS:
                return None
        elif token.text.casefold() not in _APPOSING_WORDS:
            return j if text.is_word(j) else None
    return None


def _joined(text: Text, k: int, step: int, own: str | None) -> set[str]:
    """The labels of the list that word k is in, read from k on (step 1: after it, -1: before it) within
    its sentence, up to the first one that is not `own`."""
    found, joined, tokens = set(), False, text.tokens
    end = text.sentence_end(k) if step > 0 else text.previous(text.breaks, k)
    for j in range(k + step, end, step):
        token = tokens[j]
        if token.token_type in ("mark", "latex"):
            joined = joined or token.text in JOINING_MARKS
            continue
        word = token.text.casefold()
        if word in CONNECTORS or _letter_joining(text, j):
            joined = True
        elif word not in _SKIPPED_IN_LISTS:
            label = text.label_at(j)
            if label is None or not joined or not _listed(text, j):
                break
            found.add(label)
            if label != own:
                break
            joined = False
    return found


def _letter_joining(text: Text, j: int) -> bool:
    """A lowercase "e" or "i" ("and" in Italian, Portuguese, Polish) between two labels written as labels: "C e D"."""
    following = text.next_word(j + 1)
    return text.tokens[j].text in ("e", "i") and following is not None and text.strong(following) and \
        text.label_at(following) is not None


def _listed(text: Text, k: int) -> bool:
    """Stands as a label, or is followed by a joining word or mark (so "a" in "a or b" counts); a number
    only set apart ("12 or 13", "B, (2)"), not before other words ("B, 2 cases agree")."""
    if text.stands(k) and (numbering(text.tokens[k].text) == "word" or _set_apart(text, k)):
        return True
    following = k + 1 if k + 1 < len(text.tokens) else None
    if following is None:
        return True
    token = text.tokens[following]
    return token.text in JOINING_MARKS or token.text.casefold() in CONNECTORS
