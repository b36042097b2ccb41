"""Labelling a corpus on a Dask cluster: the batches of documents go to the workers, each worker loads the model
once (corpus.labeller_for) and sends back the records' fields, and this process writes them in input order, so
the output is the one a local run writes. Paths in the options (model, data, models folders) and the encoding
cache must be reachable from the workers (a shared file system, or one machine)."""
from __future__ import annotations

from collections import deque
from typing import Callable, Iterable

from baselines.core.errors import BaselinesError
from baselines.runs.corpus import CorpusText, label_on_worker

WORKER_WAIT_SECONDS = 60  # how long a run waits for the first worker to join the scheduler


def connect(scheduler: str | None):
    """A client of the Dask scheduler at `scheduler` with at least one worker; what is missing is said."""
    if not scheduler:
        raise BaselinesError("--backend dask needs a scheduler address: --scheduler tcp://HOST:PORT")
    try:
        from dask.distributed import Client
    except ImportError:
        raise BaselinesError("--backend dask needs dask.distributed: pip install 'legal-baselines[cluster]'") from None
    try:
        client = Client(scheduler, timeout="10s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise BaselinesError(f"cannot reach the Dask scheduler {scheduler} ({type(exc).__name__}: {exc})") from None
    try:
        client.wait_for_workers(1, timeout=WORKER_WAIT_SECONDS)
    except (TimeoutError, OSError):
        client.close()
        raise BaselinesError(f"the Dask scheduler {scheduler} has no worker (waited {WORKER_WAIT_SECONDS} s); "
                             "start one with `dask worker " + scheduler + "`") from None
    return client


def dask_runner(task_name: str, options: dict, scheduler: str | None) -> Callable:
    """batches -> (batch, outcomes, unit) labelled on the cluster; at most two batches per worker thread are
    in flight, so memory stays bounded on both sides."""
    client = connect(scheduler)

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
