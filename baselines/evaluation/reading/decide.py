"""From the commitments of a text to its answer: one choice committed to, and kept, or no answer.

`decided_reading` finds every form's commitments (`catalogue.FORMS`), splits the text at the last correction
marker that follows an answer (reading only what comes after it), and decides among the commitments that no veto
took back: they must name one choice, or a declared final answer must. The chosen choice is then withdrawn when
the text goes on to reject it, or to offer another choice as possible.
"""
from __future__ import annotations

import re

from baselines.evaluation.reading import vetoes as V
from baselines.evaluation.reading.catalogue import FINAL, FORMS
from baselines.evaluation.reading.choices import ChoiceTable
from baselines.evaluation.reading.corrections import correction_spans
from baselines.evaluation.reading.forms import Commitment
from baselines.evaluation.reading.takebacks import marked_rejected, taken_back
from baselines.evaluation.reading.text import Text
from baselines.evaluation.reading.values import SEVERAL
from baselines.evaluation.reading.words import Matcher

REVISION = "+revised"  # after a rule's name: read after a correction that followed an earlier answer
REVISED = "revised"  # an answer taken back by a correction after which the text commits to nothing
UNCONFIRMED = "unconfirmed"  # the text goes on to check its answer, and states none after
PRECEDENCE = {form.name: rank for rank, form in enumerate(FORMS)}
KEPT = re.compile(r"\b(?:unaffected|unchanged|still\s+(?:stands|holds|correct|right)|stands|stand\s+by|(?:does(?:n['’]t|"
                  r"\s+not)|won['’]t|will\s+not)\s+change\s+(?:the|my)\s+answer|no\s+change|keep(?:ing)?\s+(?:my|the|it)"
                  r"|(?:answer|choice)\s+remains|typo|(?:to|in|of)\s+my\s+(?:reasoning|explanation|analysis|citation|"
                  r"wording))\b", re.IGNORECASE)
REVIEW = re.compile(r"\blet\s+me\s+(?:first\s+)?(?:double[-\s]?check|check|verify|reconsider|re-?examine|re-?evaluate|"
                    r"revisit|look\s+again|think\s+again|make\s+sure|confirm)\b|\bi\s+(?:should|need\s+to|want\s+to|"
                    r"will|['’]ll)\s+(?:double[-\s]?check|check|verify|reconsider|revisit)\b|\bbefore\s+(?:finali[sz]ing|"
                    r"committing)\b", re.IGNORECASE)


def decided_reading(raw: str, matcher: Matcher, table: ChoiceTable) -> tuple[str | None, str | None]:
    """(label or None, rule or None) of `raw`: the commitments after the last correction that follows an answer,
    or of the whole text when no correction follows one."""
    text = Text(raw, matcher)
    found = commitments(text, table)
    standing = [c for c in found if c.veto is None]
    marker = _last_correction_after_answer(raw, standing)
    if marker is None:
        return decide(text, found)
    after = Text(raw[marker:], matcher)
    label, rule = decide(after, commitments(after, table))
    if label is not None:
        return label, rule + REVISION
    if KEPT.search(raw, marker):  # "Correction: ... not 1989. The answer is unaffected."
        return decide(text, [c for c in found if c.chars <= marker])
    return None, REVISED


def commitments(text: Text, table: ChoiceTable) -> list[Commitment]:
    """Every form's commitments in the text, vetoed or not."""
    return [_marked(text, commitment) for form in FORMS for commitment in form.find(text, table)]


def _marked(text: Text, commitment: Commitment) -> Commitment:
    """The commitment, rejected where a mark of rejection stands beside its label ("C ❌", "👎 C")."""
    if commitment.veto is None and commitment.at < len(text) and marked_rejected(text, commitment.at):
        return Commitment(commitment.label, commitment.form, commitment.start, commitment.at, commitment.chars,
                          V.REJECTED)
    return commitment


def _last_correction_after_answer(raw: str, standing: list[Commitment]) -> int | None:
    """The start of the last correction marker that comes after a commitment, or None: the text is read again from
    there, the marker included ("Correction: D", "I mean D")."""
    if not standing:
        return None
    first_answer = min(c.chars for c in standing)
    starts = [start for start, _ in correction_spans(raw) if start >= first_answer]
    return starts[-1] if starts else None


def decide(text: Text, found: list[Commitment]) -> tuple[str | None, str | None]:
    """The one choice the standing commitments name, then withdrawn if the text rejects it or offers another."""
    standing = [c for c in found if c.veto is None]
    if not standing:
        vetoed = min(found, key=lambda c: c.start, default=None)
        return None, (None if vetoed is None else f"{vetoed.form}:{vetoed.veto}")
    labels = {c.label for c in standing}
    if len(labels) > 1 or SEVERAL in labels:
        finals = {c.label for c in standing if c.form in FINAL}
        if len(finals) != 1 or SEVERAL in finals:
            return None, f"{_named(standing).form}:{V.SEVERAL}"
        standing = [c for c in standing if c.form in FINAL]
    chosen = _named(standing)
    last = max(c.at for c in standing)
    if _review_after(text, max(c.chars for c in standing)):
        return None, f"{chosen.form}:{UNCONFIRMED}"
    if veto := taken_back(text.raw, max(c.chars for c in standing)):
        return None, f"{chosen.form}:{veto}"
    if V.rejected_later(text, chosen.label, last):
        return None, f"{chosen.form}:{V.REJECTED}"
    if V.alternative_later(text, chosen.label, last):
        return None, f"{chosen.form}:{V.SEVERAL}"
    return chosen.label, chosen.form


def _review_after(text: Text, chars: int) -> bool:
    """After the last commitment (ending at character `chars`), the text announces a check of its answer ("but let
    me check the other options first"): the answer was not yet given, only tried."""
    return REVIEW.search(text.raw, chars) is not None


def _named(standing: list[Commitment]) -> Commitment:
    """The commitment whose form names the reading: the first form of the catalogue among them."""
    return min(standing, key=lambda c: (PRECEDENCE[c.form], c.start))
