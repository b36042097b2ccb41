"""The training loop of one BiLSTM-CRF tagger, outside the model: Adam on the CRF loss, learning-rate
decay and early stopping on the validation documents' weighted F1. Epoch lines are logged at INFO."""
from __future__ import annotations

import copy
import logging
from dataclasses import dataclass, field

import numpy as np

from baselines.core.errors import BaselinesError
from baselines.core.params import Range, TrueNeeds
from baselines.core.progress import bar
from baselines.tasks.rr.common import cut_sequences
from baselines.tasks.rr.network import batches, decode_documents

log = logging.getLogger(__name__)


@dataclass
class TrainingSettings:
    """How a tagger is trained (parameters of the tagger)."""

    PARAMETER_RULES = {  # see baselines.core.params; weight_decay, decay_patience, rare_weight: at least 0
        "lr": Range(0, above=True), "lr_decay": Range(0, 1, above=True),
        **{name: Range(1) for name in ("batch_docs", "max_epochs", "patience", "predict_batch_docs")},
        "refit": TrueNeeds("val_fraction", "a refit repeats the epochs its validation documents chose"),
    }

    lr: float = 0.002
    weight_decay: float = 0.0001
    batch_docs: int = 16  # training sequences per batch
    max_epochs: int = 60
    patience: int = 8  # stop after this many epochs without validation gain
    lr_decay: float = 0.5  # < 1: multiply the learning rate by this after `decay_patience` epochs without gain
    decay_patience: int = 2
    predict_batch_docs: int = 8  # documents decoded at a time (validation and prediction)
    rare_weight: float = 0.0  # > 0: class-weighted emission cross-entropy (objectives.py) with this weight
    transition_prior: bool = False  # start the CRF at the training labels' log transition probabilities
    refit: bool = False  # then train again on every training document, validation ones too (refit_tagger)


@dataclass
class Sequences:
    """Training sequences (features, label ids) and the validation documents, all as arrays."""

    xs: list[np.ndarray]
    ys: list[np.ndarray]
    val_xs: list[np.ndarray] = field(default_factory=list)
    val_ys: list[np.ndarray] = field(default_factory=list)


def train_tagger(model, data: Sequences, settings: TrainingSettings, seed: int, progress: bool = False) -> list[dict]:
    """Train `model` in place and leave it at its best epoch; the epoch history is returned.

    The score of an epoch is the validation weighted F1 (minus the training loss without validation
    documents); `seed` orders the batches. `progress` shows a bar over the epochs (baselines.core.progress: the
    time left is that of `max_epochs`, an upper bound when early stopping ends training sooner)."""
    import torch

    optimizer = torch.optim.Adam(model.parameters(), lr=settings.lr, weight_decay=settings.weight_decay)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="max", factor=settings.lr_decay,
                                                           patience=settings.decay_patience) \
        if settings.lr_decay < 1.0 else None
    rng, weighting = _start(model, data, settings, seed)
    history, best, best_state, waited = [], -float("inf"), None, 0
    for epoch in bar(range(1, settings.max_epochs + 1), desc=f"training tagger (seed {seed})", unit="epoch",
                     enabled=progress):
        rate = optimizer.param_groups[0]["lr"]
        loss = round(train_epoch(model, optimizer, data, settings.batch_docs, rng, weighting), 4)
        entry = {"epoch": epoch, "lr": rate, "loss": loss,
                 "val_weighted_f1": validation_score(model, data, settings.predict_batch_docs, loss)}
        history.append(entry)
        if scheduler is not None:
            scheduler.step(entry["val_weighted_f1"])
        log.info("seed %s epoch %s: loss %s, val weighted F1 %s", seed, epoch, entry["loss"], entry["val_weighted_f1"])
        if entry["val_weighted_f1"] > best:
            best, best_state, waited = entry["val_weighted_f1"], copy.deepcopy(model.state_dict()), 0
        else:
            waited += 1
            if waited >= settings.patience:
                break
    model.load_state_dict(best_state)
    return history


def _start(model, data: Sequences, settings: TrainingSettings, seed: int) -> tuple[np.random.Generator, dict]:
    """(the batch-order generator, the loss weighting) of a training run; sets the transition prior if asked."""
    if settings.transition_prior:
        set_transition_prior(model.crf, data.ys)
    return np.random.default_rng(seed), loss_weighting(data.ys, model.crf.num_tags, settings.rare_weight)


def chosen_rates(history: list[dict]) -> list[float]:
    """The learning rate of every epoch of a validated run up to the one it kept (the first best validation
    score): the epochs, and learning-rate steps, a refit repeats."""
    scored = [entry for entry in history if "val_weighted_f1" in entry]
    kept = max(range(len(scored)), key=lambda k: scored[k]["val_weighted_f1"])
    return [entry["lr"] for entry in scored[:kept + 1]]


def with_validation_documents(data: Sequences, max_len: int, method: str) -> Sequences:
    """What a refit trains on: the training pieces and the validation documents (cut into pieces of `max_len`
    sentences as training documents are), with no validation documents."""
    if not data.val_xs:
        raise BaselinesError(f"{method}: refit=true needs validation documents to choose the epochs it repeats "
                             "(val_fraction is 0)")
    xs, ys = cut_sequences(data.val_xs, data.val_ys, max_len)
    return Sequences(data.xs + xs, data.ys + ys)


def refit_tagger(model, data: Sequences, settings: TrainingSettings, seed: int, rates: list[float],
                 progress: bool = False) -> list[dict]:
    """Train a new `model` on data.xs for len(rates) epochs, epoch k at learning rate rates[k], with no
    validation (what chosen_rates read from a validated run); returns the epoch history, marked 'refit'."""
    import torch

    optimizer = torch.optim.Adam(model.parameters(), lr=rates[0], weight_decay=settings.weight_decay)
    rng, weighting = _start(model, data, settings, seed)
    history = []
    for epoch, rate in enumerate(bar(rates, desc=f"refitting tagger (seed {seed})", unit="epoch",
                                     enabled=progress), start=1):
        for group in optimizer.param_groups:
            group["lr"] = rate
        loss = round(train_epoch(model, optimizer, data, settings.batch_docs, rng, weighting), 4)
        history.append({"epoch": epoch, "lr": rate, "loss": loss, "refit": True})
        log.info("seed %s refit epoch %s: loss %s", seed, epoch, loss)
    return history


def set_transition_prior(crf, ys: list[np.ndarray]) -> None:
    """Set the CRF's start, transition and end scores to the log-probabilities of the training label
    sequences `ys` (add-one smoothed), in place of torchcrf's small random start."""
    import torch

    n = crf.num_tags
    starts, ends, pairs = np.ones(n), np.ones(n), np.ones((n, n))
    for y in filter(len, ys):
        starts[y[0]] += 1
        ends[y[-1]] += 1
        np.add.at(pairs, (y[:-1], y[1:]), 1)
    with torch.no_grad():
        crf.start_transitions.copy_(torch.from_numpy(np.log(starts / starts.sum())))
        crf.end_transitions.copy_(torch.from_numpy(np.log(ends / ends.sum())))
        crf.transitions.copy_(torch.from_numpy(np.log(pairs / pairs.sum(axis=1, keepdims=True))))


def loss_weighting(ys: list[np.ndarray], n_labels: int, rare_weight: float) -> dict:
    """Keyword arguments of the tagger's loss for the class-weighted objective ({} when it is off)."""
    from baselines.tasks.rr.objectives import balanced_weights, checked_weight

    if checked_weight("rare_weight", rare_weight) == 0:
        return {}
    return {"class_weights": balanced_weights(ys, n_labels), "rare_weight": rare_weight}


def train_epoch(model, optimizer, data: Sequences, batch_docs: int, rng: np.random.Generator,
                weighting: dict | None = None) -> float:
    """One pass over the training sequences; the mean loss per sequence (`weighting`: see loss_weighting)."""
    import torch

    model.train()
    total = 0.0
    for x, y, lengths, _ in batches(data.xs, data.ys, epoch_order(data.xs, rng, batch_docs), batch_docs):
        optimizer.zero_grad()
        loss = model.loss(x, y, lengths, **(weighting or {}))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()
        total += float(loss.detach()) * len(lengths)
    return total / len(data.xs)


def validation_score(model, data: Sequences, batch_docs: int, loss: float) -> float:
    """Weighted F1 of the decoded validation documents (4 decimals, decoded `batch_docs` at a time); minus
    `loss` without validation documents."""
    from sklearn.metrics import f1_score

    if not data.val_xs:
        return -loss
    n_labels = model.crf.num_tags
    decoded = decode_documents(model, data.val_xs, batch_docs, n_labels, marginals=False)
    predicted = np.concatenate([path for path, _ in decoded])
    return round(float(f1_score(np.concatenate(data.val_ys), predicted, average="weighted")), 4)


def epoch_order(xs: list[np.ndarray], rng: np.random.Generator, batch_docs: int) -> list[int]:
    """Sequences ordered so that batches hold similar lengths (less padding); the batch order shuffled."""
    noisy = sorted(range(len(xs)), key=lambda i: len(xs[i]) + rng.uniform(0, 40))
    groups = [noisy[k:k + batch_docs] for k in range(0, len(noisy), batch_docs)]
    return [i for g in rng.permutation(len(groups)).tolist() for i in groups[g]]
