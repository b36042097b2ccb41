"""What follows a label that opens a text or a sentence makes it an answer (`opens_answer`, for the label forms of
label_lines): a stop, a line break, the end, a reason (", since ...", " — because ..."), another label set against
it ("FAC — RLC would be wrong"), its own choice text ('4: "holding that ..."') or a clause of its own after a dash
or colon ("F — the court affirmed ..."). A label followed by anything else ("E: unpersuasive") is a heading, not an
answer."""
from __future__ import annotations

from baselines.evaluation.reading.choices import ChoiceTable
from baselines.evaluation.reading.text import MARKERS, Text

REASONS = {"since", "because", "as", "given", "considering", "for", "in", "based", "which", "per", "owing",
           "due", "following", "reflecting", "though", "although", "but"}


def opens_answer(text: Text, k: int, table: ChoiceTable) -> bool:
    """What follows an opening label makes it an answer: a stop, a line break, the end, a reason, another label set
    against it, or its own choice text."""
    j = k + 1
    while j < len(text) and text.tokens[j].text in ")]*_`'\"":
        j += 1
    if j >= len(text) or text.tokens[j].token_type == "newline":
        return True
    mark = text.tokens[j].text
    following = text.next_word(j + 1)
    word = text.tokens[following].text.casefold() if following is not None else ""
    if text.is_word(j) and ")" in {text.tokens[i].text for i in range(k + 1, j)}:  # "C) because", "C) The Court"
        opening = text.tokens[j].text
        return opening.casefold() in REASONS or bool(table.restated(text, k)) or (
            opening[:1].isupper() and opening.casefold() not in _PREDICATE_WORDS)
    if mark == "(":  # "D (2 precedents support it)." an aside, then the end of the sentence
        return _aside_ends_sentence(text, j)
    if mark == "?":
        return True  # "C? No.": read, then vetoed as a question
    if mark in (".", ")", "!") or (mark == "," and word in REASONS | {"not"}):
        return mark != "." or _new_sentence(text, j)
    if mark in (":", "—", "–", "-", ","):
        own_text = table.label_of(text, j + 1, text.sentence_end(j)) == text.label_at(k)  # "**B — Affirmed.**"
        if mark == "," and word == "i" and following is not None:  # "D, I think, though ..."
            return text.next_word(following + 1) is not None and \
                text.tokens[text.next_word(following + 1)].text.casefold() in ("think", "believe", "guess", "reckon")
        if following is not None and word in MARKERS | {"holding", "holdings", "role"} and mark != ":":
            following = text.next_word(following + 1)  # "4 — holding 3 is a common distractor"
        set_against = mark in ("—", "–", "-") and following is not None and text.label_at(following) is not None \
            and text.stands(following)  # "FAC — RLC would be wrong here"
        quoted = mark != "," and _quoted_alone(text, j + 1)  # '4: "holding that, if ..."'
        clause = mark != "," and _clause_after(text, following)
        return bool(table.restated(text, k)) or own_text or quoted or clause or following is None \
            or word in REASONS or set_against
    return text.decorated(k) and following is not None and text.tokens[k + 1].text != "?" and \
        text.tokens[j].text[:1].isupper() and word not in _PREDICATE_WORDS


def _aside_ends_sentence(text: Text, j: int) -> bool:
    """The bracket opened at token j closes on its line, and a stop, a line break or the end follows it."""
    for close in range(j + 1, min(len(text), j + 40)):
        token = text.tokens[close]
        if token.token_type == "newline":
            return False
        if token.text == ")":
            after = close + 1
            return after >= len(text) or text.tokens[after].token_type == "newline" or text.tokens[after].text in ".!;"
    return False


def _quoted_alone(text: Text, j: int) -> bool:
    """A quotation opens at token j and the sentence ends with it ('4: "holding that ..."'), or it runs to the end
    of the text (cut off inside the quotation)."""
    if j >= len(text) or text.tokens[j].text not in "\"“":
        return False
    tail = text.raw[text.tokens[j].end:]
    close = min((tail.find(mark) for mark in "\"”" if mark in tail), default=-1)
    if close < 0:
        return "\n\n" not in tail
    rest = tail[close + 1:].lstrip(" \t")
    return not rest or rest[0] in ".!;\n" or rest.startswith(("(", "—", "–"))


def _clause_after(text: Text, following: int | None) -> bool:
    """After a dash or colon, a clause of its own: it opens with a determiner or pronoun ("F — the court affirmed
    ...", "RPC — it is the final order") and its first words do not reject ("D — this is wrong")."""
    if following is None or text.tokens[following].text.casefold() not in CLAUSE_OPENERS:
        return False
    words = [text.tokens[j].text.casefold() for j in range(following, min(len(text), following + 10)) if text.is_word(j)]
    return not any(word in REJECTING for word in words[:7])


CLAUSE_OPENERS = {"the", "this", "it", "its", "these", "that", "a", "an", "here", "both", "we", "i", "they", "there",
                  "per", "in", "under", "as"}
REJECTING = {"not", "no", "never", "wrong", "incorrect", "unlikely", "fails", "fail", "misstates", "misreads",
             "overstates", "understates", "rejected", "eliminated", "excluded", "inapplicable", "irrelevant",
             "isn't", "doesn't", "can't", "cannot", "won't", "wouldn't", "inaccurate", "mistaken", "flawed",
             "distractor", "trap", "tempting", "false", "implausible", "unsupported", "would", "could", "might"}
_PREDICATE_WORDS = {"is", "are", "was", "seems", "looks", "appears", "could", "might", "may", "would", "can",
                    "should", "must", "will", "fails", "does", "doesn't", "isn't"}


def _new_sentence(text: Text, j: int) -> bool:
    """The stop at token j ends a sentence: a line break, the end, or white space follows it."""
    return j + 1 >= len(text) or text.tokens[j + 1].gap or text.tokens[j + 1].token_type == "newline"
