"""What takes an answer back from beside or after it, as data: a mark of rejection beside its label ("C ❌", "👎 C",
"C (wrong)"), a retraction after it ("Or is it? I'm unsure", "just kidding", "an earlier draft"), or two answers
held equally ("both are defensible"). Each is looked for once per reading: linear in the text's length."""
from __future__ import annotations

import re

from baselines.evaluation.reading.text import Text
from baselines.evaluation.reading.vetoes import REJECTED, SEVERAL

RETRACTED = "retracted"
REJECTION_MARKS = {"✗", "✘", "❌", "✕", "×", "👎", "🚫", "⛔", "❎", "☒", "✖", "🙅", "🛑", "⊗"}  # beside a label: that label is rejected
REJECTION_WORDS = {"wrong", "incorrect", "no", "false", "rejected", "eliminated", "excluded", "not"}  # "C (wrong)"
RETRACTIONS = re.compile(
    r"\bor\s+is\s+it\s*\?|\b(?:just\s+)?(?:kidding|joking)\b|\b(?:earlier|first|rough|previous)\s+draft\b|\bignore\s+"
    r"(?:it|that|this|the\s+above)\b|\b(?:i['’]?m|i\s+am)\s+(?:(?:really|honestly|actually)\s+)?(?:not\s+(?:at\s+all\s+|"
    r"really\s+|entirely\s+)?sure|unsure|uncertain)\b|\bnot\s+sure\s+about\s+that\b|\bcan['’]?t\s+(?:really\s+)?tell\b"
    r"|\bor\s+maybe\s+not\b|\bretracted\b|\bplaceholder\b|\b(?:have\s+not|haven['’]t|not\s+yet)\s+decided\b"
    r"|\bshould\s+not\s+be\s+relied\s+on\b|\bdisregard\s+(?:it|that|this|the\s+above)\b", re.IGNORECASE)
HEDGES_AFTER = re.compile(r"\bboth\s+(?:are\s+|seem\s+|look\s+|remain\s+)?(?:equally\s+)?(?:defensible|plausible|"
                          r"possible|valid|correct|reasonable|arguable|right)\b|\bequally\s+(?:plausible|defensible|"
                          r"valid|likely)\b|\beither\s+(?:one|could|would)\b", re.IGNORECASE)


def taken_back(raw: str, chars: int) -> str | None:
    """After the last answer (ending at character `chars`), the text takes it back ("Or is it? I'm unsure", "just
    kidding", "an earlier draft"): RETRACTED; or holds two answers equally ("both are defensible"): SEVERAL."""
    if RETRACTIONS.search(raw, chars):
        return RETRACTED
    return SEVERAL if HEDGES_AFTER.search(raw, chars) else None


def marked_rejected(text: Text, k: int) -> bool:
    """Label k has a mark of rejection beside it on its line, with only marks between: "C ❌", "❌ C", "👉 C 👎",
    "C (wrong)"."""
    j = k + 1
    while j < len(text) and text.tokens[j].token_type == "mark" and j <= k + 4:
        if text.tokens[j].text in REJECTION_MARKS:
            return True
        if text.tokens[j].text == "(" and j + 2 < len(text) and text.tokens[j + 1].text.casefold() in \
                REJECTION_WORDS and text.tokens[j + 2].text == ")":
            return True
        j += 1
    j = k - 1
    while j >= 0 and text.tokens[j].token_type == "mark" and j >= k - 4:
        if text.tokens[j].text in REJECTION_MARKS:
            return True
        j -= 1
    return _line_opens_with_mark(text, k)


def _line_opens_with_mark(text: Text, k: int) -> bool:
    """The line of token k opens with a mark of rejection ("❌ The answer is C")."""
    j = text.line_starts[k]
    while j < k and text.tokens[j].token_type == "mark" and text.tokens[j].text not in REJECTION_MARKS:
        j += 1
    return j < k and text.tokens[j].text in REJECTION_MARKS
