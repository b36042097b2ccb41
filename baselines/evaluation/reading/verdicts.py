"""The `verdict` form: the writer, as judge, says a choice is the right one. "C is correct", "D is the holding",
"D correctly states the holding", "C: correct", "C ✓", "✓ C", "- [x] C", "| C | correct |", "C? Yes", "C it is".

A checklist or a table of verdicts is read the same way, row by row: only its favourable rows commit, so it gives
its one ticked or "correct" row, or several (no answer) when more than one is. A verdict in any other words ("C is
unpersuasive", "C is far from correct", "C is plausible") commits to nothing.
"""
from __future__ import annotations

import re

from baselines.evaluation.reading import vetoes as V
from baselines.evaluation.reading.choices import ChoiceTable
from baselines.evaluation.reading.forms import Commitment, clause_veto, language_veto
from baselines.evaluation.reading.languages import AFTER_LABEL_VERDICTS
from baselines.evaluation.reading.text import Text
from baselines.evaluation.reading.values import alone

COPULAS = {"is", "seems", "appears", "looks", "remains", "'s", "’s", "stands", "was"}
COPULA_PAIRS = {("must", "be"), ("would", "be"), ("is", "indeed"), ("has", "to")}
ADVERBS = {"clearly", "definitely", "certainly", "indeed", "probably", "likely", "also", "still", "thus",
           "therefore", "then", "plainly", "obviously", "undoubtedly", "surely", "really", "actually", "be"}
FAVOURABLE = {"correct", "right", "best", "accurate", "better"}
FAVOURABLE_NOUNS = {"answer", "holding", "choice", "option", "one", "pick", "winner", "fit", "match", "label", "role"}
NOUN_MODIFIERS = {"the", "a", "correct", "right", "best", "true", "only", "most", "accurate", "proper", "likely",
                  "plausible", "appropriate", "actual", "real", "clear", "strongest", "closest", "better"}
SUPERLATIVES = {"plausible", "likely", "accurate", "persuasive", "defensible", "supported", "consistent", "fitting",
                "apt", "convincing"}
CORRECTLY = {"correctly", "accurately", "rightly", "properly", "faithfully"}
STATING = {"states", "identifies", "captures", "describes", "reflects", "summarizes", "summarises", "restates",
           "answers", "names", "gives"}
TICKS = {"✓", "✔", "✅", "☑", "✔️", "←", "👈", "x", "X"}
YES_WORDS = {"correct", "right", "yes", "true", "✓", "✔", "✅", "☑"}
ROW_MARKS = {":", "—", "–", "-", "|", "=", "→", "->"}
SURVIVOR = re.compile(r"(?:remains|survives|is\s+left|is\s+(?:the\s+)?(?:only|last)\s+(?:one|option|choice|answer|"
                      r"candidate)?\s*(?:left|remaining|standing))\b")  # what an elimination leaves
FOLLOWING = {"because", "since", "as", "given", "here", "so", "and", "which", "though", "although", "but", "only",
             "if", "unless", "provided", "assuming"}  # the last four: read, then vetoed as conditional


_OPENING_WORDS = COPULAS | {pair[0] for pair in COPULA_PAIRS} | CORRECTLY | {"it", "most", "is", "remains", "survives"}
_OPENING_MARKS = (TICKS - {"x", "X"}) | ROW_MARKS | {"?"}


def verdict(text: Text, table: ChoiceTable) -> list[Commitment]:
    """Every favourable verdict on a standing label in the text, with its veto."""
    found = []
    ticked = any(token.text in TICKS - {"x", "X"} or token.text in ("x", "X") for token in text.tokens)
    for k in text.labelled:
        if not (ticked or _may_open_verdict(text, k)) or _questions_answer_marker(text, k):
            continue
        label = text.label_at(k)
        if label is None or not (text.stands(k) or text.decorated(k) or text.tokens[k].exact):
            continue  # "A is the answer": a label written exactly as one, the predicate tells it from the article
        end = _favourable_after(text, k) or _ticked_before(text, k) or _ticked_row(text, k)
        if end is None:
            continue
        veto = _veto(text, k, end)
        found.append(Commitment(alone(text, k, table), "verdict", k, k, text.tokens[k].end, veto))
    return found + _other_languages(text, table)


def _other_languages(text: Text, table: ChoiceTable) -> list[Commitment]:
    """A label, then another language's verdict right after it ("C es la respuesta correcta", "选项C是正确答案"):
    vetoed by that language's words anywhere in its sentence, and by the English vetoes."""
    found = []
    for k in text.labelled:
        if text.label_at(k) is None:
            continue
        for language, pattern in AFTER_LABEL_VERDICTS.items():
            match = pattern.match(text.raw, text.tokens[k].end)
            if match is None:
                continue
            veto = language_veto(text, language, k, max(text.index_at(match.end()), k + 1))
            found.append(Commitment(alone(text, k, table), "verdict", k, k, text.tokens[k].end, veto))
            break
    return found


def _questions_answer_marker(text: Text, k: int) -> bool:
    """"Q: Did it remand? A: Yes.": the letter A answering a question is the answer marker of a Q/A pair."""
    return text.tokens[k].text == "A" and k + 1 < len(text) and text.tokens[k + 1].text == ":" and k >= 1 and \
        any(text.tokens[j].text == "?" for j in range(max(0, k - 3), k))


def _may_open_verdict(text: Text, k: int) -> bool:
    """The token after label k (past closing marks) can open a verdict: a cheap test before reading one."""
    j = _past_closers(text, k + 1)
    return j < len(text) and (text.tokens[j].text.casefold() in _OPENING_WORDS or text.tokens[j].text in _OPENING_MARKS)


def _veto(text: Text, k: int, end: int) -> str | None:
    yes_answer = k + 2 < len(text) and text.tokens[k + 1].text == "?"
    if yes_answer:  # "C? Yes": the question is answered, by the writer
        return V.ATTRIBUTED if V.attributed(text, k) else None
    return clause_veto(text, k, end)


def _favourable_after(text: Text, k: int) -> int | None:
    """The token after a favourable verdict that follows label k ("is correct", ": correct", "✓", "correctly
    states", "it is", "? Yes"), or None."""
    j = _past_closers(text, k + 1)
    if j >= len(text):
        return None
    token = text.tokens[j]
    if token.text in TICKS - {"x", "X"}:
        return j + 1
    if token.text in ROW_MARKS or token.text == "?":
        word = text.next_word(j + 1, min(len(text), j + 4))
        if word is not None and text.tokens[word].text.casefold() in YES_WORDS and _rests(text, word + 1):
            return word + 1
        if token.text == "|" and j + 1 < len(text) and text.tokens[j + 1].text in TICKS - {"x", "X"}:
            return j + 2
        return None
    words = V.words_between(text, j, min(len(text), j + 12))
    return _predicate_end(text, j, words)


def _predicate_end(text: Text, j: int, words: list[str]) -> int | None:
    """Where a favourable predicate ends in `words` (read from token j), or None."""
    survivor = SURVIVOR.match(" ".join(words))  # "C remains.", "C is the only option left."
    if survivor and _rests(text, _word_index(text, j, len(survivor.group().split()))):
        return _word_index(text, j, len(survivor.group().split()))
    if words[:2] in (["it", "is"], ["is", "it"]) and _rests(text, _word_index(text, j, 2)):
        return _word_index(text, j, 2)  # "C it is.", "D is it"
    if words[:1] == ["most"] and words[1:2] and words[1] in CORRECTLY and words[2:3] and words[2] in STATING:
        return _word_index(text, j, 3)  # "E most accurately states the holding"
    if words[:1] and words[0] in CORRECTLY and words[1:2] and words[1] in STATING:
        return _word_index(text, j, 2)  # "D correctly states the holding"
    position = 0
    if words[:1] and words[0] in COPULAS:
        position = 1
    elif tuple(words[:2]) in COPULA_PAIRS:
        position = 2
    else:
        return None
    while position < len(words) and words[position] in ADVERBS:
        position += 1
    length = _favourable_length(words[position:])
    if length is None:
        return None
    end = _word_index(text, j, position + length)
    following = V.words_between(text, end, min(len(text), end + 3))
    return end if _rests(text, end) or (following[:1] and following[0] in FOLLOWING) \
        or following[:2] == ["after", "all"] else None


def _favourable_length(words: list[str]) -> int | None:
    """How many words a favourable verdict takes at the start of `words` ("correct"; "the correct answer"; "the
    holding"; "most plausible"), or None."""
    if not words:
        return None
    if words[0] in FAVOURABLE:
        return 1
    if words[0] == "most" and words[1:2] and words[1] in SUPERLATIVES:
        return 2
    position = 0
    while position < len(words) and position < 3 and words[position] in NOUN_MODIFIERS:
        position += 1
    if position and words[position - 1] == "most" and position < len(words) and words[position] in SUPERLATIVES:
        position += 1
        return position if position == len(words) or words[position] not in FAVOURABLE_NOUNS else position + 1
    if position and position < len(words) and words[position] in FAVOURABLE_NOUNS and (
            words[0] == "the" or words[position - 1] == "better"):
        return position + 1
    if position and words[position - 1] in ("best", "correct", "right"):
        return position
    return None


def _word_index(text: Text, j: int, n: int) -> int:
    """The token index after the n-th word from token j."""
    seen = 0
    while j < len(text) and seen < n:
        seen += text.is_word(j)
        j += 1
    return j


def _rests(text: Text, j: int) -> bool:
    """Nothing but closing marks, then a stop, a line break or the end, from token j."""
    j = _past_closers(text, j)
    return j >= len(text) or text.tokens[j].token_type == "newline" or text.tokens[j].text in ".!?;,)|—–:"


def _past_closers(text: Text, j: int) -> int:
    while j < len(text) and text.tokens[j].text in ")]*_`'\"":
        j += 1
    return j


def _ticked_row(text: Text, k: int) -> int | None:
    """Label k is the first cell of a table row whose other cells hold a tick or a favourable word, and no cross
    or unfavourable word ("| 3 | ERISA does not preempt | ✅ |")."""
    j = k - 1
    while j >= 0 and text.tokens[j].text in "*_`( \t":
        j -= 1
    if j < 0 or text.tokens[j].text != "|":
        return None
    cells, end = [], k + 1
    while end < len(text) and text.tokens[end].token_type != "newline":
        cells.append(text.tokens[end].text.casefold())
        end += 1
    last_cells = " ".join(cells).split("|")[-3:]
    ticks = [cell.strip() for cell in last_cells if cell.strip()]
    favourable = any(cell in YES_WORDS or cell in TICKS - {"x", "X"} for cell in ticks)
    crossed = any(cell in ("✗", "✘", "❌", "no", "incorrect", "wrong", "false") for cell in ticks)
    return end if favourable and not crossed else None


def _ticked_before(text: Text, k: int) -> int | None:
    """Label k follows a tick on its line ("✓ C", "- [x] C", "(x) C"), with only list marks between."""
    j, seen = k - 1, []
    while j >= 0 and text.tokens[j].token_type != "newline" and len(seen) < 6:
        seen.append(text.tokens[j].text)
        if text.tokens[j].text in TICKS - {"x", "X"}:
            return k + 1
        if text.tokens[j].text in ("x", "X") and j >= 1 and text.tokens[j - 1].text in "[(" and \
                j + 1 < len(text) and text.tokens[j + 1].text in "])":
            return k + 1
        if text.is_word(j) and text.tokens[j].text.casefold() not in ("option", "choice"):
            return None
        j -= 1
    return None
