"""A client of a Dask scheduler, for every run that sends its work to a cluster (labelling a corpus, fitting
CaselawQA's per-task heads): one place says what is missing when the address, the library, the scheduler or
its workers are not there."""
from __future__ import annotations

from baselines.core.errors import BaselinesError


def dask_client(scheduler: str | None, asked_as: str, worker_wait: float | None = None):
    """A client of the Dask scheduler at `scheduler` (not made the default client; the caller closes it).

    `asked_as` is how the user chose Dask ("--backend dask"), named in the errors. With `worker_wait`, the
    client also waits that many seconds for a first worker, and a scheduler without one is refused.
    """
    if not scheduler:
        raise BaselinesError(f"{asked_as} needs a scheduler address: --scheduler tcp://HOST:PORT")
    try:
        from dask.distributed import Client
    except ImportError:
        raise BaselinesError(f"{asked_as} needs dask.distributed: pip install 'legal-baselines[cluster]'") from None
    try:
        client = Client(scheduler, timeout="10s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise BaselinesError(f"cannot reach the Dask scheduler {scheduler} ({type(exc).__name__}: {exc})") from None
    if worker_wait is not None:
        _wait_for_a_worker(client, scheduler, worker_wait)
    return client


def _wait_for_a_worker(client, scheduler: str, seconds: float) -> None:
    """Return once the scheduler has a worker; after `seconds` without one, close the client and say how to
    start one."""
    try:
        client.wait_for_workers(1, timeout=seconds)
    except (TimeoutError, OSError):
        client.close()
        raise BaselinesError(f"the Dask scheduler {scheduler} has no worker (waited {seconds} s); "
                             f"start one with `dask worker {scheduler}`") from None
