"""Labelling a corpus on a Dask cluster: the batches of documents go to the workers, each worker loads the model
once (corpus.labeller_for) and sends back the records' fields, and this process writes them in input order, so
the output is the one a local run writes. Paths in the options (model, data, models folders) and the encoding
cache must be reachable from the workers (a shared file system, or one machine)."""
from __future__ import annotations

from collections import deque
from typing import Callable, Iterable

from baselines.core.dask_client import dask_client
from baselines.runs.corpus import CorpusText, label_on_worker

WORKER_WAIT_SECONDS = 60  # how long a run waits for the first worker to join the scheduler


def dask_runner(task_name: str, options: dict, scheduler: str | None) -> Callable:
    """batches -> (batch, outcomes, unit) labelled on the cluster; at most two batches per worker thread are
    in flight, so memory stays bounded on both sides."""
    client = dask_client(scheduler, "--backend dask", worker_wait=WORKER_WAIT_SECONDS)

    def run(batches: Iterable[list[CorpusText]]):
        try:
            threads = sum(client.nthreads().values()) or 1
            waiting: deque = deque()
            for batch in batches:
                waiting.append((batch, client.submit(label_on_worker, task_name, options, batch, pure=False)))
                if len(waiting) >= 2 * threads:
                    yield _collected(*waiting.popleft())
            while waiting:
                yield _collected(*waiting.popleft())
        finally:
            client.close()

    return run


def _collected(batch: list[CorpusText], future) -> tuple:
    outcomes, unit = future.result()
    return batch, outcomes, unit
