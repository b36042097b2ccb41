"""Speed and fidelity of the sentence-encoding backends on the same texts (RR training sentences or CaselawQA
opinion chunks as embed-linear cuts them), without the cache."""
from __future__ import annotations

import os
import platform
import statistics
import time
from pathlib import Path

import numpy as np

from baselines.core.errors import BaselinesError
from baselines.encoders.onnx_backend import CONCRETE


def rr_sentences(data_dir, n: int) -> list[str]:
    """The first `n` sentences of the LegalEval training documents, as the RR methods encode them."""
    from baselines.tasks.rr.data import load_rr, model_input
    from baselines.core.paths import data_root

    texts = [model_input(s.text) or "." for doc in load_rr(data_root(data_dir), "train") for s in doc.sentences]
    if not texts:
        raise BaselinesError("the LegalEval training file holds no sentences")
    return texts[:n]


def caselawqa_chunks(data_dir, n: int) -> list[str]:
    """The first `n` opinion chunks that CaselawQA `embed-linear` encodes (its default budget), training split."""
    from baselines.tasks.caselawqa.data import load_caselawqa
    from baselines.tasks.caselawqa.common import unique_opinions
    from baselines.tasks.caselawqa.embed import CaselawEmbedLinear, opinion_chunks
    from baselines.core.paths import data_root

    budget = CaselawEmbedLinear()
    chunks: list[str] = []
    for text in unique_opinions(load_caselawqa(data_root(data_dir), "train"))[1]:
        head, tail = opinion_chunks(text, budget.chunk_words, budget.head_chunks, budget.tail_chunks)
        chunks.extend(dict.fromkeys(head + tail))
        if len(chunks) >= n:
            break
    return chunks[:n]


CORPORA = {"rr": (rr_sentences, None), "caselawqa": (caselawqa_chunks, 128)}  # name -> (texts, max_seq_length)


def backend_encoder(encoder: str | None, backend: str, max_seq_length: int | None, batch_size: int):
    """A function texts -> unit vectors for `backend`, bypassing the encoding cache."""
    if backend == "torch":
        from baselines.encoders.sentence import load_encoder

        model = load_encoder(encoder, max_seq_length)
        return lambda texts: model.encode(texts, batch_size=batch_size, convert_to_numpy=True,
                                          normalize_embeddings=True, show_progress_bar=False)
    from baselines.encoders.onnx_backend import load_onnx_encoder

    model = load_onnx_encoder(encoder, backend, max_seq_length)
    return lambda texts: model.encode(texts, batch_size)


def benchmark_encoders(data_dir=None, encoder: str | None = None, n: int = 2000, repeats: int = 3,
                       backends: tuple[str, ...] = CONCRETE, max_seq_length: int | None = None,
                       batch_size: int = 64, corpus: str = "rr") -> dict:
    """Per backend: texts/s (median, min, max over `repeats` interleaved runs) and the mean and minimum
    cosine of its vectors with torch's (fp32 sentence-transformers). `corpus` is rr (sentences, the encoder's
    own token limit) or caselawqa (opinion chunks, 128 tokens as embed-linear encodes them)."""
    if n < 1 or repeats < 1:
        raise BaselinesError("benchmark: --n and --repeats must be at least 1")
    if corpus not in CORPORA:
        raise BaselinesError(f"benchmark: --texts must be one of {', '.join(CORPORA)}, got {corpus!r}")
    read_texts, corpus_length = CORPORA[corpus]
    texts = read_texts(data_dir, n)
    max_seq_length = max_seq_length or corpus_length
    encoders = {b: backend_encoder(encoder, b, max_seq_length, batch_size) for b in ("torch", *backends)}
    for encode in encoders.values():
        encode(texts[:batch_size])  # warm-up: exports, loads and allocates outside the timed runs
    seconds: dict[str, list[float]] = {b: [] for b in backends}
    vectors: dict[str, np.ndarray] = {}
    for _ in range(repeats):
        for backend in backends:
            start = time.perf_counter()
            vectors[backend] = np.asarray(encoders[backend](texts), dtype=np.float32)
            seconds[backend].append(time.perf_counter() - start)
    reference = vectors["torch"] if "torch" in vectors else np.asarray(encoders["torch"](texts), dtype=np.float32)
    rows = {}
    for backend in backends:
        rates = [len(texts) / s for s in seconds[backend]]
        cosines = (vectors[backend] * reference).sum(axis=1)
        rows[backend] = {"texts_per_s": {"median": round(statistics.median(rates), 1),
                                         "min": round(min(rates), 1), "max": round(max(rates), 1)},
                         "cosine_to_torch": {"mean": round(float(cosines.mean()), 6),
                                             "min": round(float(cosines.min()), 6)}}
    return {"encoder": encoder or "minilm", "texts": corpus, "n_texts": len(texts), "repeats": repeats,
            "batch_size": batch_size, "max_seq_length": max_seq_length, "cpu_count": os.cpu_count(),
            "machine": platform.processor() or platform.machine(), "backends": rows}


def write_benchmark(report: dict, out: Path) -> Path:
    """`report` as JSON at `out`, written atomically through the one safe write path."""
    from baselines.core.io import write_json

    write_json(Path(out), report)
    return Path(out)


def render_benchmark(report: dict) -> str:
    """A small text table of a benchmark report."""
    what = "CaselawQA opinion chunks" if report.get("texts") == "caselawqa" else "RR sentences"
    lines = [f"{report['n_texts']} {what}, {report['repeats']} repeats, encoder {report['encoder']}, "
             f"max_seq_length {report['max_seq_length'] or 'the encoder limit'}",
             f"{'backend':<10} {'texts/s median':>14} {'min':>8} {'max':>8} {'cos mean':>9} {'cos min':>8}"]
    for backend, row in report["backends"].items():
        speed, cos = row["texts_per_s"], row["cosine_to_torch"]
        lines.append(f"{backend:<10} {speed['median']:>14} {speed['min']:>8} {speed['max']:>8} "
                     f"{cos['mean']:>9} {cos['min']:>8}")
    return "\n".join(lines)
