"""Rule-based sentence segmentation of judgments: spaCy's blank English tokenizer plus legal rules."""
from __future__ import annotations

import re

from segmentation.base import SpacySegmenter

# Words that end with a full stop without ending a sentence (compared lower-cased, without the stop).
ABBREVIATIONS = {
    "no", "nos", "v", "vs", "s", "ss", "u/s", "r/w", "art", "arts", "sec", "secs", "cl", "cls", "mr", "mrs",
    "ms", "dr", "sh", "smt", "shri", "sri", "hon'ble", "j", "jj", "cj", "cji", "ltd", "pvt", "co", "corpn",
    "ors", "anr", "govt", "dist", "distt", "crl", "cri", "civ", "wp", "slp", "air", "scr", "scc", "i.e", "e.g",
    "viz", "p", "pp", "para", "paras", "vol", "ex", "exh", "exts", "rs", "ibid", "id", "cr", "crpc", "ipc",
    "r", "rr", "o", "ord", "misc", "cf", "sl", "st", "m/s", "a.p", "u.p", "m.p", "h.p", "dy", "addl", "asstt",
    "ld", "resp", "pet", "appl", "nd", "rd", "th", "illus", "approx", "w.e.f", "inc", "bros", "sub", "clause",
}
CLOSERS = {'"', "'", ")", "]", "”", "’"}
PARAGRAPH = re.compile(r"^\d{1,3}$")
INITIALS = re.compile(r"^([A-Za-z]\.)+[A-Za-z]?$")


def _is_abbreviation(word: str) -> bool:
    """A word (its full stop removed) that usually does not end a sentence."""
    bare = word.rstrip(".").lower()
    return bare in ABBREVIATIONS or len(bare) == 1 and bare.isalpha() or bool(INITIALS.match(word))


def _starts_sentence(token) -> bool:
    """A token that can begin a sentence: capitalised, a number, an opening bracket or quote."""
    first = token.text[0]
    return first.isupper() or first.isdigit() or first in "([\"'“‘"


def _ends_after(doc, i: int) -> bool:
    """True when a sentence may end after token i: a terminal mark (not an abbreviation's), maybe closed."""
    text = doc[i].text
    if text in CLOSERS:
        return i > 0 and doc[i - 1].whitespace_ == "" and _ends_after(doc, i - 1)
    if text in ("?", "!"):
        return True
    if text == ".":
        attached = i > 0 and not doc[i - 1].is_space and doc[i - 1].whitespace_ == ""
        return not (attached and _is_abbreviation(doc[i - 1].text))
    return len(text) > 1 and text.endswith(".") and not _is_abbreviation(text)


def _paragraph_number(doc, i: int) -> bool:
    """Token i is a paragraph number such as '12.' or '3)' (a number directly followed by '.' or ')')."""
    nxt = doc[i + 1] if i + 1 < len(doc) else None
    return (PARAGRAPH.match(doc[i].text) is not None and nxt is not None and doc[i].whitespace_ == ""
            and nxt.text in (".", ")"))


def sentence_starts(doc) -> list[bool]:
    """Whether each token begins a sentence, by the legal rules."""
    starts, ends, line_start, no_break = [], False, True, -1
    for i, token in enumerate(doc):
        if token.is_space:
            starts.append(i == 0)
            line_start = line_start or "\n" in token.text
            continue
        spaced = i == 0 or doc[i - 1].is_space or doc[i - 1].whitespace_ != ""
        number = line_start and _paragraph_number(doc, i)  # '12.' opens a paragraph
        starts.append(i == 0 or number or (ends and spaced and _starts_sentence(token)))
        if number:
            no_break = i + 1
        ends = i != no_break and _ends_after(doc, i)
        line_start = False
    return starts


def mark_sentences(doc):
    """The spaCy component: sentence starts set in one array write."""
    import numpy as np
    from spacy.attrs import SENT_START

    if len(doc):
        values = np.array([1 if s else -1 for s in sentence_starts(doc)], dtype=np.int64).astype(np.uint64)
        doc.from_array([SENT_START], values.reshape(-1, 1))
    return doc


class RuleSegmenter(SpacySegmenter):
    """spacy.blank('en') with the legal sentence rules; returns trimmed character spans."""

    name = "rule"

    def __init__(self):
        import spacy
        from spacy.language import Language

        if not Language.has_factory("legal_sentence_rules"):
            Language.component("legal_sentence_rules", func=mark_sentences)
        nlp = spacy.blank("en")
        nlp.add_pipe("legal_sentence_rules")
        super().__init__(nlp)
