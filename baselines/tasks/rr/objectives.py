"""Auxiliary training objectives of the BiLSTM-CRF tagger, added to its CRF loss (training only).

- label shift (Malik et al., 2021, "Semantic Segmentation of Legal Documents via Rhetorical Roles"):
  a small head reads the BiLSTM states of two neighbouring sentences and predicts whether their roles
  differ, so the states learn where one role gives way to the next;
- class-weighted cross-entropy on the emission scores, so the rare roles weigh more than their share of
  sentences (weights (n / (L * count)) ** 0.5, the square root of scikit-learn's "balanced").
Both are sums over a document's sentences averaged over documents, the scale of the CRF loss.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn
from torch.nn import functional

from baselines.core.errors import BaselinesError


def checked_weight(name: str, value: float) -> float:
    """`value` when it is a usable objective weight (>= 0; 0 switches the objective off)."""
    if not value >= 0:
        raise BaselinesError(f"{name} must be >= 0 (0 switches it off), got {value}")
    return value


def shift_head(hidden: int) -> nn.Module:
    """Head scoring a role change from the states (2H each) of sentence t-1 and sentence t."""
    return nn.Linear(4 * hidden, 1)


def label_shift_loss(head: nn.Module, states: torch.Tensor, y: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """states (B, T, 2H), y (B, T), mask (B, T) -> mean over documents of the summed shift log-loss."""
    if states.shape[1] < 2:
        return states.sum() * 0.0
    pairs = torch.cat([states[:, :-1], states[:, 1:]], dim=2)  # (B, T-1, 4H)
    logits = head(pairs).squeeze(2)  # (B, T-1)
    changed = (y[:, 1:] != y[:, :-1]).float()  # (B, T-1)
    inside = (mask[:, 1:] & mask[:, :-1]).float()  # (B, T-1)
    losses = functional.binary_cross_entropy_with_logits(logits, changed, reduction="none")  # (B, T-1)
    return (losses * inside).sum() / states.shape[0]


def weighted_emission_loss(scores: torch.Tensor, y: torch.Tensor, mask: torch.Tensor,
                           class_weights: torch.Tensor) -> torch.Tensor:
    """scores (B, T, L), y (B, T), mask (B, T), class_weights (L,) -> mean over documents of summed weighted CE."""
    losses = functional.cross_entropy(scores.transpose(1, 2), y, weight=class_weights, reduction="none")  # (B, T)
    return (losses * mask.float()).sum() / scores.shape[0]


def balanced_weights(ys: list[np.ndarray], n_labels: int) -> torch.Tensor:
    """(L,) class weights (n / (L * count)) ** 0.5 from the training label ids; unseen labels get weight 1."""
    counts = np.bincount(np.concatenate(ys), minlength=n_labels).astype(np.float64)
    weights = np.ones(n_labels)
    seen = counts > 0
    weights[seen] = np.sqrt(counts.sum() / (n_labels * counts[seen]))
    return torch.tensor(weights, dtype=torch.float32)
