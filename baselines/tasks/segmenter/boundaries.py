"""Sentence segmentation scored by the common evaluator: documents in, character spans out.

A segmenter's predictions are rows {"id": document id, "spans": [[start, end], ...]}. Scoring turns
each document into *boundary items*: every position where the gold or the predicted sentences of
that document start (after trimming white space; the first sentence of a text marks no boundary).
An item's gold label is "break" when a gold sentence starts there, else "none"; its answer is
"break" when a predicted sentence starts there. Boundary precision, recall and F1 are then the
precision, recall and F1 of the label "break" over these items -- the usual boundary P/R/F1
(micro over documents) -- and the bootstrap resamples whole documents.

Items absent from a system's samples are ("none", "none") positions: neither gold nor predicted. So
two systems are paired on the union of their items (see compare.py), which leaves every boundary
count unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass

from baselines.core.errors import BaselinesError
from baselines.core.records import Reference

BREAK, NONE = "break", "none"
LABELS = (BREAK, NONE)


@dataclass(frozen=True)
class SpanReference:
    """One document's text and gold sentence spans (the reference of the segmentation task)."""

    id: str
    text: str
    spans: tuple[tuple[int, int], ...]

    @property
    def gold(self) -> tuple[str, ...]:
        """The gold spans as "start-end" strings: what the references digest of a run covers."""
        return tuple(f"{start}-{end}" for start, end in self.spans)

    @property
    def labels(self) -> tuple[str, ...]:
        return LABELS

    @property
    def group(self) -> str:
        return self.id

    @property
    def unit(self) -> str:
        return self.id


def span_references(records) -> list[SpanReference]:
    """One reference per document: its text and gold sentence spans."""
    return [SpanReference(doc.id, doc.text, tuple((s.start, s.end) for s in doc.sentences)) for doc in records]


def predicted_spans(row: dict, reference: SpanReference) -> list[tuple[int, int]]:
    """The row's spans, checked: pairs of ints within the document's text."""
    spans = row.get("spans")
    if not isinstance(spans, list):
        raise BaselinesError(f"document {reference.id}: a segmentation prediction needs 'spans': [[start, end], ...]")
    out = []
    for span in spans:
        if (not isinstance(span, (list, tuple)) or len(span) != 2 or not all(isinstance(v, int) for v in span)
                or not 0 <= span[0] <= span[1] <= len(reference.text)):
            raise BaselinesError(f"document {reference.id}: bad span {span!r} (need [start, end] within the "
                                 f"{len(reference.text)} characters of the text)")
        out.append((span[0], span[1]))
    return out


def boundary_items(reference: SpanReference, row: dict | None) -> list[tuple[Reference, dict | None]]:
    """(item reference, prediction row) for every gold or predicted boundary of one document."""
    from segmentation.spans import boundaries

    gold = boundaries(reference.text, list(reference.spans))
    predicted = boundaries(reference.text, predicted_spans(row, reference)) if row is not None else set()
    items = []
    for position in sorted(gold | predicted):
        item = Reference(id=f"{reference.id}@{position}", gold=(BREAK if position in gold else NONE,),
                         labels=LABELS, group=reference.id, unit=reference.id)
        answer = {"id": item.id, "prediction": BREAK if position in predicted else NONE} if row is not None else None
        items.append((item, answer))
    return items


def expand(pairs: list) -> list[tuple[Reference, dict | None]]:
    """Document pairs (SpanReference, row) -> boundary-item pairs, in document order."""
    return [item for reference, row in pairs for item in boundary_items(reference, row)]


def absent_item(item_id: str) -> dict:
    """The outcome of a boundary item that is not in a system's samples: neither gold nor predicted."""
    return {"group": item_id.rsplit("@", 1)[0], "gold": NONE, "answer": NONE, "answered": True, "correct": True}
