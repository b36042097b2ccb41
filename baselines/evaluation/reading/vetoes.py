"""What takes a committing form back: the vetoes. A form (`forms`) says where a text commits to a choice; a veto,
read from the words of that form's own clause and sentence, says the commitment is not the writer's, or not made:

- `questioned`: its sentence is a question ("Answer: B?", "Is C correct?").
- `conditional`: its sentence puts it under a condition ("If the statute applied, the answer would be E", "C is
  correct only if ..."), except a condition that forces the writer's own choice ("if I had to choose, I'd pick C");
  a concession ("even if", "whether or not") is no condition.
- `attributed`: someone else holds it ("The petitioner argues that the answer is C", "My colleague thinks C is
  correct", "According to the respondent, ...", "the lower court's holding is D").
- `doubted`: its clause doubts or denies it ("I doubt the answer is C", "Perhaps C is correct", "I don't think C is
  correct").
- `qualified`: the noun of an answer statement, or the verdict, is qualified by a word that is no commitment ("the
  wrong answer is D", "a tempting answer is D", "the second-best answer is B", "C is correct in part").

After a choice is read, two more vetoes look at what follows it (`rejected_later`, `alternative_later`): the text
rejects that same choice ("D is wrong", "D can be ruled out"), or offers another one as possible ("but it could also
be A"). Each looks at a bounded window of words, so a text is vetoed in time linear in its length.
"""
from __future__ import annotations

import re

from baselines.evaluation.reading.text import Text

WINDOW = 24  # words looked at before a form, within its sentence
QUESTIONED, CONDITIONAL, ATTRIBUTED, DOUBTED, QUALIFIED = "questioned", "conditional", "attributed", "doubted", "qualified"
REJECTED, SEVERAL = "rejected", "several"

NEGATIONS = {"not", "never", "no", "nor", "neither", "hardly", "barely", "isn't", "isn’t", "aren't", "wasn't",
             "don't", "don’t", "doesn't", "doesn’t", "didn't", "can't", "can’t", "cannot", "won't", "won’t",
             "wouldn't", "wouldn’t", "shouldn't", "couldn't", "nobody", "none"}
DOUBTS = {"doubt", "doubts", "doubtful", "unlikely", "unclear", "uncertain", "unsure", "maybe", "perhaps",
          "possibly", "conceivably", "might", "may", "could", "wonder", "wondering", "questionable",
          "suppose", "guessing", "glance", "initially", "superficially", "ostensibly", "facially", "seemingly"}
CONDITIONS = {"if", "unless", "assuming", "supposing", "suppose", "whether", "lest", "otherwise",
              "hypothetically", "imagine", "imagining"}
COUNTERFACTUAL = re.compile(r"\bin\s+a\s+world\b|\bhad\s+(?:been|the|it|they|he|she|we|i)\b|\bwere\s+(?:the|it|they|"
                            r"we|i|this|that)\b|\bin\s+that\s+case\b|\bon\s+(?:that|this|another|an\s+alternative|the\s+alternative|"
                            r"the\s+other)\s+(?:view|reading|interpretation|approach|account)\b|\bunder\s+"
                            r"(?:that|this|their|his|her)\s+(?:view|reading|theory)\b|\bwhere\s+the\b.*\bhad\b",
                            re.IGNORECASE)
CONCESSIVE = re.compile(r"\b(?:even\s+if|whether\s+or\s+not|even\s+though|regardless\s+of\s+whether|either\s+way|"
                        r"in\s+either\s+case|whichever)\b", re.IGNORECASE)
COMMITTING = re.compile(r"\bif\s+(?:i|we)\s+(?:had|have|must|were|need)\s+to\b|\bif\s+(?:forced|pressed|made|asked)\b"
                        r"|\bif\s+(?:i|we)\s+must\b|\bif\s+(?:one|a)\s+(?:must|has\s+to)\b"
                        r"|\bunless\s+(?:i|we)(?:['’]m|['’]re|\s+am|\s+are|\s+have)?\s+(?:mis\w+|wrong|mistaken|missing|"
                        r"overlooking|forgetting)", re.IGNORECASE)
INVERTED = {"had", "were", "should"}  # opening a conditional clause: "Had the Court applied ..., B would be"
REPORTING = {"say", "argue", "argues", "argued", "arguing", "contend", "contends", "contended", "claim", "claims",
             "claimed", "say", "says", "said", "suggest", "suggests", "suggested", "think", "thinks", "thought",
             "believe", "believes", "believed", "maintain", "maintains", "insist", "insists", "assert", "asserts",
             "urge", "urges", "urged", "propose", "proposes", "proposed", "favor", "favors", "favour", "favours",
             "prefer", "prefers", "want", "wants", "wanted", "advocate", "advocates", "posit", "posits", "submit",
             "submits", "conclude", "concludes", "concluded", "feel", "feels", "felt", "expect", "expects", "guess",
             "guesses", "reckon", "reckons", "answers", "answered", "picks", "picked", "chooses", "chose",
             "selects", "selected", "insisted", "asserted", "maintained"}
FIRST_PERSON = {"i", "we", "i'd", "i’d", "we'd", "i'll", "we'll", "i'm", "i’m", "we're", "my", "our", "me", "us"}
BETWEEN_SUBJECT_AND_VERB = {"also", "still", "would", "might", "may", "could", "will", "do", "does", "did",
                            "probably", "likely", "then", "now", "strongly", "instead", "rightly", "wrongly",
                            "correctly", "clearly", "really", "actually", "therefore", "thus", "so", "must",
                            "should", "can", "to", "tend", "tends", "seem", "seems", "appear", "appears"}
OWN_SOURCES = {"me", "my", "our", "us", "the opinion", "the text", "the excerpt", "the passage", "the judgment",
               "the record", "the question", "the syllabus", "the court", "the supreme court", "this analysis",
               "the sentence", "the decision", "the holding"}
SENTENCE_STOPS = {";"}
CLAUSE_STOPS = {";", ",", "—", "–", "(", ")"}
CLAUSE_WORDS = {"but", "however", "though", "although", "whereas", "yet", "while", "so", "therefore", "thus",
                "hence", "because", "since"}
RANKED = re.compile(r"\b(?:second|runner[\s-]?up|close\s+second|next\s+best|back-?up|fallback|alternative|"
                    r"least|worst|third|fourth|fifth)\b", re.IGNORECASE)
UNFAVOURABLE = {"wrong", "incorrect", "false", "inaccurate", "mistaken", "erroneous", "invalid", "flawed",
                "implausible", "unlikely", "unsupported", "untenable", "inapplicable", "irrelevant", "eliminated",
                "excluded", "rejected", "discarded", "out", "distractor", "unpersuasive", "weaker", "worse"}
DISCARDING = {"eliminate", "eliminates", "eliminated", "exclude", "excludes", "excluded", "reject", "rejects",
              "rejected", "discard", "discards", "discarded", "rule", "rules", "ruled", "drop", "drops", "strike",
              "cross", "crossed", "not", "isn't", "isn’t", "against", "over"}
LINKS = {"is", "are", "was", "seems", "looks", "appears", "can", "must", "should", "would", "be", "been", "also",
         "clearly", "definitely", "now", "then", "too", "still", "as", "well", "out", "ruled"}
POSSIBLE_BEFORE = re.compile(r"(?:\b(?:could|might|may)(?: also| well| even| just)? be|\b(?:possibly|perhaps|maybe|"
                             r"alternatively|or)|\b(?:can't|cannot|can’t|not) (?:rule out|exclude|dismiss|discount))$")
POSSIBLE_AFTER = re.compile(r"^(?:also |still |equally )?(?:possible|plausible|defensible|viable|a (?:possibility|contender|"
                            r"candidate|possible answer|plausible answer))\b")


def words_between(text: Text, start: int, stop: int) -> list[str]:
    """The casefolded words of tokens start..stop-1 (marks left out)."""
    return [text.tokens[j].text.casefold() for j in range(max(start, 0), stop) if text.is_word(j)]


def sentence_start(text: Text, k: int) -> int:
    """The first token of k's sentence (after the previous break or ";"), at most WINDOW words back."""
    start, words = k, 0
    while start > 0 and not text.is_break(start - 1) and text.tokens[start - 1].text not in SENTENCE_STOPS:
        start -= 1
        words += text.is_word(start)
        if words > WINDOW:
            break
    return start


def clause_start(text: Text, k: int) -> int:
    """The first token of k's clause: after a sentence break, ";", ",", a dash or a clause word ("but")."""
    start = k
    floor = sentence_start(text, k)
    while start > floor:
        token = text.tokens[start - 1]
        listed = token.text == "," and start >= 2 and text.tokens[start - 2].label is not None  # "A, C or E"
        if (token.text in CLAUSE_STOPS and not listed) or token.text.casefold() in CLAUSE_WORDS:
            break
        start -= 1
    return start


def sentence_stop(text: Text, k: int) -> int:
    """The token after the last one of k's sentence (its break or ";", excluded); k itself when it is a break."""
    if k < len(text) and text.is_break(k):
        return k
    stop = min(text.sentence_end(k), k + 4 * WINDOW)
    for j in range(k, stop):
        if text.tokens[j].text in SENTENCE_STOPS:
            return j
    return stop


def questioned(text: Text, k: int) -> bool:
    """k's sentence ends with a question mark, or k itself is followed by one ("B?"), unless the next sentence
    answers it "Yes" ("Is D the answer? Yes.")."""
    end = text.sentence_end(k)
    if end < len(text) and text.tokens[end].text == "?":
        answer = text.next_word(end + 1)
        return answer is None or text.tokens[answer].text.casefold() != "yes"
    following = k + 1
    while following < len(text) and text.tokens[following].text in ")]*_`'\"":
        following += 1
    return following < len(text) and text.tokens[following].text == "?"


def conditional(text: Text, start: int, after: int) -> bool:
    """The sentence of a form spanning tokens start..after-1 puts it under a condition: a condition word before it
    in its sentence, or after it up to the sentence's end (a quoted or restated choice text, after a colon, dash or
    quotation mark, is the choice's, not the writer's condition)."""
    first = sentence_start(text, start)
    before_text = text.raw[text.tokens[first].start:text.tokens[start].start] if start > first else ""
    if COMMITTING.search(before_text):
        return False
    before_text = CONCESSIVE.sub(" ", before_text)
    before = [word.casefold() for word in re.findall(r"[^\W_]+", before_text)]
    if any(word in CONDITIONS for word in before) or (before[:1] and before[0] in INVERTED):
        return True
    if COUNTERFACTUAL.search(before_text) or re.search(r"\bprovided\s+that\b", before_text, re.IGNORECASE):
        return True
    after_words = _plain_words_after(text, after)
    return any(word in CONDITIONS for word in after_words) or "provided that" in " ".join(after_words)


def _plain_words_after(text: Text, after: int) -> list[str]:
    """The words after token `after` in its sentence, up to a colon, dash, bracket or quotation mark; a concession
    ("regardless of whether ...") ends them."""
    found = []
    tail = text.raw[text.tokens[after].start:text.tokens[min(sentence_stop(text, after), len(text)) - 1].end] \
        if after < len(text) else ""
    if CONCESSIVE.match(tail.lstrip(" ,")):
        return []
    for j in range(after, sentence_stop(text, after)):
        token = text.tokens[j]
        if token.text in (":", "—", "–", "(", "\"", "“", "'", "‘", "*") or token.token_type == "newline":
            break
        if text.is_word(j):
            found.append(token.text.casefold())
            if len(found) > WINDOW:
                break
    return [word for word in found if not CONCESSIVE.search(word)]


def attributed(text: Text, start: int) -> bool:
    """Someone other than the writer holds the form starting at token `start`: a reporting verb with another
    subject in its clause ("the petitioner argues (that) ..."), or "according to" someone in its sentence."""
    clause = words_between(text, clause_start(text, start), start)
    for position in range(len(clause) - 1, -1, -1):
        if clause[position] in REPORTING and not _own_subject(clause[:position]):
            return True
    sentence = " ".join(words_between(text, sentence_start(text, start), start))
    for match in re.finditer(r"\b(?:according to|per|in the view of|in the words of) (\w+(?: \w+)?)", sentence):
        if match.group(1) not in OWN_SOURCES and match.group(1).split()[0] not in OWN_SOURCES:
            return True
    for match in PARTY_VIEW.finditer(sentence):  # "in the petitioner's view", "from the dissent's perspective"
        if "the " + next(group for group in match.groups() if group) not in OWN_SOURCES:
            return True
    possessive = PARTY_POSSESSIVE.search(" ".join(words_between(text, sentence_start(text, start), start)))
    if possessive and "the " + possessive.group(1) not in OWN_SOURCES:
        return True
    return _quoted(text, start) or bool(SPEAKER.match(_line_before(text, start)))


PARTY_VIEW = re.compile(r"\b(?:in|from|on|under)\s+(?:the\s+)?(\w+)['’]s?\s+(?:view|opinion|reading|submission|account|"
                        r"position|perspective|standpoint|theory|telling|framing|argument)\b|\b(?:in|from|on|under)\s+"
                        r"(?:the\s+)?(petitioner|respondent|appellant|appellee|prosecution|defence|defense|government|"
                        r"plaintiff|defendant|dissent|state|claimant|applicant)['’]s?\b")
PARTY_POSSESSIVE = re.compile(r"^(?:the\s+)?(\w+)['’]s\s+(?:view|position|submission|argument|theory|contention|"
                              r"answer)\b")  # opening the statement's sentence: "The government's view: the answer is D"
SPEAKER = re.compile(r"^[ \t>*_#-]*(?:[\w'’ ]{0,30}?\b(?:user|human|student|petitioner|respondent|appellant|appellee|"
                     r"dissent|commentators?|amicus|amici|solicitor\s+general|counsel|critics?|(?:previous|prior|earlier|"
                     r"other|another|first|second)\s+(?:model|assistant|answer|response|turn|output|attempt|reply))"
                     r"\b[\w'’ ]{0,30}:)", re.IGNORECASE)


def _line_before(text: Text, k: int) -> str:
    """The text of k's line before token k."""
    start = text.tokens[k].start
    return text.raw[text.raw.rfind("\n", 0, start) + 1:start]


def _quoted(text: Text, k: int) -> bool:
    """Token k is inside a quotation on its line: an odd number of double quotation marks opens before it."""
    line = _line_before(text, k)
    return (line.count('"') % 2 == 1) or line.count("“") > line.count("”")


def _own_subject(before: list[str]) -> bool:
    """The words before a reporting verb end with the writer as its subject ("I (would) argue", "we think"), or
    with none at all (an imperative or a bare verb opening the clause: "Say C")."""
    position = len(before) - 1
    while position >= 0 and before[position] in BETWEEN_SUBJECT_AND_VERB | NEGATIONS:
        position -= 1
    return position < 0 or before[position] in FIRST_PERSON


def doubted(text: Text, start: int) -> bool:
    """The clause of a form starting at token `start` doubts or denies it before it is stated."""
    return any(word in DOUBTS or word in NEGATIONS for word in words_between(text, clause_start(text, start), start))


def qualified_noun(text: Text, cue: int, allowed: set[str], narrow: bool = False) -> bool:
    """The noun of an answer statement at token `cue` follows a word that is no commitment: one not in `allowed`
    ("the wrong answer", "a tempting answer"), a possessive of someone else ("the petitioner's answer"; the Court's
    is the holding asked for), or a ranking word ("the second-best answer")."""
    before = text.previous_word(cue)
    if before is None:
        return narrow
    word = text.tokens[before].text.casefold()
    if word.endswith(("'s", "’s", "s'", "s’")):
        court = word[:-2] == "court" and (prior := text.previous_word(before)) is not None \
            and text.tokens[prior].text.casefold() in ("the", "supreme")
        return not court
    gap = text.raw[text.tokens[before].end:text.tokens[cue].start]
    prior = text.previous_word(before)
    if prior is not None and RANKED.fullmatch(text.tokens[prior].text) and text.tokens[prior].text.casefold() != "alternative":
        return True  # "the least likely answer", "the second most plausible answer"
    if narrow:
        return word not in allowed or any(mark in gap for mark in ",;:.\n")
    return word not in allowed and not any(mark in gap for mark in ",;:.\n") and bool(RANKED.search(word) or word.isalpha())


def rejected_later(text: Text, label: str, after: int) -> bool:
    """The text, after token `after`, rejects the choice `label`: "D is wrong", "D can be ruled out", "rules out D",
    "not D"."""
    for k in text.labelled:
        if k <= after or text.label_at(k) != label or not (text.stands(k) and text.tokens[k].exact):
            continue
        if _verdict_after(text, k) or _discarded_before(text, k):
            return True
    return False


def _verdict_after(text: Text, k: int) -> bool:
    words = words_between(text, k + 1, min(sentence_stop(text, k + 1), k + 16))
    negations = 0
    for word in words[:6]:
        if word in NEGATIONS:
            negations += 1
        elif word in UNFAVOURABLE:
            return negations % 2 == 0
        elif word in ("correct", "right", "the", "answer"):
            return word in ("correct", "right") and negations % 2 == 1
        elif word not in LINKS:
            return False
    return False


def _discarded_before(text: Text, k: int) -> bool:
    before = words_between(text, max(clause_start(text, k), k - 6), k)
    return bool(before) and before[-1] in DISCARDING | {"out"} and not (before[-1] == "over")


def alternative_later(text: Text, label: str, after: int) -> bool:
    """After token `after`, the text offers another choice as possible: "but it could also be A", "possibly G", "E
    is also possible"."""
    for k in text.labelled:
        other = text.label_at(k)
        if k <= after or other is None or other == label or not text.stands(k):
            continue
        before = words_between(text, max(clause_start(text, k), k - 5), k)
        after_words = words_between(text, k + 1, min(sentence_stop(text, k + 1), k + 8))
        if POSSIBLE_BEFORE.search(" ".join(before[-4:])):
            return True
        if after_words[:1] and after_words[0] in ("is", "seems", "remains") and \
                POSSIBLE_AFTER.match(" ".join(after_words[1:5])):
            return True
    return False
