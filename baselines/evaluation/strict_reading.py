"""The strict reading of an LLM run: its figures when only explicit answers count.

The extractor reads a generation leniently: a label that opens or ends a text, a choice picked in passing, an
answer given after a correction. The strict reading keeps only the answers read by an explicit answer statement
or as a bare label (`extract.STRICT_RULES`: whole, final_answer, boxed, answer_is; not after a correction), as
lm-evaluation-harness reports its `strict-match` beside `flexible-extract`. Every run with raw generations
records both; the difference says how much of a score rests on lenient reading. Rows that give a label
(`prediction`) or harness choice scores have no rule and are read the same way in both.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from baselines.evaluation import metrics as M
from baselines.evaluation.reading import strict_rule


def strict_mask(samples: list[dict]) -> np.ndarray | None:
    """(n,) bool: the sample's answer stands under the strict reading; None when no sample was read from raw text
    (the strict reading is the reading)."""
    if not any("rule" in sample for sample in samples):
        return None
    return np.array([sample["answer"] is not None and ("rule" not in sample or strict_rule(sample["rule"]))
                     for sample in samples], dtype=bool)


def strictly(out: M.Outcomes, mask: np.ndarray) -> M.Outcomes:
    """The outcomes with every answer outside `mask` taken as no answer (and so wrong)."""
    return replace(out, pred=np.where(mask, out.pred, M.NO_ANSWER), correct=out.correct & mask)


def strict_metrics(out: M.Outcomes, samples: list[dict], names) -> dict[str, float] | None:
    """Each metric of `names` under the strict reading, or None when no sample was read from raw text."""
    mask = strict_mask(samples)
    if mask is None:
        return None
    strict = strictly(out, mask)
    return {name: M.point(name, strict) for name in names}
