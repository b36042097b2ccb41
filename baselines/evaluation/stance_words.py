"""The words a stance is read from (`baselines.evaluation.stance`), and how a predicate judges a choice."""
from __future__ import annotations

import re

AFFIRMED, REJECTED, HYPOTHETICAL, HEDGED, MENTIONED = "affirmed", "rejected", "hypothetical", "hedged", "mentioned"


NEGATIONS = {"not", "never", "no", "least", "less", "isn't", "isn’t", "aren't", "wasn't", "weren't", "doesn't", "doesn’t", "don't",
             "don’t", "didn't", "can't", "can’t", "cannot", "won't", "won’t", "wouldn't", "wouldn’t", "shouldn't",
             "couldn't", "mustn't", "hardly", "neither", "nor"}
FAVOURABLE = {"correct", "right", "best", "answer", "true", "accurate", "applicable", "relevant", "appropriate",
              "proper", "sound", "valid", "strongest", "supported", "fits", "fit", "matches", "match", "works",
              "holds", "likely", "plausible", "consistent", "closest", "winner", "one", "choice", "option", "pick",
              "yes", "✓", "✔", "✅", "hold", "stand", "stands", "work", "apply", "applies", "survive", "survives",
              "track", "tracks", "fly", "flies", "square", "squares", "follow", "follows", "it"}
HEDGING = {"possible", "conceivable", "arguable", "viable", "contender", "candidate", "possibility"}
VERDICT_MARKS = {"✓", "✔", "✅", "✗", "✘", "❌"}
UNFAVOURABLE = {"wrong", "incorrect", "false", "inaccurate", "mistaken", "erroneous", "invalid", "flawed",
                "implausible", "unlikely", "irrelevant", "inapplicable", "inapposite", "untenable", "unsupported",
                "inconsistent", "incomplete", "overbroad", "out", "eliminated", "excluded", "rejected", "discarded",
                "ruled", "distractor", "trap", "worse", "worst", "weaker", "weakest", "fails", "fail", "misstates",
                "misreads", "mischaracterizes", "mischaracterises", "overstates", "understates", "contradicts",
                "wrongly", "incorrectly", "off", "eliminate", "exclude", "reject", "discard", "eliminating",
                "inadequate", "unsound", "bad", "poor", "invalidated", "x", "✗", "✘", "❌", "nope", "misstate",
                "misread", "mischaracterize", "overstate", "understate", "contradict", "conflicts", "conflict",
                "miss", "misses", "confuse", "confuses", "ignores", "overlooks"}
DISCARDING = {"eliminate", "eliminates", "eliminated", "eliminating", "exclude", "excludes", "excluding",
              "reject", "rejects", "rejecting", "discard", "discards", "discarding", "dismiss", "dismisses",
              "dismissing", "drop", "drops", "dropping", "avoid", "avoids", "avoiding", "remove", "removes",
              "removing", "strike", "strikes", "striking", "disregard", "disregards", "ignore", "ignores"}
PARTICLED = {"rule", "rules", "ruled", "ruling", "cross", "crosses", "crossed", "crossing", "throw", "throws",
             "set", "sets", "knock", "knocks", "scratch", "strike", "strikes"}  # ... out / off / aside
PARTICLES = {"out", "off", "aside"}
CHOOSING = {"pick", "picks", "picking", "choose", "chooses", "choosing", "chose", "select", "selects", "label",
            "labels", "labelling", "labeling", "classify", "classifying", "tag", "tagging", "categorize", "call",
            "selecting", "opt", "go", "going", "goes", "settle", "settling", "mark", "answer", "say", "favor",
            "favour", "endorse", "recommend"}
MODALS = {"could", "might", "may", "possibly", "perhaps", "maybe", "conceivably"}
EXAMINING = {"consider", "considering", "if", "suppose", "supposing", "assume", "assuming", "whether", "unless",
             "about", "examine", "examining", "evaluate", "evaluating", "analyze", "analyse", "analyzing",
             "analysing", "check", "checking", "look", "looking", "review", "reviewing", "compare", "comparing",
             "test", "testing", "explore", "exploring", "revisit", "imagine", "were", "weigh", "weighing", "start",
             "starting", "begin", "beginning", "turn", "turning", "moving"}
CONDITIONS = {"if", "unless", "assuming", "supposing", "provided", "suppose"}
INVERSIONS = {"had", "were", "should"}  # opening a conditional sentence: "Had the Court applied ..., B would be"
CONDITIONAL_MODALS = {"would", "could", "might", "would've", "wouldve", "i'd", "i’d", "we'd", "it'd", "that'd",
                      "you'd", "one'd"}
QUALIFYING = {"only", "under", "absent", "but", "except", "were", "had", "provided", "assuming"}  # "1 would be
# right under the old Guidelines", "D would be correct only if": a modal verdict so qualified is no assertion
RANGES = {"through", "thru", "to", "until"}  # "the holdings numbered 0 through 4": a bound of a range, no choice
COMMITTING_CONDITIONS = re.compile(r"if\s+(?:i|we)\s+(?:had|have|must|were)\s+to\b|if\s+forced\b|if\s+pressed\b",
                                   re.IGNORECASE)
CUE_NOUNS = {"answer", "answers", "option", "options", "choice", "choices", "one", "ones", "pick", "picks",
             "label", "labels", "candidate", "candidates", "holding", "holdings", "selection", "response"}
VERBS = {"is", "are", "was", "were", "be", "being", "seems", "seem", "appears", "appear", "looks", "look",
         "would", "will", "can", "could", "should", "must", "might", "may", "does", "do", "did", "has", "have",
         "remains", "remain", "stays", "feels", "sounds", "becomes", "gets", "isn't", "isn’t", "aren't",
         "wasn't", "doesn't", "doesn’t", "don't", "can't", "can’t", "cannot", "won't", "wouldn't", "shouldn't",
         "couldn't", "fails", "fail", "misstates", "misreads", "mischaracterizes", "overstates", "understates",
         "contradicts", "fits", "matches", "works", "holds", "answers", "applies", "captures", "reflects",
         "states", "describes", "addresses", "misstate", "misread", "mischaracterize", "overstate", "understate",
         "contradict", "fit", "match", "work", "hold", "apply", "capture", "reflect", "conflict", "conflicts",
         "miss", "misses", "confuse", "confuses", "ignore", "ignores", "overlook", "overlooks"}
IN_PREDICATE = {"also", "clearly", "definitely", "certainly", "obviously", "plainly", "simply", "still", "quite",
                "too", "even", "then", "therefore", "thus", "likewise", "similarly", "again", "just", "really",
                "actually", "also", "not", "the", "a", "an", "most", "least", "more", "be", "been", "being",
                "considered", "deemed", "seen", "as", "here", "probably", "likely", "surely", "ultimately",
                "entirely", "completely", "totally", "partly", "partially", "rather", "very", "so", "all", "both",
                "to", "is", "are", "seems", "appears", "my", "our", "a", "an", "its"}
BETWEEN_VERB_AND_LABEL = {"the", "both", "all", "also", "then", "too", "immediately", "quickly", "safely", "this",
                          "that", "sentence", "as",
                          "easily", "first", "now", "and", "or", "option", "options", "choice", "choices",
                          "answer", "answers", "letter", "letters", "with", "for", "on", "at", "to", "of", "it",
                          "be", "is"}
CLAUSE_WORDS = {"but", "because", "since", "so", "while", "whereas", "although", "though", "however", "therefore",
                "thus", "hence", "yet", "which", "who", "unlike", "instead", "meanwhile", "then", "whereas"}
CLAUSE_MARKS = {";", "—", "–"}
JOINING = {"and", "or", ",", "/", "&", "+", "nor", "either", "both", "as", "well"}
HEADING_MARKS = set("*_#>-•([")
HEADING_WORDS = {"option", "choice", "answer", "letter", "label", "role"}
HEADING_AFTER = {":", ".", ")", "-", "—", "–", "*", "_", "]"}  # a mark after a label that opens an item
TRIGGERS = (NEGATIONS | FAVOURABLE | UNFAVOURABLE | DISCARDING | PARTICLES | CHOOSING | MODALS) - {"one", "out"}


def judged(words: list[str], listed: bool) -> str | None:
    """The verdict of a predicate: its first judging word under the negations before it (see the module)."""
    negations, verdict, modal = 0, None, False
    for position, word in enumerate(words):
        if word == "but" and verdict is not None:
            negations, verdict = 0, None
            continue
        if word in HEDGING and verdict is None:
            return HEDGED  # "D is also possible"
        if word in MODALS and not listed:
            modal = True
            continue
        if word in NEGATIONS:
            negations += 1
            if listed and position == 0 and (len(words) == 1 or words[1] in ("this", "it", "that", "so", ",")):
                return REJECTED  # "D: not this one", "A — no.", "D—no, C"
            continue
        judged = _judging(word) if not (listed and word == "it") else None
        if judged is not None:
            if verdict is None:
                verdict = judged if negations % 2 == 0 else _opposite(judged)
                if modal and verdict == AFFIRMED:
                    return HEDGED  # "D might be the answer"
            continue
        if listed and word in IN_PREDICATE and verdict is None:
            continue  # "D — also wrong"
        if listed or (word not in IN_PREDICATE and word not in VERBS and word not in (",",)):
            if verdict is None and not listed:
                return None
            break
    return verdict


def _judging(word: str) -> str | None:
    if word in UNFAVOURABLE:
        return REJECTED
    if word in FAVOURABLE:
        return AFFIRMED
    return None


def _opposite(verdict: str) -> str:
    return AFFIRMED if verdict == REJECTED else REJECTED


def negated(words: list[str]) -> bool:
    return any(word in NEGATIONS for word in words)
