"""Reading an LLM's raw generation: the answer it commits to, or no answer; never a guess.

Reader version 7 (`READER_VERSION`, recorded in every results file). A choice is the answer only where the text
commits to it in one of a closed set of forms (`catalogue.FORMS`: an answer statement, in English or in a language
of `languages.LANGUAGES`, a tag, a structured answer key or `\\boxed{}`, the writer's own pick, a favourable
verdict with the writer as judge, a text or first or last sentence that is nothing but a label), and no veto takes
that form back (`catalogue.VETOES`: questioned, conditional, attributed to someone else, doubted, qualified or
ranked below another, rejected by a mark beside it, retracted after it). Everything else, in any wording and any
language, is no answer: a wording the reader does not know costs a missed answer, which coverage shows, never a
wrong one. The text is folded first (`languages.fold`: NFKC, enclosed letters, zero-width joiners, letters of
other scripts where one reading is left); a bare number is read only in a known numbering (`numbers`).

What is read (`sections`): the visible response after the last reasoning section (`<think>...</think>` and the
like; the section itself only when nothing follows it), with struck-out text, chat-template wrappers, echoed
formats and stated confidence blank, up to the first line where the
text goes on to write a new example of the prompt (a continuation: rule suffix "+cut").

Deciding (`decide`): all commitments that stand must name one choice. Commitments to differing choices are no
answer ("<form>:several"), unless the text says which is final: a declared final answer (`final_answer`, a tag,
`\\boxed{}`) that names one choice, or a correction marker ("Wait, no", "Actually,", "On reflection") after an
answer, after which only the text that follows is read ("<form>+revised"; "revised" when it commits to nothing).
A choice the text goes on to reject is no answer ("<form>:rejected"), nor one beside which it offers another as
possible ("<form>:several"). A generation cut off by its token limit (`truncated`) keeps only an answer stated in
one of the forms that are statements; otherwise the rule is "truncated". A text whose only commitments are
vetoed records the first of them and its veto ("answer_is:attributed").

Words (`text`, `words`, `values`): a word matches a label exactly or ignoring case, through the task's aliases
(SCALR: "A".."E" stand for "0".."4"), or by numeric value where every label is a number; `offered` narrows the
spellings to those the prompt offered. "I" (the pronoun) and "A" opening a sentence are not labels unless
decorated or alone before a stop; a word after a naming word ("Title I", "Plan B") or a negation ("not A") is none.
A label joined to others as alternatives ("B or C") or written beside another choice's numbering ("3 (C)") names
several choices: no answer.

Size: a generation of more than MAX_GENERATION_CHARS (2,000,000) characters is refused with an error naming the
item, never cut; below that, it is read in time about linear in its length.
"""
from __future__ import annotations

import functools
import re
from typing import Mapping, NamedTuple, Sequence

from baselines.core.errors import BaselinesError
from baselines.evaluation.reading.catalogue import STATEMENTS, STRICT
from baselines.evaluation.reading.choices import choice_table
from baselines.evaluation.reading.decide import REVISION, decided_reading
from baselines.evaluation.reading.languages import fold
from baselines.evaluation.reading.numbers import NUMBERING_UNKNOWN, numbered
from baselines.evaluation.reading.sections import GENERIC_OPENERS, blank_struck, continuation_start, visible_span
from baselines.evaluation.reading.words import Matcher

READER_VERSION = "7"
DIGIT = re.compile(r"[0-9]")  # two numberings read a text alike unless it holds a digit
CUT = "+cut"  # after a rule's name: read before a continuation of the prompt
TRUNCATED = "truncated"  # a generation cut off by its token limit before any answer statement
UNFINISHED = "unfinished_reasoning"  # a reasoning section opened and never closed: cut off before answering
MAX_GENERATION_CHARS = 2_000_000


class Reading(NamedTuple):
    """The answer label (None: no answer) and the rule that decided it (None: no form found)."""

    label: str | None
    rule: str | None


def read_answer(raw: str, labels: Sequence[str], aliases: Mapping[str, str] | None = None,
                choices: Sequence[str] = (), item_id: str | None = None, offered: Sequence[str] | None = None,
                openers: Sequence[str] = GENERIC_OPENERS, truncated: bool = False,
                numbering: str | None = None) -> Reading:
    """The answer `raw` commits to, with its audit trail (see the module docstring).

    `choices` are the choice texts aligned with `labels` (may be empty); `offered`, the spellings the prompt
    offered (None: every label and alias); `openers`, the line openers of the prompt that start a continuation
    (() reads the whole generation); `truncated`, the generation was cut off by a token limit. A generation longer
    than MAX_GENERATION_CHARS is refused, naming `item_id`; `numbering`, how the prompt numbered the choices where
    they may be named by digit or letter (`numbers.NUMBERINGS`; None: unknown, and a bare number is not read)."""
    if not isinstance(raw, str) or not raw.strip():
        return Reading(None, None)
    if len(raw) > MAX_GENERATION_CHARS:
        where = f"id {item_id}: " if item_id is not None else ""
        raise BaselinesError(f"{where}the generation has {len(raw):,} characters; the reader reads generations of "
                             f"at most {MAX_GENERATION_CHARS:,}")
    raw = fold(raw)
    start, end, unfinished = visible_span(raw)
    visible = blank_struck(raw)[start:end]
    cut = continuation_start(visible, openers)
    read = visible if cut is None else visible[:cut]
    table = choice_table(tuple(labels), tuple(choices))
    numberings = numbered(labels, aliases or {}, offered, numbering)
    readings = [decided_reading(read, _matcher(tuple(labels), *spelled), table)  # one per possible numbering
                for spelled in (numberings if DIGIT.search(read) else numberings[:1])]
    found, rule = readings[0] if len({label for label, _ in readings}) == 1 else (None, NUMBERING_UNKNOWN)
    if (truncated or unfinished) and found is not None and base_rule(rule) not in STATEMENTS:
        found, rule = None, UNFINISHED if unfinished else TRUNCATED
    if cut is not None:
        rule = f"none{CUT}" if rule is None else rule + CUT
    return Reading(found, rule)


def extract_answer(raw: str, labels: Sequence[str], aliases: Mapping[str, str] | None = None,
                   choices: Sequence[str] = (), **reading) -> str | None:
    """The answer label `raw` commits to, or None (`read_answer` without its rule)."""
    return read_answer(raw, labels, aliases, choices, **reading).label


def extract_with_rule(raw: str, labels: Sequence[str], aliases: Mapping[str, str] | None = None,
                      choices: Sequence[str] = (), **reading) -> tuple[str | None, str | None]:
    """(label or None, rule or None): `read_answer` as a plain pair."""
    return tuple(read_answer(raw, labels, aliases, choices, **reading))


@functools.lru_cache(maxsize=256)
def _matcher(labels: tuple[str, ...], aliases: tuple[tuple[str, str], ...],
             offered: tuple[str, ...] | None) -> Matcher:
    """The matcher of one label set: built once per item kind, not once per generation."""
    return Matcher(labels, dict(aliases), offered)


def strict_rule(rule: str | None) -> bool:
    """Whether an answer read by `rule` stands under the strict reading: an explicit answer statement or a bare
    label, not taken from after a correction."""
    return rule is not None and REVISION not in rule and base_rule(rule) in STRICT


def base_rule(rule: str) -> str:
    """The form's own name, without what the reading added ("answer_is+cut", "answer_is:several" -> "answer_is")."""
    return rule.split(":")[0].split("+")[0]


EXTRACTOR_VERSION = READER_VERSION  # the name results files and comparisons use
