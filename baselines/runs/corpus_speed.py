"""`baselines speed predict`: documents/s and units/s (sentences, answers) of labelling a corpus end to end, the
model already loaded and nothing cached; for a labeller that encodes sentences, also its encoder's own speed on
the very sentences of the run, measured in the same process batch by batch, and the ratio of the two."""
from __future__ import annotations

import itertools
import time

from baselines.core.errors import BaselinesError
from baselines.core.machine import describe_machine, disturbance_lines, load_1min, load_disturbances, machine_record
from baselines.runs.corpus import (CorpusText, Labelled, MemorySink, label_batch, label_corpus, labeller_for,
                                   portable_options, read_corpus)

WARM_UP_CHARS = 2000  # the start of the first document, labelled once before the timed run


def predict_speed(task_name: str, source: str, options: dict, n: int | None = None) -> dict:
    """The speed report of labelling the first `n` readable documents of `source` (all when None). For a labeller
    with an encoder of its own, each batch is labelled, then its sentences encoded by the encoder alone, so both
    are timed under the same load of the machine. The report records the machine and its load before and after,
    and what disturbed the measurement (`disturbed`)."""
    from baselines.encoders.speed import without_encoding_cache

    if n is not None and n < 1:
        raise BaselinesError("speed: --n must be at least 1")
    texts = list(itertools.islice((text for text in read_corpus(source) if not text.problem), n))
    if not texts:
        raise BaselinesError(f"speed: {source} holds no readable document")
    options = portable_options(options)
    load_before = load_1min()  # before the model loads: loading raises the load too
    with without_encoding_cache():
        labeller = labeller_for(task_name, options)  # the model loads here, outside the timed runs
        labeller.label([CorpusText("warm-up", "warm-up", texts[0].text[:WARM_UP_CHARS])])
        timed = TimedRuns(labeller)
        if timed.compares:
            labeller.encode(["The appeal is dismissed."] * 8)  # warm-up
        summary = label_corpus(texts, MemorySink(), timed.run)
    machine = machine_record(load_before, load_1min())
    seconds = timed.pipeline_seconds
    report = {"task": task_name, "documents": summary.written, "failed": len(summary.failed), "unit": summary.unit,
              "units": summary.units, "seconds": round(seconds, 2), "documents_per_s": _rate(summary.written, seconds),
              "units_per_s": _rate(summary.units, seconds), "machine": machine}
    if timed.compares:
        report["encoder"] = {"texts": timed.encoded, "seconds": round(timed.encoder_seconds, 2),
                             "texts_per_s": _rate(timed.encoded, timed.encoder_seconds),
                             "pipeline_share": round(timed.encoder_seconds / seconds, 3) if seconds else None}
    report["disturbed"] = load_disturbances(machine) + encoder_disturbance(report)
    return report


def encoder_disturbance(report: dict) -> list[str]:
    """Why the encoder's own figure contradicts the pipeline's, if it does: the pipeline encodes the very same
    texts and does more besides, so on an undisturbed machine the encoder alone is never the slower of the two.
    The one check that holds however short the run (the load average is a mean over a minute)."""
    encoder = report.get("encoder")
    if not encoder or encoder["seconds"] <= report["seconds"]:
        return []
    return [f"the encoder alone ({encoder['texts_per_s']} {report['unit']}/s, {encoder['seconds']} s) came out slower "
            f"than the whole pipeline that includes it ({report['units_per_s']} {report['unit']}/s, "
            f"{report['seconds']} s): the load of the machine changed during the run"]


class TimedRuns:
    """A runner for label_corpus timing each batch end to end and, when the labeller has an encoder of its own,
    that encoder alone on the batch's sentences right after (batches sorted by length over them, no cache)."""

    def __init__(self, labeller):
        self.labeller = labeller
        self.compares = labeller.encode is not None and labeller.encoded_texts is not None
        self.pipeline_seconds = self.encoder_seconds = 0.0
        self.encoded = 0

    def run(self, batches):
        for batch in batches:
            started = time.perf_counter()
            outcomes = label_batch(self.labeller, batch)
            self.pipeline_seconds += time.perf_counter() - started
            if self.compares:
                self._encode_alone([outcome.fields for outcome in outcomes if isinstance(outcome, Labelled)])
            yield batch, outcomes, self.labeller.unit

    def _encode_alone(self, records: list[dict]) -> None:
        texts = [text for fields in records for text in self.labeller.encoded_texts(fields)]
        started = time.perf_counter()
        self.labeller.encode(texts)
        self.encoder_seconds += time.perf_counter() - started
        self.encoded += len(texts)


def _rate(count: int, seconds: float) -> float | None:
    return round(count / seconds, 1) if seconds else None


def render_predict_speed(report: dict) -> str:
    """The report as a few lines for the terminal."""
    lines = [f"{report['task']}: {report['documents']} documents, {report['units']} {report['unit']}, labelled end "
             f"to end in {report['seconds']} s (model loaded before; caches empty)",
             f"  measured on {describe_machine(report['machine'])}",
             f"  end to end:    {report['documents_per_s']} documents/s, {report['units_per_s']} {report['unit']}/s"]
    encoder = report.get("encoder")
    if encoder:
        lines.append(f"  encoder alone: {encoder['texts_per_s']} {report['unit']}/s on the same {encoder['texts']} "
                     f"({encoder['seconds']} s)")
        lines.append(f"  end to end / encoder alone: {encoder['pipeline_share']:.2f}")
    if report["failed"]:
        lines.append(f"  {report['failed']} documents failed and are not counted")
    return "\n".join(lines + disturbance_lines(report["disturbed"]))
