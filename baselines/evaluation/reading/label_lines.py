"""The forms that are a label on its own: the whole text (`whole`, `choice_text`), or its first or last sentence
(`leading`, `ending`) when that sentence is nothing but a label, a few words that lead into it ("So", "Probably",
"Therefore,", "Most likely", "That leaves") and a reason after it (", since ...", " — because ...").

"E." ending a text commits to E; "There is little support for E." or "Least likely: E." do not: their words are
not among those that lead into an answer. A label that opens the text commits when a stop, a line break, a reason,
another label set against it ("FAC — RLC would be wrong"), or its own choice text follows it ('4: "holding that
..."'); a label followed by anything else ("E: unpersuasive") is a heading, not an answer. A label that opens a
line the way labels open other lines of the text ("A) ...", "**Option B**: ...") is an item of a list or of a walk
through the choices, not an answer.
"""
from __future__ import annotations


from baselines.evaluation.reading.choices import ChoiceTable
from baselines.evaluation.reading.forms import Commitment
from baselines.evaluation.reading.items import crossed, listed_line
from baselines.evaluation.reading.label_openings import opens_answer
from baselines.evaluation.reading.text import MARKERS, Text
from baselines.evaluation.reading.values import SEVERAL, alone
from baselines.evaluation.reading.vetoes import (ATTRIBUTED, CONDITIONAL, FIRST_PERSON, QUESTIONED, REPORTING,
                                                 attributed, conditional, questioned, words_between)

ENDING_LEAD_INS = {"so", "thus", "therefore", "hence", "then", "yes", "ok", "okay", "probably", "likely", "most",
                   "tentatively", "leaning", "towards", "toward", "final", "overall", "ultimately", "clearly",
                   "definitely", "certainly", "surely", "that", "leaves", "leaving", "gives", "i'd", "i’d", "i", "say", "would", "think", "believe", "in", "short", "sum",
                   "conclusion", "to", "conclude", "all", "told", "on", "balance", "everything", "things",
                   "considered", "my", "answer", "the", "correct", "right", "best", "holding", "role", "hmm",
                   "well", "indeed", "again", "now", "here", "choose", "pick", "select", "going", "with", "we",
                   "so,", "therefore,", "accordingly", "consequently", "altogether", "net", "verdict", *MARKERS}
ENDING_LEAD_INS |= {"no", "wait", "sorry", "actually", "rather", "oops", "nope", "ah", "oh", "mean", "instead",
                    "process", "of", "elimination", "by", "sticking", "stick", "second", "thought", "thoughts",
                    "reflection", "further", "closer", "consideration", "review", "look", "reconsideration"}
CONCLUDING = {"so", "thus", "therefore", "hence", "leaves", "leaving", "remains", "making", "meaning", "giving",
              "i.e.", "ie", "answer", "verdict", "conclusion", "result", "that's", "that’s", "this", "it's", "it’s",
              "fit", "label", "role", "classification", "disposition", "holding", "outcome", "accordingly",
              "confirmed", "verified", "exercise", "item", "benchmark"}
NOT_CONCLUDING = {"draft", "earlier", "previous", "initial", "discarded", "least", "worst", "second", "not", "no", "never", "wrong", "incorrect", "unlikely", "out", "can't",
                  "cannot", "won't", "wouldn't", "don't", "doesn't",
                  "eliminated", "excluded", "rejected", "runner-up", "trap", "distractor", "tempting", "isn't",
                  "isn’t", "if", "unless", "whether", "argues", "argued", "claims", "contends", "thinks", "says"}
MAX_LEAD_INS = 5


def whole(text: Text, table: ChoiceTable) -> list[Commitment]:
    """The whole text is one label, decorated or not, alone or after "Option", "Answer", "Label" ...: `C`, `(C)`,
    `**C**`, `Answer: c`."""
    words = text.words
    if len(words) == 2 and text.tokens[words[0]].text.casefold() in MARKERS | {"answer", "final"}:
        words = words[1:]
    if len(words) != 1 or text.tokens[words[0]].label is None:
        return []
    k = words[0]
    return [Commitment(text.tokens[k].label, "whole", 0, k, text.tokens[k].end,
                       QUESTIONED if questioned(text, k) else None)]


def choice_text(text: Text, table: ChoiceTable) -> list[Commitment]:
    """The whole text is one choice's text ("State Agency")."""
    label = table.label_of(text, 0, len(text))
    veto = QUESTIONED if label and "?" in text.raw else None
    return [Commitment(label, "choice_text", 0, 0, len(text.raw), veto)] if label else []


def leading(text: Text, table: ChoiceTable) -> list[Commitment]:
    """The text opens with a sentence that is a label: "C. The Court held ...", "B\\n\\nExplanation: ...", "Most
    likely RLC, since ...", "FAC — RLC would be wrong", '4: "holding that ..."'."""
    first = text.next_word(0)
    if first is None:
        return []
    k = _past_lead_ins(text, first, text.sentence_end(first))
    if k is None or text.label_at(k) is None or not _written(text, k) or listed_line(text, k) or crossed(text, k):
        return []
    if not opens_answer(text, k, table) and not _list_sentence(text, k, table):
        return []
    veto = QUESTIONED if questioned(text, k) else (ATTRIBUTED if attributed(text, k) else (
        CONDITIONAL if conditional(text, first, k + 1) else None))
    return [Commitment(alone(text, k, table), "leading", first, k, text.tokens[k].end, veto)]


def ending(text: Text, table: ChoiceTable) -> list[Commitment]:
    """The text ends with a sentence that is a label ("... So B.", "Therefore, C.", "Probably A.", "That leaves E."),
    with a clause that concludes with one (", so **E**."), or with a label set apart as the conclusion of the
    sentence before it ("That's the Court's reasoning: ANALYSIS.")."""
    last = _last_label(text, table)
    if last is None or text.label_at(last) is None or not text.stands(last) or not _written(text, last) \
            or listed_line(text, last) or crossed(text, last):
        return []
    trailing = text.tokens[last + 1:]
    bracketed = trailing[:1] and trailing[0].text == "("
    if (not bracketed and any(token.text not in _TRAILING for token in trailing)) or _cut_after_enumerator(text, last):
        return []  # "E ❌": a verdict mark after the label; "\n\nD. ": a list item begun and cut off
    start = text.previous(text.breaks, last) + 1
    first = _concluding_start(text, start, last)
    if first is None:
        return []
    if text.tokens[last].text.isdigit() and not (text.decorated(last) or _lead_in_before(text, last)
                                                 or _alone_on_line(text, last)):
        return []
    veto = QUESTIONED if questioned(text, last) else (
        ATTRIBUTED if _answers_anothers_question(text, start) or attributed(text, last) else None)
    return [Commitment(alone(text, last, table), "ending", first, last, text.tokens[last].end, veto)]


def _answers_anothers_question(text: Text, start: int) -> bool:
    """The sentence before token `start` asks what someone else holds ("What would the dissent say? Probably B.")."""
    if start < 2 or text.tokens[start - 1].text != "?":
        return False
    words = words_between(text, text.previous(text.breaks, start - 1) + 1, start - 1)
    return any(word in REPORTING for word in words) and not any(word in FIRST_PERSON for word in words)


def _written(text: Text, k: int) -> bool:
    """A label of more than one letter is written as itself ("ANALYSIS", not the heading "Analysis")."""
    return len(text.tokens[k].text) == 1 or text.tokens[k].exact


def _last_label(text: Text, table: ChoiceTable) -> int | None:
    """The last word of the text, or the label before its own choice text in brackets ("So: C (Unspecifiable).")."""
    last = next((k for k in range(len(text) - 1, -1, -1) if text.is_word(k)), None)
    if last is None or text.label_at(last) is not None:
        return last
    close = next((j for j in range(len(text) - 1, last, -1) if text.tokens[j].text == ")"), None)
    opened = next((j for j in range(last, max(-1, last - 40), -1) if text.tokens[j].text == "("), None)
    if close is None or opened is None or opened < 1:
        return last
    label = text.previous_word(opened)
    if label is not None and text.label_at(label) is not None and table.label_of(text, opened + 1, close) == \
            text.label_at(label):
        return label
    return last


def _concluding_start(text: Text, start: int, last: int) -> int | None:
    """Where the concluding words before the label `last` start in its sentence (from token `start`), or None when
    the sentence does not conclude with it."""
    first = text.next_word(start, last + 1)
    reached = _past_lead_ins(text, first, last + 1)
    if reached == last or (reached is not None and _beside(text, reached, last)):
        return first
    for j in range(last - 1, start - 1, -1):  # the last clause: ", so E", "— hence E", "→ C", "Given ..., B"
        if text.tokens[j].text in (",", ";", "—", "–", "→", "⇒"):
            after = text.next_word(j + 1, last + 1)
            if after != last and text.tokens[after].text.casefold() in CONCLUDING and \
                    _past_lead_ins(text, after, last + 1) == last:
                return after
            if after == last and (text.tokens[j].text in ("→", "⇒") or _reasoned(text, start)):
                return after
            break
    mark = next((j for j in range(last - 1, start - 1, -1) if text.tokens[j].text not in "*_`'\""), None)
    if mark is not None and text.tokens[mark].text in (":", "—", "–"):
        words = {text.tokens[j].text.casefold() for j in range(start, last) if text.is_word(j)}
        if words & CONCLUDING and not words & NOT_CONCLUDING:
            return text.next_word(start, last)
    return None


def _reasoned(text: Text, start: int) -> bool:
    """The sentence from token `start` opens with a reason ("Given that ..., B.", "Since ..., B.")."""
    first = text.next_word(start)
    return first is not None and text.tokens[first].text.casefold() in ("given", "since", "because", "as",
                                                                         "considering")


def _list_sentence(text: Text, k: int, table: ChoiceTable) -> bool:
    """Label k opens a sentence that is nothing but labels named together ("A or B.", "3 (C)"): several choices."""
    end = text.sentence_end(k)
    last = next((j for j in range(end - 1, k, -1) if text.is_word(j)), None)
    return last is not None and text.label_at(last) is not None and _beside(text, k, last) and \
        opens_answer(text, last, table) and alone(text, k, table) == SEVERAL


def _beside(text: Text, k: int, last: int) -> bool:
    """Labels k and `last` are written together as one naming of choices: in the other numbering ("3 (D)", "D: 2")
    or joined as alternatives ("A or B"): `alone` then says whether they name one choice or several."""
    if text.label_at(k) is None:
        return False
    between, previous = range(k + 1, last), k
    for j in between:
        if text.is_word(j) and text.label_at(j) is not None:
            if text.label_at(j) != text.label_at(previous) and not any(
                    text.tokens[i].text.casefold() in _JOINS for i in range(previous + 1, j)):
                return False  # "RPC RLC RPC": labels side by side with nothing joining them name no choice
            previous = j
        elif not (text.tokens[j].text.casefold() in _JOINS or text.tokens[j].text in "*_`'\"[]"):
            return False
    return text.label_at(last) == text.label_at(previous) or any(
        text.tokens[i].text.casefold() in _JOINS for i in range(previous + 1, last))


_JOINS = {"or", "and", "/", ",", "(", ")", ":", "-", "—", "–", "option", "choice", "i.e.", "ie", "namely"}


def _alone_on_line(text: Text, k: int) -> bool:
    """Word k is the only word of its line."""
    before = text.previous_word(k)
    following = next((j for j in range(k + 1, len(text)) if text.is_word(j) or text.tokens[j].token_type == "newline"),
                     None)
    return before is None and (following is None or text.tokens[following].token_type == "newline") and \
        (k == 0 or any(text.tokens[j].token_type == "newline" for j in range(max(0, k - 3), k)))


_TRAILING = set(")]}*_`'\".!?:;\n”’")


def _cut_after_enumerator(text: Text, k: int) -> bool:
    """Label k opens the last line, followed by "." or ")" and then only spaces: the text stopped right after
    starting an item ("D. "), not after answering."""
    tail = text.raw[text.tokens[k].end:]
    return tail[:1] in (".", ")") and len(tail) > 1 and not tail[1:].strip(" \t") and text.previous_word(k) is None


def _lead_in_before(text: Text, k: int) -> bool:
    """A number that ends a text is a label only after a colon or a lead-in word ("So: 3.", "Probably 2.")."""
    if k and text.tokens[k - 1].text == ":":
        return True
    before = text.previous_word(k)
    return before is not None and text.tokens[before].text.casefold() in ENDING_LEAD_INS - {"in", "to", "on"}


def _past_lead_ins(text: Text, k: int, stop: int) -> int | None:
    """The first word from k (before `stop`) that is not a lead-in, at most MAX_LEAD_INS lead-ins on."""
    for _ in range(MAX_LEAD_INS + 1):
        if k is None or text.label_at(k) is not None and text.stands(k):
            return k
        if text.tokens[k].text.casefold() not in ENDING_LEAD_INS:
            return k
        k = text.next_word(k + 1, stop)
    return None
