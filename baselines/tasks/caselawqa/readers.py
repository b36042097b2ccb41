"""Readers of what an opinion says about its parties and the court below: two tagged-token views (VIEWS).

Party reading: every mention of a role word (petitioner, appellant; respondent, appellee) contributes the words
attached to it, tagged with the side and the way they attach: an appositive ("petitioner, a state prisoner,"
-> pet_app_state pet_app_prisoner), a name or title that follows ("respondent Secretary of Labor" ->
res_name_secretary res_name_labor), the words that follow in the clause ("petitioner was convicted" ->
pet_a_convicted) and the words just before ("His widow, petitioner in this action" -> pet_b_widow). Mentions
in the opening passage, where the Court introduces the parties, are tagged again with `first_`, and the whole
sentences of each side's first two mentions are read as well (pet_s_...). Which tags
predict which SCDB party code is learned from train by the heads that read this view; only the generic role
words are written here.

The court below: passages where a court other than this one disposes ("The Court of Appeals affirmed", "the
Supreme Court of Ohio dismissed Powers' appeal") give their verbs in order, tagged with the kind of court and
whether the passage is the first of the opinion (its procedural history usually opens it) or the last. SCDB's
lcDisposition codes what the court whose decision is reviewed did to the decision it reviewed; which of the
stated dispositions that is, is learned from train, not written here.
"""
from __future__ import annotations

import re

from baselines.tasks.caselawqa.windows import chunked_map

ROLE = re.compile(r"\b(petitioners?|respondents?|appellants?|appellees?)\b", re.I)
SIDE = {"petitioner": "pet", "appellant": "pet", "respondent": "res", "appellee": "res"}
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
NAME = re.compile(r"\s+((?:(?:[A-Z][\w.'&-]*|of|and|the|for)\s?){1,7})")
CLAUSE_END = re.compile(r"[,;.()\[\]:]")
BEFORE_END = re.compile(r"[;.()\[\]:]")
STOP = {"the", "a", "an", "of", "and", "in", "to", "that", "this", "its", "his", "her", "their", "is", "was",
        "were", "are", "be", "by", "for", "on", "with", "as", "at", "it", "s"}
OPENING_CHARS = 3000  # where the Court introduces the parties
MAX_MENTIONS = 40  # of each side read per opinion
INTRODUCING = 2  # the sentences of the first this many mentions of each side are read whole

LOWER_COURT = (r"(?:court of appeals|appeals court|court of criminal appeals|circuit|district court|trial court|"
               r"superior court|court of claims|tax court|bankruptcy court|appellate (?:court|division)|courts? below|"
               r"supreme (?:judicial )?court of [A-Z]\w+(?: [A-Z]\w+)?|[A-Z]\w+ supreme court|highest court|"
               r"state court|en banc court|panel|board|commission)")
DISPOSES = re.compile(LOWER_COURT + r"[^.;]{0,100}?\b(affirm(?:ed|ing)|revers(?:ed|ing)|vacat(?:ed|ing)|remand(?:ed|ing)|"
                      r"dismiss(?:ed|ing)|modif(?:ied|ying))\b[^.;]{0,120}", re.I)
THIS_COURT = re.compile(r"\b(?:we|this court|is|are|be|been|must|should|would|will|to)\s+(?:\w+\s+)?$", re.I)
WE = re.compile(r"\b(?:we|this court)\b", re.I)
VERB = re.compile(r"\b(affirm|revers|vacat|remand|dismiss|modif)\w*|\bin part\b", re.I)
COURT_KINDS = (("appeals", r"court of appeals|appeals court|circuit|en banc|panel"),
               ("state_high", r"supreme (?:judicial )?court of|supreme court|highest court|court of criminal appeals"),
               ("trial", r"district court|trial court|superior court|bankruptcy court|tax court|court of claims"),
               ("agency", r"board|commission"))


def _words(text: str) -> list[str]:
    return [w.lower().strip("'") for w in WORD.findall(text) if w.lower() not in STOP]


def _mention_tokens(text: str, match: re.Match, side: str) -> list[str]:
    """The tags one role-word mention contributes."""
    after = text[match.end():match.end() + 160]
    before = BEFORE_END.split(text[max(0, match.start() - 80):match.start()])[-1]  # keeps "His widow, petitioner"
    plural = "pl" if match.group(1).lower().endswith("s") else "sg"
    out = [f"{side}_{plural}"]
    if after.startswith(","):
        out += [f"{side}_app_{w}" for w in _words(CLAUSE_END.split(after[1:])[0])[:8]]
    else:
        out += [f"{side}_a_{w}" for w in _words(CLAUSE_END.split(after)[0])[:8]]
        name = NAME.match(after)
        if name:
            out += [f"{side}_name_{w}" for w in _words(name.group(1))]
    return out + [f"{side}_b_{w}" for w in _words(before)[-5:]]


def introducing_tokens(text: str, matches: list[re.Match]) -> list[str]:
    """Every word of the sentences of each side's first INTRODUCING mentions, tagged with the side ("pet_s_")."""
    out, taken = [], {"pet": 0, "res": 0}
    for match in matches:
        side = SIDE[match.group(1).lower().rstrip("s")]
        if taken[side] == INTRODUCING:
            continue
        taken[side] += 1
        start, end = text.rfind(".", 0, match.start()) + 1, text.find(".", match.end())
        out += [f"{side}_s_{w}" for w in _words(text[start:end if end >= 0 else len(text)])]
    return out


def party_tokens(text: str) -> list[str]:
    """Tags of every role-word mention (at most MAX_MENTIONS per side), opening mentions twice, and a count flag
    per side."""
    out, seen = [], {"pet": 0, "res": 0}
    matches = list(ROLE.finditer(text))
    for match in matches:
        side = SIDE[match.group(1).lower().rstrip("s")]
        seen[side] += 1
        if seen[side] > MAX_MENTIONS:
            continue
        tokens = _mention_tokens(text, match, side)
        out += tokens
        if match.start() < OPENING_CHARS:
            out += [f"first_{t}" for t in tokens]
    counts = [f"{side}_count_{min(n, 20) // 4}" for side, n in seen.items()]
    return out + introducing_tokens(text, matches) + counts


GENERIC_PARTIES = {  # generic words for the kinds of party an opinion may be between; counted over the whole text
    "government": r"the (?:federal )?government\b|solicitor general|the united states\b",
    "state": r"\bthe state\b|\bthe commonwealth\b|attorney general of",
    "official": r"\b(?:secretary|commissioner|director|administrator|warden|superintendent|sheriff)\b",
    "city": r"\b(?:the city|the county|the town|the village|municipal\w*)\b",
    "company": r"\b(?:inc|corp|co|company|corporation|l\.?l\.?c)\b",
    "union": r"\bunion\b|\bbrotherhood\b",
    "criminal": r"\b(?:convicted|conviction|indicted|indictment|sentenced|prosecution)\b",
    "prisoner": r"\b(?:prisoner|inmate|incarcerat\w+|habeas)\b",
    "employment": r"\b(?:employer|employee|employment|discharged|hired)\b",
    "alien": r"\b(?:alien|deportation|removal|immigration)\b",
}
GENERIC = {kind: re.compile(pattern, re.I) for kind, pattern in GENERIC_PARTIES.items()}


def generic_tokens(text: str) -> list[str]:
    """How often each generic kind of party is spoken of, in log2 buckets: doc_state_3 = 4 to 7 mentions."""
    return [f"doc_{kind}_{min(len(pattern.findall(text)), 255).bit_length()}" for kind, pattern in GENERIC.items()]


def _court_kind(sentence: str) -> str:
    lowered = sentence.lower()
    return next((kind for kind, pattern in COURT_KINDS if re.search(pattern, lowered)), "other")


def dispositions(text: str) -> list[tuple[str, str]]:
    """(court kind, its disposition verbs in order, e.g. "affirm+in_part+revers") of each passage where a court
    below disposes ("The Court of Appeals affirmed"), in the opinion's order; this Court's own judgment ("the
    judgment of the Court of Appeals is reversed", "we vacate") is left out."""
    found = []
    for match in DISPOSES.finditer(text):
        verb_at = match.start(1)
        if THIS_COURT.search(text[max(0, verb_at - 30):verb_at]) or WE.search(text[max(0, match.start() - 40):
                                                                                    match.start()]):
            continue
        verbs = [(v.group(1) or "in_part").lower() for v in VERB.finditer(text, verb_at, match.end())]
        found.append((_court_kind(match.group(0)), "+".join(dict.fromkeys(verbs))))
    return found


def disposition_tokens(text: str) -> list[str]:
    """Tags of the court below's dispositions: the first one (the procedural history opens the opinion) and the
    last, each with its verbs, their sequence and the court's kind; every verb seen; how many there were."""
    found = dispositions(text)
    out = [f"lc_any_{verb}" for _, sequence in found for verb in sequence.split("+")]
    for rank, (kind, sequence) in (("first", found[0]), ("last", found[-1])) if found else ():
        out += [f"lc_{rank}_{sequence}", f"lc_{rank}_{kind}", f"lc_{rank}_{kind}_{sequence}"]
        out += [f"lc_{rank}_has_{verb}" for verb in sequence.split("+")]
    return out + [f"lc_count_{min(len(found), 6)}"]


def party_text(text: str) -> str:
    return " ".join(party_tokens(text) + generic_tokens(text))


def court_below_text(text: str) -> str:
    return " ".join(disposition_tokens(text))


VIEWS = {"parties": party_text, "court_below": court_below_text}  # reader view name -> opinion -> its tags


def _reader_chunk(texts: list[str], view: str) -> list[str]:
    return [VIEWS[view](text) for text in texts]


def reader_texts(texts: list[str], view: str, n_jobs: int = 1) -> list[str]:
    """The `view` reader text of each opinion, in chunks run in parallel."""
    return chunked_map(_reader_chunk, texts, n_jobs, view)
