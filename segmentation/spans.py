"""Character spans of sentences: trimming, alignment of predicted to gold sentences, boundary P/R/F1."""
from __future__ import annotations

import bisect
import re

Span = tuple[int, int]


def trim(text: str, start: int, end: int) -> Span | None:
    """The span without leading/trailing whitespace; None when only whitespace is left."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def trim_all(text: str, spans: list[Span]) -> list[Span]:
    """Trimmed, non-empty spans in order."""
    out = [trim(text, s, e) for s, e in spans]
    return sorted(s for s in out if s is not None)


def boundaries(text: str, spans: list[Span]) -> set[int]:
    """Sentence starts (after trimming), except the first one of the text: where a sentence break falls."""
    starts = [s for s, _ in trim_all(text, spans)]
    return set(starts[1:])


def align(gold: list[Span], predicted: list[Span]) -> list[int | None]:
    """For each gold span, the index of the predicted span overlapping it most (None: no overlap).

    Ties go to the earlier predicted span. Both lists are sorted and non-overlapping.
    """
    ends = [e for _, e in predicted]
    matches: list[int | None] = []
    for start, end in gold:
        best, best_overlap = None, 0
        k = bisect.bisect_right(ends, start)  # first predicted span ending after `start`
        while k < len(predicted) and predicted[k][0] < end:
            overlap = min(end, predicted[k][1]) - max(start, predicted[k][0])
            if overlap > best_overlap:
                best, best_overlap = k, overlap
            k += 1
        matches.append(best)
    return matches


CUE_ENDINGS = ".?!:;)]\"'\u201d"


def after_cue(text: str, start: int) -> bool:
    """A sentence starting at `start` follows a line break, or text ending in . ? ! : ; or a closing bracket/quote."""
    end = start
    while end and text[end - 1].isspace():
        end -= 1
    return end == 0 or "\n" in text[end:start] or text[end - 1] in CUE_ENDINGS


def cue_share(pairs: list[tuple[str, list[Span]]]) -> dict:
    """How many gold boundaries follow such a cue: what a segmenter splitting only at cues can reach."""
    total = cued = 0
    for text, gold in pairs:
        starts = boundaries(text, gold)
        total += len(starts)
        cued += sum(after_cue(text, s) for s in starts)
    return {"gold": total, "after_cue": cued, "share": cued / total if total else 0.0}


NUMBERED_LINE = re.compile(r"\n[ \t]*(\d{1,3}\.)[ \t]+(?=[A-Z])")  # a line opening with "12. The"


def numbered_paragraphs(pairs: list[tuple[str, list[Span]]]) -> dict:
    """Where the gold breaks fall at lines opening with a paragraph number: before it, after it, both or neither.

    The corpus is not consistent here, so no segmenter can match every one of them."""
    counts = {"before": 0, "after": 0, "both": 0, "neither": 0}
    for text, gold in pairs:
        starts = boundaries(text, gold)
        for match in NUMBERED_LINE.finditer(text):
            before, after = match.start(1) in starts, match.end() in starts
            counts["both" if before and after else "before" if before else "after" if after else "neither"] += 1
    return counts


def boundary_counts(text: str, gold: list[Span], predicted: list[Span]) -> tuple[int, int, int]:
    """(true positives, predicted boundaries, gold boundaries) of one text."""
    g, p = boundaries(text, gold), boundaries(text, predicted)
    return len(g & p), len(p), len(g)


def prf(tp: int, n_pred: int, n_gold: int) -> dict[str, float]:
    """Precision, recall and F1 from counts (0 where undefined)."""
    precision = tp / n_pred if n_pred else 0.0
    recall = tp / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "tp": tp, "predicted": n_pred, "gold": n_gold}
