"""`baselines speed predict`: documents/s and units/s (sentences, answers) of labelling a corpus end to end, the
model already loaded and nothing cached; for a labeller that encodes sentences, also its encoder's own speed on
the very sentences of the run, measured in the same process, and the ratio of the two."""
from __future__ import annotations

import itertools
import os
import time

from baselines.core.errors import BaselinesError
from baselines.runs.corpus import (CorpusText, MemorySink, label_corpus, labeller_for, local_runner, portable_options,
                                   read_corpus)

WARM_UP_CHARS = 2000  # the start of the first document, labelled once before the timed run


def predict_speed(task_name: str, source: str, options: dict, n: int | None = None) -> dict:
    """The speed report of labelling the first `n` readable documents of `source` (all when None)."""
    from baselines.encoders.speed import cpu_name, without_encoding_cache

    if n is not None and n < 1:
        raise BaselinesError("speed: --n must be at least 1")
    texts = list(itertools.islice((text for text in read_corpus(source) if not text.problem), n))
    if not texts:
        raise BaselinesError(f"speed: {source} holds no readable document")
    options = portable_options(options)
    with without_encoding_cache():
        run = local_runner(task_name, options)  # the model loads here, outside the timed run
        labeller = labeller_for(task_name, options)
        labeller.label([CorpusText("warm-up", "warm-up", texts[0].text[:WARM_UP_CHARS])])
        records = MemorySink()
        summary = label_corpus(texts, records, run)
        report = {"task": task_name, "documents": summary.written, "failed": len(summary.failed),
                  "unit": summary.unit, "units": summary.units, "seconds": round(summary.seconds, 2),
                  "documents_per_s": _rate(summary.written, summary.seconds),
                  "units_per_s": _rate(summary.units, summary.seconds),
                  "cpu": cpu_name(), "cpu_count": os.cpu_count()}
        if labeller.encode is not None and labeller.encoded_texts is not None:
            report["encoder"] = _encoder_alone(labeller, records.records, summary.seconds)
    return report


def _encoder_alone(labeller, records: list[dict], pipeline_seconds: float) -> dict:
    """The labeller's encoder on the sentences of the run, in one call (batches sorted by length over all of
    them), and the pipeline's speed as a share of it."""
    texts = [text for record in records for text in labeller.encoded_texts(record)]
    labeller.encode(texts[:64])  # warm-up
    started = time.perf_counter()
    labeller.encode(texts)
    seconds = time.perf_counter() - started
    return {"texts": len(texts), "seconds": round(seconds, 2), "texts_per_s": _rate(len(texts), seconds),
            "pipeline_share": round(seconds / pipeline_seconds, 3) if pipeline_seconds else None}


def _rate(count: int, seconds: float) -> float | None:
    return round(count / seconds, 1) if seconds else None


def render_predict_speed(report: dict) -> str:
    """The report as a few lines for the terminal."""
    lines = [f"{report['task']}: {report['documents']} documents, {report['units']} {report['unit']}, labelled end "
             f"to end in {report['seconds']} s (model loaded before; caches empty; CPU {report['cpu']}, "
             f"{report['cpu_count']} cores)",
             f"  end to end:    {report['documents_per_s']} documents/s, {report['units_per_s']} {report['unit']}/s"]
    encoder = report.get("encoder")
    if encoder:
        lines.append(f"  encoder alone: {encoder['texts_per_s']} {report['unit']}/s on the same {encoder['texts']} "
                     f"({encoder['seconds']} s)")
        lines.append(f"  end to end / encoder alone: {encoder['pipeline_share']:.2f}")
    if report["failed"]:
        lines.append(f"  {report['failed']} documents failed and are not counted")
    return "\n".join(lines)
