"""Readers of what an opinion states about why the case is here, a divided court below, and a law held invalid.

Each reader finds the passages that state one thing and gives their words as tags, with flags for the
phrasing that carries it; which tags predict which SCDB code is learned from train by the heads that read them
(stacking.py), as the party readers' tags are (readers.py). Nothing here maps a phrase to a code.

- `cert_reason` (certReason): the passages that say the Court took the case ("We granted certiorari, 498 U. S.
  807 (1990), to resolve the conflict among the Circuits", "we noted probable jurisdiction"), their words before
  and after the grant, the kind of grant, and every statement of a conflict with the kind of courts it names.
- `division_below` (lcDisagreement): the passages that speak of a dissent or division in a court below ("a
  divided panel of the Court of Appeals reversed", "Judge Walker dissented", "on a division of 3 to 2"),
  leaving out this Court's own ("JUSTICE STEVENS, dissenting", "affirmed by an equally divided Court").
- `unconstitutional` (declarationUncon, authorityDecision): the passages that hold, or refuse to hold, a law
  invalid, with the kind of law named near them (an Act of Congress, a State's law, a local ordinance), who
  holds it (this Court or the court below) and where in the opinion it stands.
- `overruled` (precedentAlteration): the passages that overrule or disapprove a precedent, or decline to,
  whether this Court speaks and a case is named after them.
"""
from __future__ import annotations

import re

from baselines.tasks.caselawqa.readers import STOP
from baselines.tasks.caselawqa.windows import chunked_map

WORD = re.compile(r"[a-z][a-z'-]+")
MAX_PASSAGES = 6  # of each reader per opinion

CERT_GRANT = re.compile(
    r"granted (?:the petitions? for (?:a )?(?:writs? of )?)?certiorari|certiorari (?:was|is|were) granted|"
    r"granted (?:the |his |her |their |its )?petitions?\b|granted review|noted probable jurisdiction|"
    r"probable jurisdiction (?:was|is) noted|postponed (?:further )?consideration of (?:the question of )?"
    r"jurisdiction|we took (?:this|the) case|brought (?:the case |this case )?here on appeal", re.I)
GRANT_KIND = (("appeal", re.compile(r"jurisdiction|appeal", re.I)), ("certiorari", re.compile(r"certiorari|petition|review", re.I)))
CONFLICT = re.compile(r"\b(?:conflict\w*|split|disagree\w*|divided|diverg\w*|inconsisten\w*|uncertain\w*|confusion)\b",
                      re.I)
COURTS = (("federal", r"circuits?|courts? of appeals|federal courts?|district courts?"),
          ("state", r"state courts?|highest courts?|supreme courts? of|state appellate|courts? of [A-Z][a-z]+"),
          ("this", r"our (?:cases|decisions|precedents)|decisions? of this court"))
IMPORTANT = re.compile(r"\b(?:importan\w*|significan\w*|recurring|substantial question)\b", re.I)

DIVISION = re.compile(
    r"\b(?:(?P<equal>equally divided court)|(?P<divided>(?:sharply |closely )?divided)|"
    r"(?P<judge>judges? [\w'-]+(?:,? joined by [^,.;]{0,60})?,? (?:dissent\w*|wrote (?:a|the) dissent\w*))|"
    r"(?P<dissenting>(?:a|the|one|two|three) dissenting (?:judges?|justices?|members?|opinion))|"
    r"(?P<vote>(?:division|vote) of \w+ to \w+|\b\d-(?:to-)?\d decision|\b\d-\d vote)|"
    r"(?P<banc>en banc)|(?P<unanimous>unanimous\w*)|(?P<dissent>dissent\w*))", re.I)
THIS_COURT_DISSENT = re.compile(r"(?:JUSTICE|Justice|Chief Justice|THE CHIEF JUSTICE|justices? of this court)[^.]{0,60}$")
BELOW = re.compile(r"court of appeals|circuit|panel|appellate|supreme court of|district court|trial|court below|"
                   r"highest court|state court|board|commission|judge", re.I)

INVALID = re.compile(
    r"\b(?P<negated>not|no|nothing|neither) (?:\w+ ){0,3}(?:unconstitutional\w*|invalid\w*|violat\w*)|"
    r"\b(?:unconstitutional\w*|invalid\w*|violat\w* (?:the )?(?:\w+ ){0,3}(?:amendment|clause|constitution)|"
    r"struck down|strike down|repugnant|pre-?empt\w*|offends? the (?:\w+ ){0,2}(?:amendment|clause|constitution))",
    re.I)
LAW_KINDS = (("federal", r"act of congress|federal (?:statute|law|act)|congress|u\. ?s\. ?c\.|§"),
             ("state", r"state (?:statute|law|constitution|regulation)|the state's|stat\.|code ann|"
                       r"[A-Z][a-z]+(?: [A-Z][a-z]+)? (?:statute|law|constitution|code)"),
             ("local", r"ordinance|municipal|city|county|town|village"))
HOLDER = (("we", re.compile(r"\bwe (?:hold|conclude|agree|decide|find)|\bthis court (?:holds|concludes)|"
                            r"\b(?:is|are|was|were) unconstitutional", re.I)),
          ("below", re.compile(r"court of appeals|district court|court below|supreme court of \w+|trial court", re.I)))
OVERRULE = re.compile(r"\boverrul\w*|no longer (?:good|controlling) law|\bdisapprov\w*|\brepudiat\w*|"
                      r"cannot be reconciled with|\babandon\w* (?:the|its|our) (?:rule|holding|view|doctrine)", re.I)
REFUSAL = re.compile(r"\b(?:not|decline\w*|need not|refuse\w*|unnecessary|reluctan\w*|no reason)\b", re.I)
WE_TODAY = re.compile(r"\b(?:we|today|this court)\b", re.I)


def _words(text: str, tag: str, limit: int = 40) -> list[str]:
    return [f"{tag}_{w}" for w in WORD.findall(text.lower()) if w not in STOP][:limit]


def _kinds(text: str, kinds: tuple, tag: str) -> list[str]:
    return [f"{tag}_{name}" for name, pattern in kinds if re.search(pattern, text, re.I)]


def cert_reason_tokens(text: str) -> list[str]:
    """Tags of the passages where the Court says it took the case, and of every stated conflict."""
    out = []
    grants = list(CERT_GRANT.finditer(text))[:MAX_PASSAGES]
    for rank, match in enumerate(grants):
        before, after = text[max(0, match.start() - 200):match.start()], text[match.end():match.end() + 320]
        kind = next(name for name, pattern in GRANT_KIND + (("other", re.compile("")),) if pattern.search(match.group()))
        out += [f"cert_kind_{kind}", f"cert_rank{min(rank, 2)}_{kind}"]
        out += _words(before, "cert_b", 20) + _words(after, "cert_a")
        tail = WORD.findall(after.lower())
        out += [f"cert_a2_{a}_{b}" for a, b in zip(tail, tail[1:]) if a not in STOP or b not in STOP][:30]
        if IMPORTANT.search(after) or IMPORTANT.search(before):
            out.append("cert_important")
    for match in list(CONFLICT.finditer(text))[:MAX_PASSAGES * 3]:
        near = text[max(0, match.start() - 100):match.end() + 100]
        out += [f"conflict_{kind}" for kind in _kinds(near, COURTS, "courts")] or ["conflict_unnamed"]
    return out + ([] if grants else ["cert_kind_none"])


def division_below_tokens(text: str) -> list[str]:
    """Tags of the passages that speak of a dissent or a division in a court below (this Court's left out)."""
    out, taken = [], 0
    for match in DIVISION.finditer(text):
        if taken == MAX_PASSAGES * 2:
            break
        before = text[max(0, match.start() - 120):match.start()]
        kind = match.lastgroup
        if kind == "dissent" and THIS_COURT_DISSENT.search(before[-80:]):
            continue
        taken += 1
        near = before + text[match.start():match.end() + 80]
        below = bool(BELOW.search(near))
        out += [f"div_{kind}", f"div_{kind}_{'below' if below else 'unplaced'}"]
        out += _words(before[-80:], "div_b", 10) + _words(text[match.end():match.end() + 80], "div_a", 10)
    return out + [f"div_count_{min(taken, 8)}"]


def unconstitutional_tokens(text: str) -> list[str]:
    """Tags of the passages that hold, or refuse to hold, a law invalid: their words, the kind of law near them,
    who holds it, and the quarter of the opinion they stand in."""
    out, matches = [], list(INVALID.finditer(text))
    for match in matches[:MAX_PASSAGES * 2]:
        near = text[max(0, match.start() - 160):match.end() + 120]
        negated = "neg" if match.group("negated") else "pos"
        quarter = min(3, 4 * match.start() // max(len(text), 1))
        out += [f"unc_{negated}", f"unc_{negated}_q{quarter}"]
        out += [f"{kind}_{negated}" for kind in _kinds(near, LAW_KINDS, "unc_law")]
        out += [f"unc_by_{name}_{negated}" for name, pattern in HOLDER if pattern.search(near)]
        out += _words(near, "unc_w", 24)
    return out + [f"unc_count_{min(len(matches), 32).bit_length()}"]


def overruled_tokens(text: str) -> list[str]:
    """Tags of the passages that overrule, disapprove or decline to overrule a precedent: their words, whether
    this Court speaks ("we", "today"), a refusal near them, a case named after them, and their quarter."""
    out, matches = [], list(OVERRULE.finditer(text))
    for match in matches[:MAX_PASSAGES * 2]:
        before, after = text[max(0, match.start() - 80):match.start()], text[match.end():match.end() + 120]
        stance = "neg" if REFUSAL.search(before[-40:]) else "pos"
        quarter = min(3, 4 * match.start() // max(len(text), 1))
        out += [f"ovr_{stance}", f"ovr_{stance}_q{quarter}", f"ovr_form_{match.group().lower().split()[0][:8]}"]
        out += [f"ovr_we_{stance}"] * bool(WE_TODAY.search(before)) + [f"ovr_case_{stance}"] * (" v. " in after)
        out += _words(before, "ovr_b", 10) + _words(after, "ovr_a", 16)
    return out + [f"ovr_count_{min(len(matches), 32).bit_length()}"]


READERS = {"cert_reason": cert_reason_tokens, "division_below": division_below_tokens,
           "unconstitutional": unconstitutional_tokens, "overruled": overruled_tokens}  # reader name -> opinion -> its tags


def _reason_chunk(texts: list[str], reader: str) -> list[str]:
    return [" ".join(READERS[reader](text)) for text in texts]


def reason_texts(texts: list[str], reader: str, n_jobs: int = 1) -> list[str]:
    """The `reader` tags of each opinion as one space-separated string, in chunks run in parallel."""
    return chunked_map(_reason_chunk, texts, n_jobs, reader)
