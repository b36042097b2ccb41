"""The texts CaselawQA offers for the encoder speed test: opinion chunks as `embed-linear` cuts them."""
from __future__ import annotations


def opinion_chunk_texts(data_dir, n: int) -> list[str]:
    """The first `n` opinion chunks that CaselawQA `embed-linear` encodes (its default budget), training split."""
    from baselines.core.paths import data_root
    from baselines.tasks.caselawqa.common import unique_opinions
    from baselines.tasks.caselawqa.data import load_caselawqa
    from baselines.tasks.caselawqa.embed import CaselawEmbedLinear, opinion_chunks

    budget = CaselawEmbedLinear()
    chunks: list[str] = []
    for text in unique_opinions(load_caselawqa(data_root(data_dir), "train"))[1]:
        head, tail = opinion_chunks(text, budget.chunk_words, budget.head_chunks, budget.tail_chunks)
        chunks.extend(dict.fromkeys(head + tail))
        if len(chunks) >= n:
            break
    return chunks[:n]
