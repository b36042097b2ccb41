"""Joint training of the tuned encoder's top layers and the BiLSTM-CRF tagger, document piece by piece.

Each step encodes the sentences of a few document pieces through the trainable top layers (their lower
token states are precomputed), adds the surface features, and back-propagates the tagger's CRF loss into
both. After every epoch the validation documents are decoded; the best epoch, counting the frozen start
as epoch 0, is kept, so tuning never leaves a model worse on validation than the one it started from
(without validation documents, the last epoch is kept). With `tune_average_from` k > 0 the candidate
epochs are replaced by one model: the mean of the weights at the end of epochs k..tune_epochs (the last
epoch alone when there are fewer than k), kept unless the frozen start scores higher on validation (a
mean of nearby points of one trajectory is less noisy than the one epoch a small validation set prefers).
"""
from __future__ import annotations

import copy
import logging
from dataclasses import dataclass

import numpy as np
import torch

from baselines.core.errors import BaselinesError
from baselines.tasks.rr.common import piece_bounds
from baselines.tasks.rr.trainer import Sequences, loss_weighting, validation_score

SCHEDULES = ("constant", "linear")
WARMUP_FRACTION = 0.1  # of all joint steps, for the 'linear' schedule

log = logging.getLogger(__name__)


@dataclass
class JointSettings:
    """How the joint stage trains (parameters of the fine-tuned tagger of the same names)."""

    tune_epochs: int
    encoder_lr: float
    tagger_lr: float
    tune_average_from: int  # k > 0: keep the mean weights of epochs k..tune_epochs; 0: the best epoch
    tune_schedule: str  # one of SCHEDULES
    piece_len: int  # sentences per document piece in a step
    batch_pieces: int  # pieces per step
    rare_weight: float  # class-weighted emission objective (objectives.py); 0 switches it off
    predict_batch_docs: int  # validation documents decoded at a time
    seed: int  # orders the pieces of every epoch


@dataclass
class TuningResult:
    """What the joint stage did: its epoch history and the epoch it kept (a number, or 'mean k-n')."""

    history: list[dict]
    kept_epoch: int | str


@dataclass
class Checkpoint:
    """A candidate for the weights kept: its validation score, the encoder's top layers and the tagger."""

    score: float
    encoder_top: dict  # state_dict of encoder.top
    tagger: dict  # state_dict of the tagger
    epoch: int | str  # the epoch number, or 'mean k-n' for averaged epochs


@dataclass
class EncodedDocuments:
    """Per document: lower token states of its sentences, surface features (n, F) and label ids (n,)."""

    states: list[list[torch.Tensor]]
    surface: list[np.ndarray]
    labels: list[np.ndarray]

    def features(self, encoder, i: int, begin: int = 0, end: int | None = None) -> torch.Tensor:
        """(end - begin, hidden + F) features of sentences begin..end of document i (gradients if enabled)."""
        vectors = encoder.pooled(self.states[i][begin:end])
        return torch.cat([vectors, torch.from_numpy(self.surface[i][begin:end])], dim=1)

    def joined(self, other: "EncodedDocuments") -> "EncodedDocuments":
        """These documents followed by `other`'s."""
        return EncodedDocuments(self.states + other.states, self.surface + other.surface, self.labels + other.labels)

    def all_features(self, encoder, progress: bool = True) -> list[np.ndarray]:
        """Every document's features as arrays, without gradients (a bar over the sentences: with every layer
        tuned this is a whole encoder pass)."""
        from baselines.core.progress import bar as progress_bar

        encoder.eval()
        arrays = []
        with torch.no_grad(), progress_bar(total=sum(map(len, self.states)), desc="sentences through the tuned layers",
                                           unit="sentence", enabled=progress) as bar:
            for i, states in enumerate(self.states):
                arrays.append(self.features(encoder, i).numpy() if states else
                              np.zeros((0, encoder.dimension + self.surface[i].shape[1]), dtype=np.float32))
                bar.update(len(states))
        return arrays


def tune_jointly(encoder, tagger, fit: EncodedDocuments, val: EncodedDocuments, settings: JointSettings,
                 progress: bool = True) -> TuningResult:
    """Train encoder.top and `tagger` together for settings.tune_epochs epochs; keep the mean of the later
    epochs or the best epoch, as the module says, and leave both modules with the weights kept."""
    from baselines.core.progress import bar as progress_bar

    optimizer = torch.optim.AdamW([{"params": encoder.top.parameters(), "lr": settings.encoder_lr},
                                   {"params": tagger.parameters(), "lr": settings.tagger_lr}], weight_decay=0.01)
    rng = np.random.default_rng(settings.seed)
    work = piece_bounds([len(states) for states in fit.states], settings.piece_len)
    steps = -(-len(work) // settings.batch_pieces) * settings.tune_epochs
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule(settings.tune_schedule, steps))
    best = _checkpoint(_score(encoder, tagger, val, settings), encoder, tagger, 0)
    history = [_scored({"epoch": 0}, best.score, val)]
    averaging = settings.tune_average_from > 0 and settings.tune_epochs > 0
    average_from = min(settings.tune_average_from, settings.tune_epochs) if averaging else None
    average = WeightAverage()
    weighting = loss_weighting(fit.labels, tagger.crf.num_tags, settings.rare_weight)
    total = sum(end - begin for _, begin, end in work)
    for epoch in range(1, settings.tune_epochs + 1):
        order = [work[k] for k in rng.permutation(len(work))]
        with progress_bar(total=total, desc=f"tuning epoch {epoch}/{settings.tune_epochs}", unit="sentence",
                          enabled=progress) as bar:
            loss = _epoch(encoder, tagger, scheduler, fit, order, settings.batch_pieces, bar, weighting)
        score = _score(encoder, tagger, val, settings)
        history.append(_scored({"epoch": epoch, "loss": round(loss, 4)}, score, val))
        log.info("tuning epoch %s: loss %.4f, %s", epoch, loss, _validation_text(score, val))
        if average_from is not None and epoch >= average_from:
            average.add(encoder.top, tagger)
        elif average_from is None and (score > best.score or not val.states):  # no validation: the last epoch
            best = _checkpoint(score, encoder, tagger, epoch)
    if average_from is not None:
        best = _averaged_or_start(average, f"mean {average_from}-{settings.tune_epochs}", encoder, tagger, val,
                                  settings, best, history)
    encoder.top.load_state_dict(best.encoder_top)
    tagger.load_state_dict(best.tagger)
    return TuningResult(history, best.epoch)


def _scored(entry: dict, score: float, val: EncodedDocuments) -> dict:
    """A history entry with its validation weighted F1, when there are validation documents to score."""
    return {**entry, "val_weighted_f1": score} if val.states else entry


def _validation_text(score: float, val: EncodedDocuments) -> str:
    """What a log line says of validation: the weighted F1, or that there are no validation documents."""
    return f"val weighted F1 {score}" if val.states else "no validation documents"


def _checkpoint(score: float, encoder, tagger, epoch: int | str) -> Checkpoint:
    """The current weights of encoder.top and `tagger` (copies), with their score and epoch."""
    return Checkpoint(score, copy.deepcopy(encoder.top.state_dict()), copy.deepcopy(tagger.state_dict()), epoch)


class WeightAverage:
    """Running mean of the weights of some modules over the points it is given (float32 sums)."""

    def __init__(self):
        self.sums: list[dict] | None = None
        self.count = 0

    def add(self, *modules) -> None:
        states = [{k: v.detach().float().clone() for k, v in m.state_dict().items()} for m in modules]
        if self.sums is None:
            self.sums = states
        else:
            for total, state in zip(self.sums, states):
                for key, value in state.items():
                    total[key] += value
        self.count += 1

    def mean_states(self, *modules) -> list[dict]:
        """The mean state_dict of each module, in each entry's own dtype."""
        return [{k: (total[k] / self.count).to(v.dtype) for k, v in m.state_dict().items()}
                for m, total in zip(modules, self.sums)]


def _averaged_or_start(average: WeightAverage, label: str, encoder, tagger, val: EncodedDocuments,
                       settings: JointSettings, start: Checkpoint, history: list[dict]) -> Checkpoint:
    """The averaged epochs as a Checkpoint of epoch `label`, unless the frozen start (`start`) scores higher
    on validation; the average's score is added to `history` under `label`."""
    top, tags = average.mean_states(encoder.top, tagger)
    encoder.top.load_state_dict(top)
    tagger.load_state_dict(tags)
    score = _score(encoder, tagger, val, settings)
    history.append(_scored({"epoch": label}, score, val))
    log.info("%s: %s", label, _validation_text(score, val))
    return start if val.states and start.score > score else Checkpoint(score, top, tags, label)


def checked_schedule(name: str) -> str:
    """`name` when it is a known learning-rate schedule of the joint stage."""
    if name not in SCHEDULES:
        raise BaselinesError(f"tune_schedule must be one of {', '.join(SCHEDULES)}, got {name!r}")
    return name


def schedule(name: str, steps: int):
    """Learning-rate factor by step: 1 throughout ('constant'), or a linear warm-up over WARMUP_FRACTION
    of the `steps` followed by a linear decay to 0 at the last step ('linear')."""
    if checked_schedule(name) == "constant":
        return lambda step: 1.0
    warmup = max(1, int(WARMUP_FRACTION * steps))
    return lambda step: (step + 1) / warmup if step < warmup else max(0.0, (steps - step) / max(1, steps - warmup))


def _epoch(encoder, tagger, scheduler, fit: EncodedDocuments, order: list, batch_pieces: int, bar,
           weighting: dict) -> float:
    """One pass over the pieces in `order`, one step of the scheduler's optimizer and of the scheduler per
    batch; the mean training loss (CRF plus any auxiliary) per piece."""
    optimizer = scheduler.optimizer
    encoder.train()
    tagger.train()
    total = 0.0
    for begin in range(0, len(order), batch_pieces):
        chosen = order[begin:begin + batch_pieces]
        feats = [fit.features(encoder, i, b, e) for i, b, e in chosen]  # each (n, F)
        lengths = torch.tensor([len(f) for f in feats])
        x = torch.nn.utils.rnn.pad_sequence(feats, batch_first=True)  # (B, T, F)
        y = torch.nn.utils.rnn.pad_sequence([torch.from_numpy(fit.labels[i][b:e]) for i, b, e in chosen],
                                            batch_first=True)  # (B, T)
        loss = tagger.loss(x, y, lengths, **weighting)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_([*encoder.top.parameters(), *tagger.parameters()], 5.0)
        optimizer.step()
        scheduler.step()
        total += float(loss.detach()) * len(chosen)
        bar.update(int(lengths.sum()))
    return total / max(len(order), 1)


def _score(encoder, tagger, val: EncodedDocuments, settings: JointSettings) -> float:
    """Validation weighted F1 of the current encoder and tagger."""
    val_data = Sequences([], [], val.all_features(encoder), val.labels)
    return validation_score(tagger, val_data, settings.predict_batch_docs, 0.0)
