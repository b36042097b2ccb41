"""What every spaCy-based segmenter shares: a pipeline that marks sentence starts, read back as spans."""
from __future__ import annotations

from segmentation.spans import Span, trim_all


class SpacySegmenter:
    """A spaCy pipeline whose `doc.sents` are the sentences; returns trimmed character spans."""

    name = ""

    def __init__(self, nlp):
        self.nlp = nlp
        self.nlp.max_length = 50_000_000

    def segment(self, text: str) -> list[Span]:
        """Sentence spans of `text` (trimmed of whitespace, in order)."""
        if not text.strip():
            return []
        doc = self.nlp(text)
        return trim_all(text, [(s.start_char, s.end_char) for s in doc.sents])
