"""Several BiLSTM-CRF taggers trained from consecutive seeds, at once in worker processes or one by one,
and decoded as one ensemble. A member's result does not depend on where it was trained."""
from __future__ import annotations

import logging
from dataclasses import dataclass

from baselines.tasks.rr.network import Ensemble, NetworkShape, new_tagger, torch_threads
from baselines.tasks.rr.trainer import Sequences, TrainingSettings, chosen_rates, refit_tagger, train_tagger

log = logging.getLogger(__name__)


@dataclass
class MemberPlan:
    """Everything one member needs besides its seed (sent to a worker process as it is)."""

    n_features: int
    n_labels: int
    shape: NetworkShape
    settings: TrainingSettings
    threads: int  # torch threads while training (the encoder used every core before)
    refit: Sequences | None = None  # with settings.refit: every training document, to train again on


def fit_member(data: Sequences, plan: MemberPlan, seed: int, progress: bool = False) -> tuple:
    """One tagger trained from `seed`: (model, epoch history). With a refit, the model is a second tagger
    trained from the same seed on plan.refit for the epochs the first chose, whose epochs the history ends with."""
    import torch

    with torch_threads(plan.threads):
        torch.manual_seed(seed)
        tagger = new_tagger(plan.n_features, plan.n_labels, plan.shape)
        history = train_tagger(tagger, data, plan.settings, seed, progress)
        if plan.refit is None:
            return tagger, history
        torch.manual_seed(seed)
        tagger = new_tagger(plan.n_features, plan.n_labels, plan.shape)
        return tagger, history + refit_tagger(tagger, plan.refit, plan.settings, seed, chosen_rates(history), progress)


def fit_ensemble(data: Sequences, plan: MemberPlan, seeds: list[int], workers: int) -> tuple[Ensemble, list]:
    """(Ensemble of one tagger per seed, their epoch histories); `workers` > 1 trains members in processes."""
    if workers > 1 and len(seeds) > 1:
        trained = _in_workers(data, plan, seeds, min(workers, len(seeds)))
    else:
        trained = [fit_member(data, plan, seed, progress=True) for seed in seeds]
    return Ensemble([model for model, _ in trained]), [history for _, history in trained]


def _in_workers(data: Sequences, plan: MemberPlan, seeds: list[int], processes: int) -> list[tuple]:
    """Members trained in `processes` worker processes, with a progress bar over finished members here."""
    from joblib import Parallel, delayed
    from baselines.core.progress import bar

    level = logging.getLogger("baselines").getEffectiveLevel()
    jobs = Parallel(n_jobs=processes, backend="loky", max_nbytes=None, return_as="generator")(
        delayed(_worker)(level, data, plan, seed) for seed in seeds)
    return list(bar(jobs, total=len(seeds), desc=f"training {len(seeds)} taggers in {processes} processes",
                    unit="tagger"))


def _worker(level: int, data: Sequences, plan: MemberPlan, seed: int) -> tuple:
    """fit_member in a worker process, logging at the parent's level (quiet unless it logs INFO)."""
    if level <= logging.INFO and not logging.getLogger().handlers:
        logging.basicConfig(format="%(asctime)s %(name)s: %(message)s", datefmt="%H:%M:%S")
    logging.getLogger("baselines").setLevel(level)
    return fit_member(data, plan, seed)
