"""The choice a committing form names where its value stands: a label written as one, or a choice's own text.

After an answer statement's connector ("The answer is", "Answer:"), a choosing verb ("I pick") or inside a tag, the
value is the first word, past a few words that only lead into it ("I think it is", "probably", "option", "the"):
it is the answer when it stands as a label (written exactly as one, decorated, or alone before a stop) or is a
lowercase letter read as one ("the answer is b because ..."), or when the rest of its sentence is one choice's
text. Anything else there ("The answer is unlikely to be D", "The answer is not C") names no choice: a form commits
only to what stands right where its value goes.

A label joined to others as alternatives ("B or C"), written beside another choice in the other numbering
("3 (C)"), or followed by another single choice's text, names several choices (`SEVERAL`).
"""
from __future__ import annotations

from baselines.evaluation.reading.alternatives import CONNECTORS, HEDGES, apposed_labels, named_labels
from baselines.evaluation.reading.choices import ChoiceTable
from baselines.evaluation.reading.text import ENGLISH_LETTERS, Text

SEVERAL = "<several>"  # a form that names two choices as one answer
LEAD_INS = {"probably", "likely", "most", "clearly", "definitely", "certainly", "surely", "indeed", "therefore",
            "thus", "so", "then", "option", "choice", "letter", "label", "holding", "role", "answer", "number", "no",
            "the", "simply", "just", "still", "now", "ultimately", "it's", "it’s", "that's", "that’s", "obviously",
            "plainly", "unambiguously", "undoubtedly", "unquestionably"}
LEAD_IN_PAIRS = {("i", "think"), ("i", "believe"), ("we", "think"), ("it", "is"), ("that", "is"), ("this", "is"),
                 ("i", "say"), ("would", "be")}
MAX_LEAD_INS = 6


def value_at(text: Text, k: int, table: ChoiceTable, stop: int | None = None,
             exact: bool = False) -> tuple[str, int] | None:
    """(label or SEVERAL, the token it stands at) of the value starting at token k (before `stop`), or None when
    no choice stands there. `exact`: a label longer than one letter counts only as written ("this sentence is
    analysis" names no role; "the final answer is fac" does)."""
    stop = len(text) if stop is None else stop
    first = text.next_word(k, stop)
    if first is None:
        return None
    end = min(stop, text.sentence_end(first))
    if chosen := table.label_of(text, first, end) or table.label_of(text, k, stop):
        return chosen, first
    word = _past_lead_ins(text, first, end)
    if word is not None and text.tokens[word].text.casefold() == "not":
        word = _after_not_but(text, word, end)  # "not A but B"
    if word is None or text.label_at(word) is None:
        return _text_then_label(text, first, end, table)
    written = text.tokens[word].exact or text.decorated(word) or len(text.tokens[word].text) == 1
    if not (plain_letter(text, word) or (text.stands(word) and (written or not exact))):
        return None
    if chosen := table.label_of(text, word, end):
        return chosen, word
    if _predicated(text, word):
        return None  # "Answer: B is incorrect": B is the subject of a new clause, not the value
    return alone(text, word, table), word


PREDICATES = {"is", "are", "was", "were", "seems", "looks", "appears", "would", "could", "might", "can", "should",
              "must", "does", "doesn't", "isn't", "fails", "misstates", "misreads", "overstates", "has", "cannot",
              "can't", "won't", "will"}


def _predicated(text: Text, k: int) -> bool:
    """A verb follows the label k (past closing marks), making it the subject of a clause."""
    following = text.next_word(k + 1)
    if following is None or any(text.tokens[j].token_type == "newline" or text.tokens[j].text in ".;:!?,"
                                for j in range(k + 1, following)):
        return False
    return text.tokens[following].text.casefold() in PREDICATES


def _after_not_but(text: Text, k: int, end: int) -> int | None:
    """In "not A but B" (or "not A, but B"), the word after "but"; else None."""
    label = text.next_word(k + 1, end)
    following = text.next_word(label + 1, end) if label is not None else None
    if label is None or text.tokens[label].label is None or following is None:
        return None
    return text.next_word(following + 1, end) if text.tokens[following].text.casefold() == "but" else None


def _text_then_label(text: Text, first: int, end: int, table: ChoiceTable) -> tuple[str, int] | None:
    """A choice's text followed by its own label in brackets: "reversed and remanded (D)"."""
    for j in range(first + 1, min(end, first + 4 * max(table.longest, 1))):
        if text.tokens[j].text == "(" and j + 1 < end and text.label_at(j + 1) is not None:
            label = text.label_at(j + 1)
            return (label, j + 1) if table.label_of(text, first, j) == label else None
    return None


def _past_lead_ins(text: Text, k: int, stop: int) -> int | None:
    """The first word from k on that does not only lead into a value (at most MAX_LEAD_INS are passed)."""
    for _ in range(MAX_LEAD_INS):
        word = text.tokens[k].text.casefold()
        following = text.next_word(k + 1, stop)
        if text.label_at(k) is not None and text.stands(k) and word not in LEAD_INS:
            return k
        pair = following is not None and (word, text.tokens[following].text.casefold()) in LEAD_IN_PAIRS
        if word not in LEAD_INS and not pair:
            return k
        k = text.next_word(following + 1, stop) if pair else following
        if k is None:
            return None
    return k


def plain_letter(text: Text, k: int) -> bool:
    """A lowercase letter other than "a" and "i", read as a label where a value goes ("the answer is b")."""
    word = text.tokens[k].text
    return len(word) == 1 and word.islower() and word not in ENGLISH_LETTERS


def alone(text: Text, k: int, table: ChoiceTable) -> str:
    """The label at k, or SEVERAL when the words by it name another choice too: joined to it as an alternative
    ("B or C"), in the other numbering ("3 (C)"), or by its text ("B. State Agency", State Agency being C)."""
    names = named_labels(text, k) | apposed_labels(text, k) | table.restated(text, k)
    return names.pop() if len(names) == 1 and not _dangling(text, k) else SEVERAL


def _dangling(text: Text, k: int) -> bool:
    """The text ends in an alternative left unfinished after label k ("A or", "E, or possibly"): cut off."""
    joined = False
    if text.raw[text.tokens[k].end:].strip(" \t*_)\n") == ",":  # "Final answer: A," cut off after the comma
        return True
    for j in range(k + 1, len(text)):
        word = text.tokens[j].text.casefold()
        if text.is_word(j) and word not in CONNECTORS | HEDGES:
            return False
        if joined and word in ".!?" and text.raw[text.tokens[j].start:text.tokens[j].start + 3] != "...":
            return False  # "A or." ends a sentence: not cut off
        joined = joined or word in CONNECTORS
    return joined
