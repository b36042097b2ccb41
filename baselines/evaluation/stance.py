"""How a generation stands on each choice it names, for the answer extractor (`baselines.evaluation.extract`).

Models that reason name every choice: they rule some out, weigh others, ask themselves questions, hedge. Each
mention of a label is given one stance, from the words of its own clause (a bounded window on each side, so a
generation is classified in time linear in its length):

- REJECTED: the text says the choice is wrong or will not be picked. The label is the subject of a verdict
  ("D is incorrect", "D can be ruled out", "D doesn't fit", "A, B and E are wrong", "D: wrong"), the object of
  a verb that discards it ("this rules out D", "we can eliminate A and D"), or of a choosing verb that is denied
  ("I won't pick D", "I would not go with D"), or the value of a cue noun called wrong ("the wrong answer is D",
  "Incorrect: A").
- HYPOTHETICAL: named without being asserted: in a question ("Answer: B?", "Could it be D?"), a condition
  ("if D were right", "the answer would be D if ..."), an examination ("consider D", "what about D", "let's look
  at D", "D cannot be ruled out"), or as the heading of one item of an analysis that goes through the choices in
  turn ("**Option A**: ...\\n**Option B**: ..."), or with a conditional verb phrase on it ("D would be correct if").
- HEDGED: offered as a possibility ("it could be D", "maybe D", "possibly D"): an answer only when the text
  offers no other choice as well.
- AFFIRMED: the subject of a favourable verdict ("D is correct", "D: right").
- MENTIONED: none of the above: a plain mention, which a rule of the extractor may take as the answer.

A verdict is read from the first judging word after the label's verb, counting the negations before it: a
favourable word under an odd number of negations rejects ("D is not the correct answer", "D isn't right"), an
unfavourable one under none rejects ("D is wrong"), under one it does not ("D is not wrong": affirmed). After
"but", the word after it decides ("D is tempting but wrong").
"""
from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from functools import cached_property

from baselines.evaluation.stance_words import (  # noqa: F401  (the stances are this module's names too)
    AFFIRMED, BETWEEN_VERB_AND_LABEL, CHOOSING, CLAUSE_MARKS, CLAUSE_WORDS, COMMITTING_CONDITIONS,
    CONDITIONAL_MODALS, CONDITIONS, CUE_NOUNS, DISCARDING, EXAMINING, QUALIFYING, RANGES, HEADING_AFTER, HEADING_MARKS,
    HEADING_WORDS, HEDGED, HYPOTHETICAL, INVERSIONS, JOINING, MENTIONED, MODALS, NEGATIONS, PARTICLED,
    PARTICLES, REJECTED, TRIGGERS, UNFAVOURABLE, VERBS, VERDICT_MARKS, judged, negated)


WINDOW = 8  # words looked at on each side of a mention, within its clause
_SPAN = 4 * WINDOW  # tokens looked at on each side at the most (marks included), so each mention costs O(1)


class Stances:
    """The stance of each label mention of one `Text` (baselines.evaluation.answer_tokens), worked out once each."""

    def __init__(self, text):
        self.text = text
        self._known: dict[int, str] = {}

    def __call__(self, k: int) -> str:
        if k not in self._known:
            self._known[k] = self._classify(k)
        return self._known[k]

    def judged(self, low: int, high: int) -> list[int]:
        """The mentions between tokens low and high (excluded) that may be judged (rejected, hedged or affirmed):
        those with a judging word, negation, modal or choosing verb within reach. Found from the judging words,
        so a long text of plain mentions ("(A) (A) ...") is passed over in time linear in its words, without
        classifying each mention."""
        labelled, near = self.text.labelled, set()
        for t in self._triggers[bisect_left(self._triggers, low - _SPAN):bisect_left(self._triggers, high + _SPAN)]:
            first = bisect_left(labelled, max(low, t - _SPAN))
            last = bisect_left(labelled, min(high, t + _SPAN + 1))
            near.update(labelled[first:last])
        return sorted(near)

    @cached_property
    def _triggers(self) -> list[int]:
        """Token positions of the words that can make a mention judged."""
        return [j for j, token in enumerate(self.text.tokens)
                if token.token_type == "word" and token.text.casefold() in TRIGGERS]

    def _classify(self, k: int) -> str:
        after, before = self._verdict_after(k), self._verdict_before(k)
        if REJECTED in (after, before):
            return REJECTED
        if before == HYPOTHETICAL or self._in_question(k) or self._conditional(k):
            return HYPOTHETICAL
        verdict = after or before
        if verdict == AFFIRMED:  # an explicit verdict speaks even on an item of a walk through the choices
            return verdict
        if self._is_heading(k) or self._examined_first(k):
            return HYPOTHETICAL
        return verdict or MENTIONED

    # -- the clause around a mention

    def _words_before(self, k: int) -> list[str]:
        """The words before mention k in its clause, nearest first (casefolded; marks that bound a clause stop it)."""
        tokens, found = self.text.tokens, []
        for j in range(k - 1, max(self.text.previous(self.text.breaks, k), k - 1 - _SPAN), -1):
            token = tokens[j]
            if token.token_type == "newline" or token.text in CLAUSE_MARKS:
                break
            if token.token_type == "mark":
                if token.text == ",":
                    found.append(",")
                continue
            word = token.text.casefold()
            if word in CLAUSE_WORDS:
                if word == "but" and self._previous_word_in(j, ("anything", "everything", "all", "any")):
                    found.append("except")  # "anything but D"
                break
            found.append(word)
            if len(found) >= WINDOW:
                break
        return found

    def _previous_word_in(self, j: int, words: tuple[str, ...]) -> bool:
        before = self.text.previous_word(j)
        return before is not None and self.text.tokens[before].text.casefold() in words

    def _words_after(self, k: int) -> list[str]:
        """The words after mention k in its clause, in order (casefolded); ":" and "," are kept as words."""
        tokens, found = self.text.tokens, []
        for j in range(k + 1, min(self.text.sentence_end(k), k + 1 + _SPAN)):
            token = tokens[j]
            if token.text in CLAUSE_MARKS and not found:
                found.append(token.text)  # "Option B — wrong": a dash after the label reads as a colon
                continue
            if token.token_type == "newline" or token.text in CLAUSE_MARKS:
                break
            if token.token_type == "mark":
                if token.text in (",", ":", "-", "=", "/", "&", "+") or token.text in VERDICT_MARKS:
                    found.append(token.text)
                continue
            word = token.text.casefold()
            if word in CLAUSE_WORDS and not (word == "but" and found):
                if found == [","] and j + 1 < len(tokens) and tokens[j + 1].text == ",":
                    found.pop()  # an aside between commas: "D, however, is wrong"
                    continue
                break
            found.append(word)
            if len(found) >= WINDOW:
                break
        return found

    # -- verdicts

    def _verdict_after(self, k: int) -> str | None:
        """The label as the subject of a verdict ("D is wrong", "A and B are incorrect", "D: wrong")."""
        words = _skip_joined(self._words_after(k), self._label_words)
        if not words:
            return None
        if words[0] in (":", "-", "=", "—", "–"):
            return judged(words[1:4], listed=True)
        if words[0] == "," and words[1:2] and words[1] in UNFAVOURABLE | {"not"}:
            return judged(words[1:3], listed=True)  # "B, wrong" / "B, not this"
        if words[0] in UNFAVOURABLE | VERDICT_MARKS or words[0] in ("correct", "right"):
            return judged(words[:3], listed=True)  # "D (incorrect)", "**D** ❌"
        if words[0] not in VERBS:
            return None
        return judged(words, listed=False)

    def _verdict_before(self, k: int) -> str | None:
        """The label as the object of a discarding or denied choosing verb, or the value of a cue noun called
        wrong ("rules out D", "I won't pick D", "the wrong answer is D", "Incorrect: A")."""
        words = self._words_before(k)
        if (len(words) >= 1 and words[0] in NEGATIONS | {"except", "excluding", "besides"}) or (
                len(words) >= 2 and words[0] in ("be", "is", "was", "are", "'s") and words[1] in NEGATIONS):
            return REJECTED  # "isn't D", "cannot be D", "would not be D", "anything but D"
        if len(words) >= 2 and words[0] in RANGES and self._is_label_word(words[1]):
            return HYPOTHETICAL  # "numbered 0 through 4": the bound of a range
        if words[:1] == ["or"] and not self._is_label_word(words[1] if len(words) > 1 else ""):
            return HEDGED  # "RPC? Hmm, or NONE": an alternative offered after another statement
        gap = 0
        while gap < len(words) and (words[gap] in BETWEEN_VERB_AND_LABEL or words[gap] == ","
                                    or self._is_label_word(words[gap])):
            gap += 1
        if gap < len(words) and gap <= 5:
            verb, before = words[gap], words[gap + 1:gap + 4]
            particle = gap > 0 and words[gap - 1] in PARTICLES
            if verb in DISCARDING or (verb in PARTICLES and words[gap + 1:gap + 2]
                                      and words[gap + 1] in PARTICLED):
                return HYPOTHETICAL if negated(before if verb in DISCARDING else words[gap + 2:gap + 5]) \
                    else REJECTED
            if verb in CHOOSING and not particle:
                if negated(before):
                    return REJECTED
                if any(word in MODALS for word in before[:2]):
                    return HEDGED
        return self._cue_noun_verdict(words)

    def _cue_noun_verdict(self, words: list[str]) -> str | None:
        """"The wrong answer is D" / "An incorrect option would be D" / "Eliminated: A" / "could be D"."""
        head = [word for word in words if word != "," and not self._is_label_word(word)][:6]  # past a list
        for position, word in enumerate(head):
            if word in UNFAVOURABLE and (position == 0 or position == len(head) - 1
                                         or any(w in CUE_NOUNS for w in head[max(0, position - 2):position])):
                if not negated(head[position + 1:position + 3]):
                    return REJECTED
            if word in EXAMINING and position <= 3 and not self._committing(words):
                return HYPOTHETICAL
            if word in MODALS and position <= 3:
                return HEDGED
        return None

    def _committing(self, words: list[str]) -> bool:
        return bool(COMMITTING_CONDITIONS.search(" ".join(reversed(words))))

    def _is_label_word(self, word: str) -> bool:
        return word in self._label_words

    @cached_property
    def _label_words(self) -> set[str]:
        return {self.text.tokens[j].text.casefold() for j in self.text.labelled}

    # -- hypotheticals

    def _in_question(self, k: int) -> bool:
        end = self.text.sentence_end(k)
        return end < len(self.text) and self.text.tokens[end].text == "?"

    def _conditional(self, k: int) -> bool:
        """Named under a condition: "... would be D if the statute applied", "D would be correct only if ...",
        "If the question asked about the dissent, E would be correct", "Had the Court applied strict scrutiny, B
        would be the answer", "assuming ..., the answer would be A" (not "if I had to choose, D")."""
        after, before = self._words_after(k), self._sentence_before(k)
        if COMMITTING_CONDITIONS.search(" ".join([*reversed(before), *after])):
            return False
        if any(word in CONDITIONS for word in after[:6]) or any(word in CONDITIONS for word in self._words_before(k)):
            return True  # "... D if the statute applied", "if it is the court's own view, ANALYSIS"
        modal = any(word in CONDITIONAL_MODALS for word in [*after[:3], *before[:4]])
        if modal and any(word in QUALIFYING for word in after[:8]):
            return True
        return modal and (any(word in CONDITIONS for word in before) or bool(before) and before[-1] in INVERSIONS)

    def _sentence_before(self, k: int) -> list[str]:
        """The words of mention k's sentence before it, nearest first (casefolded), clause marks included."""
        tokens, found = self.text.tokens, []
        for j in range(k - 1, max(self.text.previous(self.text.breaks, k), k - 1 - 2 * _SPAN), -1):
            if tokens[j].token_type in ("word", "abbrev", "number"):
                found.append(tokens[j].text.casefold())
        return found

    def _examined_first(self, k: int) -> bool:
        """"Option E first, since ...", "Start with D": the order of an examination, not an answer."""
        words = self._words_after(k)
        return bool(words) and words[0] in ("first", "next", "now")

    def _is_heading(self, k: int) -> bool:
        """Mention k opens its line the way another line's label opens it: one item of an analysis that goes
        through the choices in turn ("**Option A**: ...", "**Option B**"; "A: wrong.", "B: wrong.", "C: ")."""
        shape = self._line_openers.get(k)
        return shape is not None and self._shape_counts[shape] >= 2

    @cached_property
    def _shape_counts(self) -> Counter:
        return Counter(self._line_openers.values())

    @cached_property
    def _line_openers(self) -> dict[int, tuple]:
        """The label that opens each line (after marks, "Option" or an enumerator: "**Option B**", "2. (B)",
        "C:"), with its shape: what stands before it and the mark after it. A bare label alone on its line has no
        shape: it is an answer line, not a heading."""
        tokens, openers = self.text.tokens, {}
        starts = [0, *(j + 1 for j in self.text.breaks)]  # each line, and each sentence: "(A) ... . (B) ..."
        for start in starts:
            before = []
            for j in range(start, min(len(tokens), start + 8)):
                token = tokens[j]
                if token.label is not None and token.token_type == "word":
                    after = tokens[j + 1].text if j + 1 < len(tokens) and tokens[j + 1].token_type == "mark" else ""
                    if token.text.isdigit() and after in (".", ")") and self._label_follows(j + 2, start + 8):
                        before += ["N", after]  # "1. (A) ...": the number enumerates, the letter is the label
                        continue
                    if before or after in HEADING_AFTER:  # the mark after counts only for a bare label ("C:")
                        openers[j] = (tuple(before), "" if before else after)
                    break
                if token.token_type == "mark" and token.text in HEADING_MARKS | {".", ")"}:
                    before.append(token.text)
                elif token.token_type == "word" and token.text.casefold() in HEADING_WORDS:
                    before.append(token.text.casefold())
                elif token.token_type == "number" or (token.token_type == "word" and token.text.isdigit()):
                    before.append("N")
                else:
                    break
        return openers

    def _label_follows(self, j: int, stop: int) -> bool:
        """A label word comes next after marks only, before token `stop`."""
        tokens = self.text.tokens
        while j < min(stop, len(tokens)) and tokens[j].token_type == "mark":
            j += 1
        return j < min(stop, len(tokens)) and tokens[j].token_type == "word" and tokens[j].label is not None


def _skip_joined(words: list[str], labels: set[str]) -> list[str]:
    """The words after a label, past the other labels (`labels`: the text's label words, casefolded) joined to it
    ("D and E are wrong" -> "are wrong")."""
    position, joined = 0, False
    while position < len(words) and (words[position] in JOINING or (joined and words[position] in labels)
                                     or words[position] in ("option", "options", "choice", "choices")):
        joined = words[position] in JOINING  # a label is skipped only after a joining word: "D and E are"
        position += 1
    return words[position:] if position < len(words) else []
