"""Anchored windows: short passages around the procedural sentences of an opinion, as one extra text view.

The sentences that answer the procedural tasks (the cert grant, the lower court's disposition, a dissent
below, an overruling, a holding of unconstitutionality, the parties' roles, the judgment line) sit in the
middle of long opinions, where the opening and closing views miss them and the whole-text view dilutes them.
Each word within `width` characters of an anchor match is emitted tagged with the anchor ("cert_granted"),
so the same word near the cert grant and near "overruled" are different features; the number of matches of
each anchor becomes a flag token ("FLAG_overr_2").
"""
from __future__ import annotations

import re

import numpy as np

ANCHORS = {  # matched on the lowercased opinion
    "cert": r"certiorari|granted cert|we granted|to resolve (?:a |the )?(?:conflict|split|disagreement)|"
            r"conflict (?:among|between|with)|circuits? (?:are|is) divided|split (?:among|in) the",
    "disp": r"(?:court of appeals|supreme court of \w+|court below|appellate|circuit|district court)[^.]{0,80}?"
            r"\b(?:affirm|revers|vacat|remand|dismiss|den)\w*",
    "dissb": r"divided panel|over (?:a|the) dissent|dissented|dissenting (?:judge|opinion below)|en banc|"
             r"judge \w+ dissent",
    "overr": r"overrul\w*|no longer good law|disapprove",
    "uncon": r"unconstitutional|(?:violat\w*|offends?) the (?:\w+ )?(?:amendment|clause|constitution)|"
             r"invalid under|pre-?empt\w*",
    "roles": r"\b(?:petitioners?|respondents?|appellants?|appellees?)\b (?:is|are|was|were|,) (?:a|an|the)\b",
    "judg": r"judgment of the [^.]{0,60} is|we (?:affirm|reverse|vacate)|is (?:affirmed|reversed|vacated)|"
            r"remanded for",
}
PATTERNS = {name: re.compile(pattern) for name, pattern in ANCHORS.items()}
WORD = re.compile(r"[a-z][a-z']+")
MAX_FLAG = 5
CHUNK = 64  # opinions per parallel job


def window_text(text: str, width: int = 250, max_hits: int = 10) -> str:
    """The anchored-window view of one opinion: flag tokens and anchor-tagged words."""
    out = []
    text = text.lower()
    for name, pattern in PATTERNS.items():
        hits = list(pattern.finditer(text))
        out.append(f"FLAG_{name}_{min(len(hits), MAX_FLAG)}")
        for match in hits[:max_hits]:
            words = WORD.findall(text[max(0, match.start() - width): match.end() + width])
            out.extend(f"{name}_{word}" for word in words)
    return " ".join(out)


def _window_chunk(texts: list[str], width: int, max_hits: int) -> list[str]:
    return [window_text(text, width, max_hits) for text in texts]


def chunked_map(function, texts: list[str], n_jobs: int, *args) -> list:
    """function(chunk, *args) over chunks of `texts`, run in parallel, results concatenated in order."""
    from joblib import Parallel, delayed

    chunks = [texts[start:start + CHUNK] for start in range(0, len(texts), CHUNK)]
    if n_jobs == 1 or len(chunks) <= 1:
        done = [function(chunk, *args) for chunk in chunks]
    else:
        done = Parallel(n_jobs=n_jobs)(delayed(function)(chunk, *args) for chunk in chunks)
    return [out for chunk in done for out in chunk]


def window_texts(texts: list[str], width: int, max_hits: int, n_jobs: int = 1) -> list[str]:
    """window_text of each opinion, in chunks run in parallel."""
    return chunked_map(_window_chunk, texts, n_jobs, width, max_hits)


def window_vectorizer(min_df: int):
    """The TF-IDF of the window view: whitespace tokens (the tags are part of the word), sublinear tf."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(token_pattern=r"\S+", lowercase=False, min_df=min_df, sublinear_tf=True,
                           dtype=np.float32)
