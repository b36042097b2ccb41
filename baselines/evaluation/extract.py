"""Turning an LLM's raw generation into an answer label, or into no answer; never into a guess.

Extractor version 4 (`EXTRACTOR_VERSION`, recorded in every results file; 4: every spelling of a label
read unless the prompt's offered spellings are known (SCALR: LegalBench's digits 0-4 and our letters A-E
alike), a continuation of the prompt cut off, two choices named side by side are several; 3: digits read
only where the prompt offered digits). The rules, in order; the first that decides wins, and
`extract_with_rule` names it (the samples' `rule`):

1. `whole`: the whole generation is one label word, decorated or not, alone or after "Option",
   "Choice", "Letter", "Label" or "Answer": `C`, ` C`, `(C)`, `C.`, `**C**`, `\\boxed{\\text{C}}`,
   `Option C`, `Answer: c`, and here also `a` and `I`.
2. `choice_text`: the whole generation is the text of exactly one choice ("State Agency"), ignoring
   case, spacing, markup, LaTeX commands and a final period.
3. `final_answer`: the sentence after the last "final answer" cue ("The final answer is",
   "final answer:", "**Final Answer**" ending its line), read as below; if it names no label, the
   cue before it, and so on.
4. `boxed`: the content of the last `\\boxed{}` (or `\\fbox{}`), read as below.
5. Other cues, the latest first, until one decides:
   `answer_is`: "answer is", "answer:", "answer would/should/must/will be", "answer seems/appears to be",
   "the correct/right/best/my option|choice|letter is" (markdown allowed: "**Answer:** (C)"); the
   sentence after it, read as below.
   `pick`: "pick", "choose", "select", "go with", "opt for"; the next word (after "the", "option",
   "answer") must stand as a label ("I'd pick D").
   `is_correct`: the label word right before "is correct", "is the best", "is the answer", "would be the right"
   ("**D** is the correct answer"; weak words count here: "A is correct").
6. `leading`: the first word stands as a label and is a strong non-numeric word, decorated, or
   followed by a stop: `C. First Amendment`, `(C) ...`, `C) because`, `B\\n\\nExplanation: ...`,
   `D The court...`. Skipped when two or more lines open with enumerators of the kind of the first
   one (`A) ... B) ...`, `I. ... II. ...`, `1. ... 2. ...`): that is a list, not an answer.
7. `ending`: the last word is a strong or decorated label; a number only when decorated or after "is",
   "be" or a colon ("... Therefore, C.", "... the holding is 3.").
8. `label_name`: labels longer than one character that are not plain numbers (rhetorical roles,
   zero-padded numbers): exactly one distinct such label written exactly as itself in the text.

Reading a sentence after a cue (up to ". ", "!", "?" or a line break): if the sentence, or all
the tokens after the cue, are a choice's text, that choice; else the first word in it that stands as
a label ("The final answer is a difficult one, but probably C" -> C; "Answer: I think it is C" -> C).

Continuations. Text from the first line that opens a new example of the prompt (`openers`: "Question:",
a benchmark's instruction; see baselines.evaluation.continuation) is not read: the answer is the one
given before it ("3\n\nQuestion: ...\nAnswer: 1" is 3), and a rule that decides there is reported as
"<rule>+cut" ("none+cut" when nothing before it decides).

Words. A word matches a label exactly, case-insensitively, through the task's aliases (SCALR:
"A".."E" stand for "0".."4", as the digits do: LegalBench numbers its choices 0-4), or, when every
label is a number, by numeric value ("7" or "07" for "007"). `offered` narrows the spellings to those
a prompt offered (a harness document's labels: "3" is no answer where the prompt offered A-E alone).
A match is *strong* when written exactly as the label, alias or number, except "I" (the pronoun)
and "A" opening a sentence or following a colon (the article). Other matches ("a", "I", "b", "fac")
are *weak*. A word *stands as a label* when strong, decorated (in brackets, markdown or LaTeX, or
after "option"/"choice"/"letter"/"label"), or followed by nothing but closing marks before a stop
(`.` `)` `:` `;` `]` `!` `?`), a line break or the end; the first word of a sentence read after a
cue or in `\\boxed{}`, and the word after `pick`, also stand when they are a lowercase letter other
than "a" and "i" ("the answer is b because"). A word is never a label when it follows a naming word ("Title I",
"Plan B", "Exhibit A", "subsection (b)"), a negation ("not A", "rather than B", "neither A nor B"),
or is glued to the word before it ("1983(a)", "II.B"); "e.g.", "U.S.", "I'd", "A-1", "3.5" are
single words that match no label.

Several labels. A label joined to other labels as alternatives or a list (by ",", "/", "&", "+",
"or", "and", "vs", with "either", "possibly", "maybe" ... in between: "A, B, or C", "Option A or
B", "B (or possibly C)"; a weak word counts in a list when a joining word follows it: "a or b") is
no answer: the rule that found it decides None, reported as "<rule>:several". So is a label with
another choice named right by it: the same choice in the other numbering is one answer ("3 (D)",
"D, i.e. choice 3"), a different one is several ("3 (C)", "D: 2"), and so is a label followed on its line
by the text (or the start of the text, 12 characters at least) of another single choice
('3: "holding that ..."' with choice 2's holding). A rule that finds
nothing passes to the next; when none decides, the answer and the rule are None: the item counts as
wrong and lowers coverage.

Size. A generation of more than MAX_GENERATION_CHARS (2,000,000) characters is refused with an error
naming the item, never cut; below that, it is read in time about linear in its length.
"""
from __future__ import annotations

import functools
import re
from typing import Mapping, Sequence

from baselines.evaluation.answer_tokens import CLOSERS, ENGLISH_LETTERS, MARKERS, Text
from baselines.evaluation.answer_words import Matcher
from baselines.evaluation.choice_texts import ChoiceTable, choice_table
from baselines.evaluation.continuation import GENERIC_OPENERS, continuation_start
from baselines.core.errors import BaselinesError

EXTRACTOR_VERSION = "4"
CUT = "+cut"  # after a rule's name: read before a continuation of the prompt
MAX_GENERATION_CHARS = 2_000_000

_SEVERAL = object()
_CONNECTOR = r"(?:\s*(?:\*\*|__))?\s*(?:is\b|would\s+be\b|should\s+be\b|must\s+be\b|will\s+be\b|:|=)"
_FINAL = re.compile(r"\bfinal\s+answer\b(?:" + _CONNECTOR + r"|(?:\s*(?:\*\*|__|:))*[ \t]*(?:\n|$))",
                    re.IGNORECASE)
_ANSWER_IS = re.compile(r"(?:\banswers?|\b(?:correct|right|best|my|final|appropriate|likely|relevant)\s+"
                        r"(?:option|choice|letter|selection|holding|label))(?:\s+(?:here|then|therefore|thus))?"
                        r"(?:" + _CONNECTOR + r"|\s+seems\s+to\s+be\b|\s+appears\s+to\s+be\b)", re.IGNORECASE)
_PICK = re.compile(r"\b(?:pick|picking|choose|choosing|select|selecting|go(?:ing)?\s+with|opt\s+for)\b",
                   re.IGNORECASE)
_IS_CORRECT = re.compile(r"\b(?:is|would\s+be|seems\s+to\s+be)\s+(?:the\s+)?(?:most\s+)?"
                         r"(?:correct|right|best|answer)\b", re.IGNORECASE)
_BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")
_BRACE = re.compile(r"[{}]")
_ENUMERATOR = re.compile(r"[0-9]+|[^\W\d_]|[ivxlcdm]+", re.IGNORECASE)
_NEWLINE = re.compile("\n")


def extract_answer(raw: str, labels: Sequence[str], aliases: Mapping[str, str] | None = None,
                   choices: Sequence[str] = (), **reading) -> str | None:
    """The answer label stated in `raw`, or None when none can be found (see module docstring)."""
    return extract_with_rule(raw, labels, aliases, choices, **reading)[0]


def extract_with_rule(raw: str, labels: Sequence[str], aliases: Mapping[str, str] | None = None,
                      choices: Sequence[str] = (), item_id: str | None = None, offered: Sequence[str] | None = None,
                      openers: Sequence[str] = GENERIC_OPENERS) -> tuple[str | None, str | None]:
    """(label or None, name of the rule that decided or None): the answer with its audit trail.

    `choices` are the choice texts aligned with `labels` (may be empty); `offered`, the spellings the prompt
    offered (None: every label and alias); `openers`, the line openers of the prompt that start a continuation
    (baselines.evaluation.continuation; () reads the whole generation). A generation longer than MAX_GENERATION_CHARS is refused, naming
    `item_id`."""
    if not isinstance(raw, str) or not raw.strip():
        return None, None
    if len(raw) > MAX_GENERATION_CHARS:
        where = f"id {item_id}: " if item_id is not None else ""
        raise BaselinesError(f"{where}the generation has {len(raw):,} characters; the extractor reads "
                             f"generations of at most {MAX_GENERATION_CHARS:,}")
    cut = continuation_start(raw, openers)
    matcher = _matcher(tuple(labels), tuple(sorted((aliases or {}).items())), None if offered is None else tuple(offered))
    text = Text(raw if cut is None else raw[:cut], matcher)
    table = choice_table(tuple(labels), tuple(choices))
    suffix = "" if cut is None else CUT
    for rule in _RULES:
        decided = rule(text, table)
        if decided is not None:
            found, name = decided
            return (None, f"{name}:several{suffix}") if found is _SEVERAL else (found, name + suffix)
    return None, (None if cut is None else f"none{CUT}")


@functools.lru_cache(maxsize=256)
def _matcher(labels: tuple[str, ...], aliases: tuple[tuple[str, str], ...],
             offered: tuple[str, ...] | None) -> Matcher:
    """The matcher of one label set: built once per item kind, not once per generation."""
    return Matcher(labels, dict(aliases), offered)


def _alone(text: Text, k: int, table: ChoiceTable):
    """The label at k, or _SEVERAL when the words by it name another choice too: joined to it as an alternative
    ("B or C"), in the other numbering ("3 (C)"), or by its text ("B. State Agency", State Agency being C)."""
    names = text.named_labels(k) | text.apposed_labels(k) | table.restated(text, k)
    return names.pop() if len(names) == 1 else _SEVERAL


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
    return _alone(text, standing, table) if standing is not None else None


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
        return _alone(text, first, table), "leading"
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
        return _alone(text, last, table), "ending"
    return None


def _after_copula(text: Text, k: int) -> bool:
    """Word k follows "is", "be" or a colon ("... the holding is 3.", "Holding: 3"): a number there is a label."""
    if k and text.tokens[k - 1].text == ":":
        return True
    before = text.previous_word(k)
    return before is not None and text.tokens[before].text.casefold() in ("is", "be")


def _label_name(text: Text, table: ChoiceTable):
    found = {text.tokens[k].label for k in text.labelled if _written_name(text, k)}
    if not found:
        return None
    return (found.pop() if len(found) == 1 else _SEVERAL), "label_name"


def _written_name(text: Text, k: int) -> bool:
    """Word k is written exactly as a label longer than one character that is not a plain number."""
    label = text.tokens[k].label
    return (text.tokens[k].text == label and len(label) > 1 and (not label.isdigit() or label.startswith("0"))
            and text.label_at(k) is not None)


_RULES = (_whole, _choice_text, _final_answer, _boxed, _answer_cues, _leading, _ending, _label_name)
