"""The torch network of the BiLSTM-CRF tagger: sentence features -> BiLSTM over a document -> CRF.

Also what every use of the network shares: its shape, padded batches, decoding many documents, and
the number of torch threads. Training lives in trainer.py, ensembles in ensemble.py.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torchcrf import CRF

from baselines.core.params import Range
from baselines.tasks.rr.objectives import checked_weight, label_shift_loss, shift_head, weighted_emission_loss


@dataclass
class NetworkShape:
    """The size of one tagger (parameters of the tagger)."""

    PARAMETER_RULES = {"dropout": Range(0, 1, below=True)}  # see baselines.core.params; shift_weight: at least 0

    projection: int = 256  # sentence features are first projected to this width
    hidden: int = 128  # LSTM width per direction
    layers: int = 1
    dropout: float = 0.4
    shift_weight: float = 0.0  # > 0: the label-shift auxiliary objective (objectives.py) with this weight


class CrfDecoding:
    """Viterbi paths and marginals from `self.emissions` and `self.crf` (a tagger or an ensemble of them)."""

    def decode(self, x: torch.Tensor, lengths: torch.Tensor, marginals: bool = True) -> tuple[list, list]:
        """Viterbi label ids and per-sentence marginal probabilities (T_i, L) (or None) of each document."""
        scores = self.emissions(x, lengths)  # (B, T, L)
        mask = padding_mask(lengths, x.shape[1])
        paths = self.crf.decode(scores, mask=mask)
        if not marginals:
            return paths, [None] * len(paths)
        return paths, [crf_marginals(self.crf, scores[b, :int(n)]).numpy() for b, n in enumerate(lengths)]


class BiLstmCrf(CrfDecoding, nn.Module):
    """Emission scores from a bidirectional LSTM over sentence vectors; label transitions from a CRF.

    The two directions are separate LSTMs over padded batches, the backward one on each document reversed
    within its own length, so padding never reaches a real position (and no packed sequences are needed).
    """

    def __init__(self, n_features: int, n_labels: int, projection: int, hidden: int, layers: int, dropout: float,
                 shift_weight: float = 0.0):
        super().__init__()
        self.project = nn.Sequential(nn.Dropout(dropout), nn.Linear(n_features, projection), nn.ReLU())
        between = dropout if layers > 1 else 0.0
        self.forward_lstm = nn.LSTM(projection, hidden, num_layers=layers, batch_first=True, dropout=between)
        self.backward_lstm = nn.LSTM(projection, hidden, num_layers=layers, batch_first=True, dropout=between)
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(2 * hidden, n_labels)
        self.crf = CRF(n_labels, batch_first=True)
        self.shift_weight = checked_weight("shift_weight", shift_weight)
        self.shift = shift_head(hidden) if shift_weight > 0 else None

    def states(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """x (B, T, F) padded documents, lengths (B,) -> BiLSTM states (B, T, 2H)."""
        h = self.project(x)  # (B, T, P)
        flip = reverse_index(lengths, x.shape[1])  # (B, T)
        ahead, _ = self.forward_lstm(h)  # (B, T, H)
        back, _ = self.backward_lstm(gather_time(h, flip))  # (B, T, H), documents reversed
        return torch.cat([ahead, gather_time(back, flip)], dim=2)  # (B, T, 2H)

    def emissions(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """x (B, T, F) padded documents, lengths (B,) -> emission scores (B, T, L)."""
        return self.out(self.drop(self.states(x, lengths)))  # (B, T, L)

    def loss(self, x: torch.Tensor, y: torch.Tensor, lengths: torch.Tensor,
             class_weights: torch.Tensor | None = None, rare_weight: float = 0.0) -> torch.Tensor:
        """Mean negative log-likelihood per document, plus the auxiliary objectives that are switched on;
        y (B, T) label ids (padding ignored), class_weights (L,) for the weighted emission loss."""
        mask = padding_mask(lengths, x.shape[1])  # (B, T) bool
        states = self.states(x, lengths)  # (B, T, 2H)
        scores = self.out(self.drop(states))  # (B, T, L)
        total = -self.crf(scores, y, mask=mask, reduction="mean")
        if self.shift is not None:
            total = total + self.shift_weight * label_shift_loss(self.shift, states, y, mask)
        if rare_weight > 0 and class_weights is not None:
            total = total + rare_weight * weighted_emission_loss(scores, y, mask, class_weights)
        return total


def new_tagger(n_features: int, n_labels: int, shape: NetworkShape) -> BiLstmCrf:
    """A freshly initialised tagger (initial weights from torch's global generator)."""
    return BiLstmCrf(n_features, n_labels, shape.projection, shape.hidden, shape.layers, shape.dropout,
                     shape.shift_weight)


class Ensemble(CrfDecoding, nn.Module):
    """Several trained taggers decoded as one: mean emission scores, mean CRF transition scores."""

    def __init__(self, members: list[BiLstmCrf]):
        super().__init__()
        self.members = nn.ModuleList(members)
        n_labels = members[0].crf.num_tags
        self.crf = CRF(n_labels, batch_first=True)
        with torch.no_grad():
            for name in ("start_transitions", "end_transitions", "transitions"):
                getattr(self.crf, name).copy_(torch.stack([getattr(m.crf, name) for m in members]).mean(0))

    def emissions(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """x (B, T, F) -> mean emission scores of the members (B, T, L)."""
        return torch.stack([m.emissions(x, lengths) for m in self.members]).mean(0)

    @classmethod
    def from_state_dict(cls, state: dict, members: int, n_features: int, n_labels: int,
                        shape: NetworkShape) -> "Ensemble":
        """An ensemble rebuilt through its constructor, then given the saved weights (eval mode)."""
        ensemble = cls([new_tagger(n_features, n_labels, shape) for _ in range(members)])
        ensemble.load_state_dict(state)
        return ensemble.eval()


class SplitEnsemble(Ensemble):
    """An ensemble whose members each read their own block of the features: x holds the members' features
    side by side, in `widths` columns each (members with their own tuned encoders)."""

    def __init__(self, members: list[BiLstmCrf], widths: list[int]):
        super().__init__(members)
        self.widths = list(widths)

    def emissions(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """x (B, T, sum(widths)) -> mean emission scores of the members (B, T, L), each on its own block."""
        blocks = torch.split(x, self.widths, dim=2)  # each (B, T, width)
        return torch.stack([m.emissions(block, lengths) for m, block in zip(self.members, blocks)]).mean(0)


def reverse_index(lengths: torch.Tensor, width: int) -> torch.Tensor:
    """(B, width) time indexes reversing each row within its length; padding stays in place."""
    steps = torch.arange(width)[None, :]  # (1, T)
    return torch.where(steps < lengths[:, None], lengths[:, None] - 1 - steps, steps)


def gather_time(values: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """values (B, T, D) reordered along time by index (B, T)."""
    return values.gather(1, index[:, :, None].expand(-1, -1, values.shape[2]))


def padding_mask(lengths: torch.Tensor, width: int) -> torch.Tensor:
    """(B, width) True where a position is inside its document."""
    return torch.arange(width)[None, :] < lengths[:, None]


def crf_marginals(crf: CRF, scores: torch.Tensor) -> torch.Tensor:
    """Forward-backward posterior P(label at t) of one document; scores (T, L) -> (T, L)."""
    steps, _ = scores.shape
    trans = crf.transitions  # (L, L): from row label to column label
    alpha = [crf.start_transitions + scores[0]]  # each (L,)
    for t in range(1, steps):
        alpha.append(torch.logsumexp(alpha[-1][:, None] + trans, dim=0) + scores[t])
    beta = [crf.end_transitions]
    for t in range(steps - 1, 0, -1):
        beta.append(torch.logsumexp(trans + (scores[t] + beta[-1])[None, :], dim=1))
    beta.reverse()
    log_post = torch.stack(alpha) + torch.stack(beta)  # (T, L)
    return torch.softmax(log_post, dim=1)


def batches(features: list[np.ndarray], labels: list[np.ndarray] | None, order: list[int], size: int):
    """Padded tensors per batch of documents: x (B, T, F), y (B, T) or None, lengths (B,), indexes."""
    for begin in range(0, len(order), size):
        chosen = order[begin:begin + size]
        lengths = torch.tensor([len(features[i]) for i in chosen], dtype=torch.long)
        width, dim = int(lengths.max()), features[chosen[0]].shape[1]
        x = torch.zeros(len(chosen), width, dim)  # (B, T, F)
        y = torch.zeros(len(chosen), width, dtype=torch.long) if labels is not None else None  # (B, T)
        for row, i in enumerate(chosen):
            x[row, :len(features[i])] = torch.from_numpy(features[i])
            if y is not None:
                y[row, :len(labels[i])] = torch.from_numpy(labels[i])
        yield x, y, lengths, chosen


def decode_documents(model, feats: list[np.ndarray], batch_docs: int, n_labels: int,
                     marginals: bool = True) -> list[tuple]:
    """(label ids, marginals or None) per document, in the given order; documents batched by length."""
    model.eval()
    out: list = [None] * len(feats)
    nonempty = [i for i in range(len(feats)) if len(feats[i])]
    order = sorted(nonempty, key=lambda i: len(feats[i]))
    with torch.no_grad():
        for x, _, lengths, chosen in batches(feats, None, order, batch_docs):
            paths, posteriors = model.decode(x, lengths, marginals)
            for i, path, marginal in zip(chosen, paths, posteriors):
                out[i] = (np.array(path, dtype=np.int64), marginal)
    empty = (np.zeros(0, dtype=np.int64), np.zeros((0, n_labels)))
    return [o if o is not None else empty for o in out]


@contextlib.contextmanager
def torch_threads(count: int):
    """Run with `count` torch threads, restoring the previous setting after (small recurrent batches:
    one thread is as fast as several and gives the same numbers run to run)."""
    before = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)
