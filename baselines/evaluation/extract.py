"""Turning an LLM's raw generation into an answer label, or into no answer; never into a guess.

Extractor version 5 (`EXTRACTOR_VERSION`, recorded in every results file; 5: the stance of each mention
(`stance`: a rejected or hypothetical choice is never the answer), the last correction replaces what came
before it (`revisions`), truncated generations count only an answer statement, continuation openers in any
case and numbering; 4: every spelling of a label
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

Stance. No rule takes a mention the text rejects ("D is incorrect", "I won't pick D") or names only as a
hypothesis ("Answer: B?", "if D were right", "**Option B**" heading an analysis of each choice); see
baselines.evaluation.stance. A decision is withdrawn when the text goes on to reject that choice
("<rule>:rejected") or offers another choice beside it ("<rule>:several"); a text whose only candidates are
rejected or hypothetical records that as its rule ("rejected", "hypothetical").

Corrections. Only the text after the last correction ("Correction:", "Wait, no", "Actually,", "on
reflection", ...; baselines.evaluation.revisions) is read, its rule reported as "<rule>+revised"; where it
states no answer and the text before it did, there is none ("revised").

Truncation. A generation cut off by its token limit (`truncated`) keeps its answer only when an answer
statement decided it (ANSWER_STATEMENTS); otherwise the rule is "truncated" and there is no answer.
STRICT_RULES name the answers that stand under the strict reading (baselines.evaluation.strict_reading).

Size. A generation of more than MAX_GENERATION_CHARS (2,000,000) characters is refused with an error
naming the item, never cut; below that, it is read in time about linear in its length.
"""
from __future__ import annotations

import functools

from typing import Mapping, Sequence

from baselines.evaluation.answer_tokens import Text
from baselines.evaluation.answer_words import Matcher
from baselines.evaluation.choice_texts import ChoiceTable, choice_table
from baselines.evaluation.continuation import GENERIC_OPENERS, continuation_start, plain_lines
from baselines.evaluation.revisions import last_revision
from baselines.evaluation.rules import RULES, SEVERAL
from baselines.evaluation.stance import AFFIRMED, HEDGED, REJECTED
from baselines.core.errors import BaselinesError

EXTRACTOR_VERSION = "5"
CUT = "+cut"  # after a rule's name: read before a continuation of the prompt
REVISION = "+revised"  # after a rule's name: read after the generation's last correction
REVISED = "revised"  # an answer taken back by a correction that states none
TRUNCATED = "truncated"  # a generation cut off by its token limit before any answer statement
ANSWER_STATEMENTS = ("whole", "choice_text", "final_answer", "boxed", "answer_is", "leading")  # count in a cut-off generation
STRICT_RULES = ("whole", "final_answer", "boxed", "answer_is")  # an explicit answer statement, or a bare label
MAX_GENERATION_CHARS = 2_000_000


def extract_answer(raw: str, labels: Sequence[str], aliases: Mapping[str, str] | None = None,
                   choices: Sequence[str] = (), **reading) -> str | None:
    """The answer label stated in `raw`, or None when none can be found (see module docstring)."""
    return extract_with_rule(raw, labels, aliases, choices, **reading)[0]


def extract_with_rule(raw: str, labels: Sequence[str], aliases: Mapping[str, str] | None = None,
                      choices: Sequence[str] = (), item_id: str | None = None, offered: Sequence[str] | None = None,
                      openers: Sequence[str] = GENERIC_OPENERS, truncated: bool = False) -> tuple[str | None, str | None]:
    """(label or None, name of the rule that decided or None): the answer with its audit trail.

    `choices` are the choice texts aligned with `labels` (may be empty); `offered`, the spellings the prompt
    offered (None: every label and alias); `openers`, the line openers of the prompt that start a continuation
    (baselines.evaluation.continuation; () reads the whole generation); `truncated`, the generation was cut off by
    a token limit (only an answer statement counts then). A generation longer than MAX_GENERATION_CHARS is
    refused, naming `item_id`."""
    if not isinstance(raw, str) or not raw.strip():
        return None, None
    if len(raw) > MAX_GENERATION_CHARS:
        where = f"id {item_id}: " if item_id is not None else ""
        raise BaselinesError(f"{where}the generation has {len(raw):,} characters; the extractor reads "
                             f"generations of at most {MAX_GENERATION_CHARS:,}")
    raw = plain_lines(raw)
    cut = continuation_start(raw, openers)
    matcher = _matcher(tuple(labels), tuple(sorted((aliases or {}).items())), None if offered is None else tuple(offered))
    table = choice_table(tuple(labels), tuple(choices))
    read = raw if cut is None else raw[:cut]
    found, name = _revised_reading(read, matcher, table)
    if truncated and found is not None and base_rule(name) not in ANSWER_STATEMENTS:
        found, name = None, TRUNCATED
    suffix = "" if cut is None else CUT
    if name is None:
        return None, (None if cut is None else f"none{CUT}")
    return found, name + suffix


def _revised_reading(raw: str, matcher: Matcher, table: ChoiceTable) -> tuple[str | None, str | None]:
    """The reading of the text after its last correction (`revisions`); where that states no answer and the
    text before it did, the answer was taken back: none (`REVISED`)."""
    start = last_revision(raw)
    if start is None:
        return _reading(Text(raw, matcher), table)
    found, name = _reading(Text(raw[start:], matcher), table)
    if name is not None:
        return found, name + REVISION
    _, before = _reading(Text(raw[:start], matcher), table)
    return (None, REVISED) if before is not None else (None, None)


def _reading(text: Text, table: ChoiceTable) -> tuple[str | None, str | None]:
    """The first rule that decides, with what the text says after the mention it took (`_after_decision`)."""
    for rule in RULES:
        text.taken = None
        decided = rule(text, table)
        if decided is not None:
            found, name = decided
            if found is SEVERAL:
                return None, f"{name}:several"
            return _after_decision(text, found, name)
    return None, text.passed_over  # "rejected" or "hypothetical": a rule found only such a mention


def _after_decision(text: Text, found: str, name: str) -> tuple[str | None, str | None]:
    """A decision stands unless the text goes on to reject that choice (`:rejected`), or offers another choice
    beside it, or the decision was only a possibility while another choice is also offered (`:several`)."""
    taken = text.taken
    if taken is None:
        return found, name
    stances = text.stance
    own_hedged = stances(taken) == HEDGED
    others = text.labelled if own_hedged else stances.judged(taken + 1, len(text))
    for k in others:
        label = text.label_at(k)
        if label is None or k == taken or not text.stands(k):
            continue
        stance = stances(k)
        if label == found and stance == REJECTED and k > taken:
            return None, f"{name}:rejected"
        if label != found and (stance in (HEDGED, AFFIRMED) or (own_hedged and stance != REJECTED)):
            return None, f"{name}:several"  # `others` are the later mentions, or all of them for a hedge
    return found, name


@functools.lru_cache(maxsize=256)
def _matcher(labels: tuple[str, ...], aliases: tuple[tuple[str, str], ...],
             offered: tuple[str, ...] | None) -> Matcher:
    """The matcher of one label set: built once per item kind, not once per generation."""
    return Matcher(labels, dict(aliases), offered)

def strict_rule(rule: str | None) -> bool:
    """Whether an answer read by `rule` rests on strict reading alone: an explicit answer statement or a bare
    label, not taken from a correction."""
    return rule is not None and REVISION not in rule and base_rule(rule) in STRICT_RULES


def base_rule(rule: str) -> str:
    """The rule's own name, without what the reading added ("answer_is+cut" and "answer_is:several" -> "answer_is")."""
    return rule.split(":")[0].split("+")[0]
