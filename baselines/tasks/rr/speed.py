"""The texts RR offers for the encoder speed test: its training sentences, as the RR methods encode them."""
from __future__ import annotations

from baselines.core.errors import BaselinesError


def sentence_texts(data_dir, n: int) -> list[str]:
    """The first `n` sentences of the LegalEval training documents, as the RR methods encode them."""
    from baselines.core.paths import data_root
    from baselines.tasks.rr.data import load_rr, model_input

    texts = [model_input(s.text) or "." for doc in load_rr(data_root(data_dir), "train") for s in doc.sentences]
    if not texts:
        raise BaselinesError("the LegalEval training file holds no sentences")
    return texts[:n]
