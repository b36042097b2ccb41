"""The committing forms: the closed set of ways a text commits to a choice. Nothing else is read as an answer.

Each finder returns the commitments of one form in a text, each with the veto that takes it back, if any
(`vetoes`). The forms, their examples and what each records are listed in `catalogue` (the table the docs and the
tests read); the order there is also the order of precedence of the rule names a sample records.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from baselines.evaluation.reading import vetoes as V
from baselines.evaluation.reading.choices import ChoiceTable
from baselines.evaluation.reading.languages import MARKERS as LANGUAGE_MARKERS, VETOES as LANGUAGE_VETOES
from baselines.evaluation.reading.text import MARKERS, Text
from baselines.evaluation.reading.values import SEVERAL, value_at

_CONNECTOR = (r"(?:[ \t]*(?:\*\*|__|[\"'`’]))*[ \t]*(?:,\s*which\s+is\b\s*|(?:has|needs|ought)\s+to\s+be\b|can\s+only\s+be\b|is\s+(?:best\s+)?(?:described|captured|stated|"
              r"reflected|given)\s+by\b|is\b|would\s+be\b|should\s+be\b|must\s+be\b|will\s+be\b|remains\b"
              r"|seems\s+to\s+be\b|appears\s+to\s+be\b|corresponds\s+to\b|:|=|->|→|[-–—](?=\s))")
_ABOUT = (r"(?:\s+(?:here|then|therefore|thus|(?:to|for|of|in)\s+(?:this|the)\s+(?:question|item|sentence|case|"
          r"excerpt|opinion|problem|task|court|present\s+case)|(?:that\s+)?the\s+court\s+(?:actually\s+|really\s+)?"
          r"(?:announced|adopted|reached|issued|stated|set\s+out|held)|that\s+(?:best\s+)?(?:decided|decides|resolved|"
          r"resolves|answers|answered|governs|controls|fits)\s+(?:the|this)\s+(?:question|case|issue)|\s*[\"“][^\"”\n]{1,600}[\"”]|\s*,\s*(?:though|"
          r"however|then|i\s+think|anyway|in\s+the\s+end),))?")
FINAL = re.compile(r"\bfinal\s+answer\b" + _ABOUT + r"(?:" + _CONNECTOR + r"|(?:\s*(?:\*\*|__|:))*[ \t]*(?:\n|$))",
                   re.IGNORECASE)
ANSWER_IS = re.compile(r"(?<![-\w])(?P<noun>answers?|holding|role|label|disposition|classification|category|choice|"
                       r"option|selection|selected|pick|guess|bet|letter|response|direction|sentence|fit|correction|"
                       r"prediction|ans|revised|updated|replacement|final|verdict|"
                       r"(?:corrected|revised|updated)\s+answer|one|most\s+(?:accurate|plausible|likely|fitting|apt)"
                       r"(?:\s+(?:one|option|choice|holding|answer))?|best\s+(?:fit|match))\b" + _ABOUT + _CONNECTOR,
                       re.IGNORECASE)
IT_IS = re.compile(r"(?<![-\w])(?P<noun>this|it|that)(?:\s+(?:sentence|one|case|item|excerpt|passage))?"
                   r"(?:\s+is\b|['’]s\b|\s+should\s+be\b|\s+must\s+be\b)(?:\s+(?:clearly|plainly|probably|likely|simply|still|therefore|thus|"
                   r"then|definitely|best\s+classified\s+as|classified\s+as|an\s+instance\s+of|a\s+case\s+of))*",
                   re.IGNORECASE)
CUE_MODIFIERS = {"the", "a", "an", "my", "our", "final", "correct", "right", "best", "true", "proper", "appropriate",
                 "actual", "real", "only", "likely", "most", "single", "ultimate", "definitive", "overall", "so",
                 "thus", "therefore", "hence", "then", "and", "ultimately", "rhetorical", "court's", "court’s",
                 "supreme", "chosen", "selected", "short", "to", "top", "first", "1st", "better"}
AFTER_MOST = {"relevant", "applicable", "accurate", "fitting", "apt", "plausible", "likely", "persuasive", "defensible"}
NARROW_NOUNS = {"one", "fit", "sentence"}  # nouns that are a cue only after one of NARROW_MODIFIERS
NARROW_MODIFIERS = {"right", "correct", "best", "likely", "true", "proper", "only", "the", "this", "marked", "pick",
                    "choose", "select"}
PICK = re.compile(
    r"\b(?:i|we)(?:\s*['’](?:d|ll|m)|\s+(?:would|will|shall|must|am|have\s+to|need\s+to|should|can|do))?"
    r"(?:\s+(?:going|mean|meant)\s+to)?(?:\s+(?:probably|definitely|still|now|tentatively|then|therefore|thus|also|ultimately|"
    r"finally|just|really|confidently|reluctantly|instead|rather|personally))*\s+(?P<verb>pick|choose|select|"
    r"go\s+with|going\s+with|opt\s+for|settle\s+on|say|answer|guess|lean(?:ing)?(?:\s+towards?)?|vote\s+for|"
    r"favou?r|endorse|recommend|take|stick\s+with|label\s+it(?:\s+as)?|classify\s+it\s+as|call\s+it|tag\s+it"
    r"(?:\s+as)?|mark|mean|meant|stand\s+by|stay\s+with|keep|maintain|commit\s+to|(?:label|classify|call|tag|mark|treat|categori[sz]e|class)\s+(?:it|this|that|"
    r"the\s+sentence)(?:\s+as)?)\b|(?:^|(?<=[.!?\n])|(?<=[.!?]\s))[ \t*_]*(?P<bare>going\s+with|leaning(?:\s+towards?)?|"
    r"let['’]?s\s+go\s+with|(?:i['’]ll\s+)?go\s+with|stick(?:ing)?\s+with|stay(?:ing)?\s+with)\b",
    re.IGNORECASE | re.MULTILINE)
ELIMINATION = re.compile(r"\b(?P<noun>leaves|leaving|left\s+with)(?:\s+(?:only|just|us\s+with|me\s+with))?\s+(?=\S)"
                         r"|\bonly\s+(?P<only>option\s+|choice\s+)?(?=\S+\s+(?:remains|is\s+left|survives|stands)\b)",
                         re.IGNORECASE)
NO_NOUN = {"this", "it", "that", "leaves", "leaving", "left with", ""}  # nothing to qualify: the item, or what elimination left
HEADING = re.compile(r"^[ \t#*_>]*(?:(?:my|the)\s+)?(?:final\s+)?answer[ \t*_:]*$", re.IGNORECASE | re.MULTILINE)
BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")
TAGGED = re.compile(r"<(?P<tag>answer|final_answer|final|label|choice|prediction)\s*>(?P<value>[^<]{0,400})</(?P=tag)\s*>"
                    r"|\[(?P<square>answer|final_answer|final|label|choice)\](?P<inside>[^\[]{0,400})\[/(?P=square)\]"
                    r"|[\"'](?:answer|final_answer|answer_letter|choice|label|prediction|selected_answer|selection)"
                    r"[\"']\s*:\s*(?P<json>[\"'][^\"'\n]{0,400}[\"']|[A-Za-z0-9_]+)", re.IGNORECASE)
_BRACE = re.compile(r"[{}]")
MAX_BOXED = 400  # characters of a box read: an answer, not a flood of open braces


@dataclass(frozen=True)
class Commitment:
    """A choice (or SEVERAL) committed to by a form, where: `start` its first token, `at` the label's token,
    `chars` the character where it ends; `veto` what takes it back, or None."""

    label: str
    form: str
    start: int
    at: int
    chars: int
    veto: str | None = None


def committed(text: Text, form: str, start: int, found, veto: str | None) -> list[Commitment]:
    if found is None:
        return []
    label, at = found
    return [Commitment(label, form, start, at, text.tokens[at].end, veto)]


def clause_veto(text: Text, start: int, after: int, *, attribution: bool = True, doubt: bool = True) -> str | None:
    """The first veto on a form spanning tokens start..after-1, read from its sentence and clause."""
    if V.questioned(text, after - 1):
        return V.QUESTIONED
    if V.conditional(text, start, after):
        return V.CONDITIONAL
    if attribution and V.attributed(text, start):
        return V.ATTRIBUTED
    if doubt and V.doubted(text, start):
        return V.DOUBTED
    return None


def final_answer(text: Text, table: ChoiceTable) -> list[Commitment]:
    """"The final answer is C", "Final answer: C", "**Final Answer**" ending its line, then C."""
    return _statements(text, table, FINAL, "final_answer")


def answer_is(text: Text, table: ChoiceTable) -> list[Commitment]:
    """"The answer is C", "Answer: C", "The correct holding is 4", "The rhetorical role is STA", "My best guess: B",
    "### Answer" heading its line, then C."""
    return (_statements(text, table, ANSWER_IS, "answer_is") + _statements(text, table, HEADING, "answer_is")
            + _statements(text, table, IT_IS, "answer_is") + _other_languages(text, table))


def _other_languages(text: Text, table: ChoiceTable) -> list[Commitment]:
    """An answer marker of another language (`languages.LANGUAGES`), then a label right after it: "答案是 C",
    "Ответ: В"; vetoed by the language's own words anywhere in its sentence, and by the English vetoes."""
    found = []
    for match in LANGUAGE_MARKERS.finditer(text.raw):
        k = text.index_at(match.end())
        if k >= len(text) or re.search(r"[^\W_]", text.raw[match.end():text.tokens[k].start]):
            continue
        value = value_at(text, k, table)
        if value is None:
            continue
        cue = text.index_at(match.start())
        found += committed(text, "answer_is", cue, value, language_veto(text, match.lastgroup, cue, value[1] + 1))
    return found


def language_veto(text: Text, language: str, cue: int, end: int) -> str | None:
    """The veto of a statement of another language from token `cue` to before `end`: DOUBTED when one of that
    language's veto words stands anywhere in its sentence, else the English clause vetoes."""
    low = text.tokens[V.sentence_start(text, cue)].start
    high = text.tokens[max(V.sentence_stop(text, end), end) - 1].end
    return V.DOUBTED if LANGUAGE_VETOES[language].search(text.raw, low, high) else clause_veto(text, cue, end)


def _statements(text: Text, table: ChoiceTable, pattern: re.Pattern, form: str) -> list[Commitment]:
    found = []
    for match in pattern.finditer(text.raw):
        cue = text.index_at(match.start())
        noun = (match.groupdict().get("noun") or "").casefold()
        value = value_at(text, text.index_at(match.end()), table, exact=noun in NARROW_NOUNS | {"this", "it", "that"})
        if value is None:
            continue
        allowed = NARROW_MODIFIERS if noun in NARROW_NOUNS else CUE_MODIFIERS | _after_most(text, cue)
        pronoun = noun in NO_NOUN  # "it is C": the item under judgment, no noun to qualify
        veto = V.QUALIFIED if not pronoun and V.qualified_noun(text, cue, allowed, narrow=noun in NARROW_NOUNS) \
            else None
        veto = veto or clause_veto(text, cue, value[1] + 1) or _ranked_after(text, value[1])
        found += committed(text, form, cue, value, veto)
    return found


def _after_most(text: Text, cue: int) -> set[str]:
    """The superlative modifiers a cue noun may follow when "most" comes before them ("the most relevant holding")."""
    before = text.previous_word(cue)
    prior = text.previous_word(before) if before is not None else None
    return AFTER_MOST if prior is not None and text.tokens[prior].text.casefold() == "most" else set()


def _ranked_after(text: Text, k: int) -> str | None:
    """"B, a close second", "B as a fallback": the value ranked below another."""
    after = V.words_between(text, k + 1, min(V.sentence_stop(text, k + 1), k + 6))
    return V.QUALIFIED if V.RANKED.search(" ".join(after[:4])) else None


def pick(text: Text, table: ChoiceTable) -> list[Commitment]:
    """The writer's own choice: "I choose C", "I'd go with C", "I'm going with C", "Leaning D", "I'd label it ISSUE",
    the survivor of an elimination ("Eliminating A, B, D and E leaves C", "only B remains")."""
    found = [c for c in _statements(text, table, ELIMINATION, "pick") if c.label != SEVERAL]  # "... leaves C"
    for match in PICK.finditer(text.raw):
        start = text.index_at(match.start())
        value = value_at(text, text.index_at(match.end()), table)
        if value is not None:
            found += committed(text, "pick", start, value, clause_veto(text, start, value[1] + 1, attribution=False))
    return found


def boxed(text: Text, table: ChoiceTable) -> list[Commitment]:
    """The content of each `\\boxed{}` (or `\\fbox{}`): two that differ, with no correction between, name no answer."""
    found = []
    for opened in BOXED.finditer(text.raw):
        start, depth = opened.end(), 1
        close = min(len(text.raw), start + MAX_BOXED)
        for brace in _BRACE.finditer(text.raw, start, close):
            depth += 1 if brace.group() == "{" else -1
            if depth == 0:
                close = brace.start()
                break
        cue = text.index_at(opened.start())
        found += committed(text, "boxed", cue, value_at(text, text.index_at(start), table, text.index_at(close)), None)
    return found


def tagged(text: Text, table: ChoiceTable) -> list[Commitment]:
    """An answer tag or field: `<answer>C</answer>`, `{"answer": "C"}`."""
    found = []
    for match in TAGGED.finditer(text.raw):
        group = "value" if match.group("tag") else "inside" if match.group("square") else "json"
        start, stop = match.span(group)
        cue = text.index_at(match.start())
        value = value_at(text, text.index_at(start), table, text.index_at(stop))
        found += committed(text, "tagged", cue, value, None)
    return found


__all__ = ["Commitment", "SEVERAL", "answer_is", "boxed", "final_answer", "pick", "tagged", "MARKERS"]
