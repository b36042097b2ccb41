"""Document-structure features of the rhetorical-role taggers: where a sentence sits in the judgment's layout.

They read the document's own text around each sentence, which the per-sentence surface features
(features.py) do not see: whether a paragraph starts or ends at the sentence, the paragraph's place in
the judgment, whether a heading such as "JUDGMENT" or "HEADNOTE" came before it, and whether it lies
inside a quotation opened by an earlier sentence (quoted statutes and precedents). A document given as a
list of sentences (JSONL, TSV) has its sentences on lines of their own, so every sentence starts a
paragraph there: these features describe raw judgments, as LegalEval's files and `predict` on text give.
"""
from __future__ import annotations

import math
import re

import numpy as np

from baselines.tasks.rr.documents import Document, model_input

STRUCTURE_NAMES = ["para_start", "para_end", "para_rel", "in_para", "heading", "after_judgment_heading",
                   "after_headnote", "inside_quote", "opens_quote", "closes_quote"]
HEADING_CHARS = 40  # a heading: at most this many characters, nearly all letters upper case
JUDGMENT_HEADING = re.compile(r"\b(?:J\s*U\s*D\s*G\s*M\s*E\s*N\s*T|O\s*R\s*D\s*E\s*R)\b")
HEADNOTE_HEADING = re.compile(r"\bHEAD\s*NOTE\b|^HELD\b")
OPENING, CLOSING, STRAIGHT = "\u201c", "\u201d", '"'
QUOTE_RESET = 40  # sentences after which an unclosed quotation is taken for a stray quote mark


def is_heading(text: str) -> bool:
    """Short and (nearly) all capitals: 'JUDGMENT', 'ORDER', 'HEADNOTE', 'CORAM:'."""
    letters = [c for c in text if c.isalpha()]
    return len(text) <= HEADING_CHARS and bool(letters) and \
        sum(map(str.isupper, letters)) >= 0.8 * len(letters)


def paragraph_marks(doc: Document) -> tuple[list[bool], list[bool]]:
    """Per sentence: (a line break separates it from the sentence before, ... from the sentence after)."""
    sentences, text = doc.sentences, doc.text
    starts = [i == 0 or "\n" in text[sentences[i - 1].end:s.start] for i, s in enumerate(sentences)]
    return starts, starts[1:] + [True]


def quotation_marks(doc: Document) -> list[tuple[bool, bool, bool]]:
    """Per sentence (inside a quotation opened before it, it opens one, it closes one): curly quotes nest,
    straight ones alternate; a quotation left open for QUOTE_RESET sentences is dropped."""
    depth, opened_at, marks = 0, 0, []
    for i, sentence in enumerate(doc.sentences):
        if depth and i - opened_at >= QUOTE_RESET:
            depth = 0
        text = model_input(sentence.text)
        inside = depth > 0
        for char in text:
            if char == OPENING or (char == STRAIGHT and depth == 0):
                opened_at = i if depth == 0 else opened_at
                depth += 1
            elif char in (CLOSING, STRAIGHT) and depth:
                depth -= 1
        marks.append((inside, text[:1] in (OPENING, STRAIGHT), text.rstrip(".,;: ")[-1:] in (CLOSING, STRAIGHT)))
    return marks


def structure_features(doc: Document) -> np.ndarray:
    """(n_sentences, len(STRUCTURE_NAMES)) layout features of a document's sentences."""
    n = len(doc.sentences)
    rows = np.zeros((n, len(STRUCTURE_NAMES)), dtype=np.float32)
    starts, ends = paragraph_marks(doc)
    n_paragraphs = sum(starts)
    paragraph, in_paragraph, after_judgment, after_headnote = -1, 0, False, False
    for i, (sentence, quotes) in enumerate(zip(doc.sentences, quotation_marks(doc))):
        paragraph, in_paragraph = (paragraph + 1, 0) if starts[i] else (paragraph, in_paragraph + 1)
        text = model_input(sentence.text)
        heading = is_heading(text)
        rows[i] = [starts[i], ends[i], paragraph / max(n_paragraphs - 1, 1), math.log1p(in_paragraph) / 4,
                   heading, after_judgment, after_headnote, *quotes]
        if heading:
            upper = text.upper()
            after_judgment = after_judgment or bool(JUDGMENT_HEADING.search(upper))
            after_headnote = after_headnote or bool(HEADNOTE_HEADING.search(upper))
    return rows
