"""The rules of the answer extractor (`baselines.evaluation.extract`, whose docstring states them), each a function
(text, choice table) -> (label or SEVERAL, rule name) or None when it does not decide. `RULES` lists them in
order: the first that decides wins."""
from __future__ import annotations

import re

from baselines.evaluation.answer_tokens import CLOSERS, ENGLISH_LETTERS, MARKERS, Text
from baselines.evaluation.choice_texts import ChoiceTable
from baselines.evaluation.stance import HYPOTHETICAL, REJECTED

SEVERAL = object()  # a rule found two choices named as one answer
READ_LABELS = 8  # standing labels tried in the sentence after a cue, at the most
_CONNECTOR = r"(?:\s*(?:\*\*|__))?\s*(?:is\b|would\s+be\b|should\s+be\b|must\s+be\b|will\s+be\b|:|=)"
_FINAL = re.compile(r"\bfinal\s+answer\b(?:" + _CONNECTOR + r"|(?:\s*(?:\*\*|__|:))*[ \t]*(?:\n|$))",
                    re.IGNORECASE)
_ANSWER_IS = re.compile(r"(?:\banswers?|\b(?:correct|right|best|my|final|appropriate|likely|relevant)\s+"
                        r"(?:option|choice|letter|selection|holding|label))(?:\s+(?:here|then|therefore|thus))?"
                        r"(?:" + _CONNECTOR + r"|\s+seems\s+to\s+be\b|\s+appears\s+to\s+be\b)", re.IGNORECASE)
_PICK = re.compile(r"\b(?:pick|picking|choose|choosing|select|selecting|go(?:ing)?\s+with|opt\s+for|guess|"
                   r"lean(?:ing)?(?:\s+towards?)?|settle\s+on)\b",
                   re.IGNORECASE)
_IS_CORRECT = re.compile(r"\b(?:is|would\s+be|seems\s+to\s+be)\s+(?:the\s+)?(?:most\s+)?"
                         r"(?:correct|right|best|answer)\b", re.IGNORECASE)
_BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")
_BRACE = re.compile(r"[{}]")
_ENUMERATOR = re.compile(r"[0-9]+|[^\W\d_]|[ivxlcdm]+", re.IGNORECASE)
_NEWLINE = re.compile("\n")


def _alone(text: Text, k: int, table: ChoiceTable):
    """The label at k, or SEVERAL when the words by it name another choice too: joined to it as an alternative
    ("B or C"), in the other numbering ("3 (C)"), or by its text ("B. State Agency", State Agency being C);
    None when the text rejects that choice there or names it only as a hypothesis (`stance`)."""
    if text.stance(k) in (REJECTED, HYPOTHETICAL):
        text.passed_over = text.passed_over or text.stance(k)
        return None
    names = text.named_labels(k) | text.apposed_labels(k) | table.restated(text, k)
    text.taken = k
    return names.pop() if len(names) == 1 else SEVERAL

def _plain_letter(text: Text, k: int) -> bool:
    word = text.tokens[k].text
    return len(word) == 1 and word.islower() and word not in ENGLISH_LETTERS


def _read(text: Text, start: int, stop: int, table: ChoiceTable):
    """The answer in the sentence from token `start` (before `stop`): the sentence, or all tokens up to
    `stop`, is a choice's text; else the first standing label."""
    first = text.next_word(start, stop)
    if first is None:
        return None
    end = min(stop, text.sentence_end(first))
    if chosen := table.label_of(text, first, end) or table.label_of(text, start, stop):
        return chosen
    if text.label_at(first) is not None and _plain_letter(text, first):
        return _alone(text, first, table)
    standing = text.next_standing(first, end)  # stands before `end` as it would before a stop
    for _ in range(READ_LABELS):  # past the labels the sentence rejects ("unclear, but B is wrong; C")
        if standing is None:
            return None
        found = _alone(text, standing, table)
        if found is not None:
            return found
        standing = text.next_standing(standing + 1, end)
    return None


class _Reader:
    """`_read` from cues to the end of the text, latest cue first. After a read that finds nothing, reads
    from further back, up to the previous label word or sentence break, find nothing either when the
    sentence and the rest are too long for a choice's text: they are skipped in constant time."""

    def __init__(self, text: Text, table: ChoiceTable):
        self.text, self.table, self.silent = text, table, (0, -1)  # character positions (low, high]

    def read(self, position: int):
        """`_read` from character `position` (a cue's end) to the end of the text."""
        low, high = self.silent
        if low < position <= high:
            return None
        start = self.text.index_at(position)
        found = _read(self.text, start, len(self.text), self.table)
        if found is None:
            self.silent = (self._silent_after(start), position)
        return found

    def _silent_after(self, start: int) -> int:
        """After a read from token `start` found nothing: the character position after which reads up to it
        find nothing either (the end of the text when a shorter read could still be a choice's text)."""
        text, longest = self.text, self.table.longest
        first = text.next_word(start)
        if first is None or (self.table.labels and min(text.solid(first, text.sentence_end(first)),
                                                       text.solid(start, len(text))) <= longest):
            return len(text.raw)
        floor = max(text.previous(text.labelled, first), text.previous(text.breaks, first))
        return text.tokens[floor].start if floor >= 0 else -1


def _whole(text: Text, table: ChoiceTable):
    words = text.words
    if len(words) == 2 and text.tokens[words[0]].text.casefold() in MARKERS | {"answer"}:
        words = words[1:]
    if len(words) == 1 and text.tokens[words[0]].label is not None:
        if text.stance(words[0]) in (REJECTED, HYPOTHETICAL):  # "D: ✗", "D?"
            text.passed_over = text.stance(words[0])
            return None
        return text.tokens[words[0]].label, "whole"
    return None


def _choice_text(text: Text, table: ChoiceTable):
    label = table.label_of(text, 0, len(text))
    return (label, "choice_text") if label else None


def _final_answer(text: Text, table: ChoiceTable):
    reader = _Reader(text, table)
    for cue in reversed(list(_FINAL.finditer(text.raw))):
        found = reader.read(cue.end())
        if found is not None:
            return found, "final_answer"
    return None


def _boxed(text: Text, table: ChoiceTable):
    opened = list(_BOXED.finditer(text.raw))
    if not opened:
        return None
    start, depth, close = opened[-1].end(), 1, len(text.raw)
    for brace in _BRACE.finditer(text.raw, start):
        depth += 1 if brace.group() == "{" else -1
        if depth == 0:
            close = brace.start()
            break
    found = _read(text, text.index_at(start), text.index_at(close), table)
    return (found, "boxed") if found is not None else None


def _answer_cues(text: Text, table: ChoiceTable):
    """The latest cue that decides; "pick" and "is correct" cues with no label word after or before them
    cannot, and are dropped at once."""
    first_label, last_label = ((text.tokens[text.labelled[0]].start, text.tokens[text.labelled[-1]].start)
                               if text.labelled else (len(text.raw), -1))
    cues = [(m.start(), "answer_is", m) for m in _ANSWER_IS.finditer(text.raw)]
    cues += [(m.start(), "pick", m) for m in _PICK.finditer(text.raw) if m.end() <= last_label]
    cues += [(m.start(), "is_correct", m) for m in _IS_CORRECT.finditer(text.raw) if first_label < m.start()]
    reader = _Reader(text, table)
    for _, name, cue in sorted(cues, key=lambda c: c[0], reverse=True):
        if name == "answer_is":
            found = reader.read(cue.end())
        elif name == "pick":
            found = _word_after(text, text.index_at(cue.end()), table)
        else:
            found = _word_before(text, text.index_at(cue.start()), table)
        if found is not None:
            return found, name
    return None


def _word_after(text: Text, start: int, table: ChoiceTable):
    k = text.next_word(start)
    while k is not None and text.tokens[k].text.casefold() in MARKERS | {"the", "answer"}:
        k = text.next_word(k + 1)
    if k is None or text.label_at(k) is None or not (text.stands(k) or _plain_letter(text, k)):
        return None
    return _alone(text, k, table)


def _word_before(text: Text, cue: int, table: ChoiceTable):
    k = text.previous_word(cue)
    if k is None or any(text.tokens[j].text not in CLOSERS for j in range(k + 1, cue)):
        return None
    return _alone(text, k, table) if text.label_at(k) is not None else None


def _leading(text: Text, table: ChoiceTable):
    first = text.next_word(0)
    if first is not None and text.tokens[first].text.casefold() in MARKERS:
        first = text.next_word(first + 1)
    if first is None or text.label_at(first) is None or _enumeration(text):
        return None
    numeric = text.tokens[first].text.isdigit()
    if (text.strong(first) and not numeric) or text.decorated(first) or text.ends(first):
        found = _alone(text, first, table)
        return (found, "leading") if found is not None else None
    return None


def _enumeration(text: Text) -> bool:
    """Two or more lines open with enumerators of the kind opening the text ("A) ... B) ...", "1. ... 2. ...")."""
    kinds = (_enumerator_kind(text, k) for k in _line_openers(text))
    opening = next(kinds, None)
    return opening is not None and any(kind == opening for kind in kinds)


def _line_openers(text: Text):
    """The first word of each line that has one, line by line (found from the line breaks, not word by word)."""
    starts = [0, *(text.index_at(m.start()) + 1 for m in _NEWLINE.finditer(text.raw))]
    for start, end in zip(starts, [*starts[1:], len(text) + 1]):
        first = text.next_word(start, end - 1)
        if first is not None:
            yield first


def _enumerator_kind(text: Text, k: int) -> str | None:
    """The kind of enumerator word k is ("3." a number; "B)", "iv:" a letter), or None when it is none."""
    word = text.tokens[k].text
    if not (k + 1 < len(text) and text.tokens[k + 1].text in (".", ")", ":") and _ENUMERATOR.fullmatch(word)):
        return None
    return "number" if word.isdigit() else "letter"


def _ending(text: Text, table: ChoiceTable):
    last = next((k for k in range(len(text) - 1, -1, -1) if text.is_word(k)), None)
    if last is None or text.label_at(last) is None:
        return None
    if text.tokens[last].text.isdigit() and not (text.decorated(last) or _after_copula(text, last)):
        return None
    if text.strong(last) or text.decorated(last):
        found = _alone(text, last, table)
        return (found, "ending") if found is not None else None
    return None


def _after_copula(text: Text, k: int) -> bool:
    """Word k follows "is", "be", "likely", "probably" or a colon ("... the holding is 3.", "Holding: 3", "Most
    likely 3."): a number there is a label."""
    if k and text.tokens[k - 1].text == ":":
        return True
    before = text.previous_word(k)
    return before is not None and text.tokens[before].text.casefold() in ("is", "be", "likely", "probably")


def _label_name(text: Text, table: ChoiceTable):
    named = [k for k in text.labelled if _written_name(text, k) and text.stance(k) not in (REJECTED, HYPOTHETICAL)]
    found = {text.tokens[k].label for k in named}
    if not found:
        return None
    text.taken = named[-1]
    return (found.pop() if len(found) == 1 else SEVERAL), "label_name"


def _written_name(text: Text, k: int) -> bool:
    """Word k is written exactly as a label longer than one character that is not a plain number."""
    label = text.tokens[k].label
    return (text.tokens[k].text == label and len(label) > 1 and (not label.isdigit() or label.startswith("0"))
            and text.label_at(k) is not None)


RULES = (_whole, _choice_text, _final_answer, _boxed, _answer_cues, _leading, _ending, _label_name)

