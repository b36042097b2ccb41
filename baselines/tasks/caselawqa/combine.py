"""Combining a task's signals into one score per choice (with weights chosen on val, see choose.py).

score = h_task * log p_head + w_family * mention_logit + v_task * log p_windows + alpha * prior_shift
        + sum over reader views r of u_task,r * log p_r (readers.py; none in `signals`);
then, for the entity tasks, the rule "mention model when confident": where the mention model gives its top
choice a probability above tau_family, the score is the mention model's log probabilities.

prior_shift moves each task from train's class balance to the one documented for the evaluation splits:
Lawma capped every task's majority class at half of the examples (train here is not capped). With p the
train class shares and q the same shares with the majority capped at one half, prior_shift = log q - log p.
It relies on how the evaluation splits were built, not on anything an opinion says.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from baselines.tasks.caselawqa.common import capped_weights, train_shares

FLOOR = 1e-6  # probabilities are floored before their log


@dataclass
class TaskParts:
    """The signals of one task's examples: head probabilities, window-head probabilities, mention logits."""

    head: np.ndarray
    windows: np.ndarray | None = None
    mentions: np.ndarray | None = None
    shift: np.ndarray | None = None  # (n_choices,) prior correction
    readers: dict = field(default_factory=dict)  # reader view -> (n, n_choices) probabilities of its head


@dataclass
class Weights:
    """The weights of one task (chosen on val)."""

    head: float = 1.0
    mentions: float = 0.0
    windows: float = 0.0
    prior: float = 0.0
    confident: float = 0.0  # tau: the mention model's answer where its top probability exceeds tau (0: never)
    readers: dict = field(default_factory=dict)  # reader view -> its weight (absent: 0)
    val: dict = field(default_factory=dict)


def prior_shift(first_answers: list[int], n_choices: int) -> np.ndarray:
    """log q - log p: p the train class shares (+0.5 smoothing), q the same with the majority capped at one half."""
    p = train_shares(first_answers, n_choices)
    top = int(np.argmax(p))
    if p[top] <= 0.5:
        return np.zeros(n_choices)
    q = p * 0.5 / (1 - p[top])
    q[top] = 0.5
    return np.log(q) - np.log(p)


def _log(p: np.ndarray) -> np.ndarray:
    return np.log(np.maximum(p, FLOOR))


def task_scores(parts: TaskParts, weights: Weights) -> np.ndarray:
    """(n, n_choices) combined scores of one task, before the confident rule."""
    z = weights.head * _log(parts.head)
    if parts.mentions is not None and weights.mentions:
        z = z + weights.mentions * parts.mentions
    if parts.windows is not None and weights.windows:
        z = z + weights.windows * _log(parts.windows)
    if parts.shift is not None and weights.prior:
        z = z + weights.prior * parts.shift
    for view, probabilities in parts.readers.items():
        if weights.readers.get(view):
            z = z + weights.readers[view] * _log(probabilities)
    return z


def confident_rule(z: np.ndarray, parts: TaskParts, tau: float) -> np.ndarray:
    """`z` with the rows where the mention model is confident (top probability above tau) replaced by its log
    probabilities."""
    if parts.mentions is None or not tau:
        return z
    mentions = softmax(parts.mentions)
    sure = mentions.max(axis=1) > tau
    if not sure.any():
        return z
    z = z.copy()
    z[sure] = _log(mentions[sure])
    return z


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def combined_scores(parts: dict, weights: dict) -> dict:
    """Task -> (n, n_choices) final scores."""
    scores = {task: task_scores(p, weights.get(task, Weights())) for task, p in parts.items()}
    return {task: confident_rule(z, parts[task], weights.get(task, Weights()).confident) for task, z in scores.items()}


def weighted_accuracy(scores: np.ndarray, answers: list[list[int]], cap: bool = True) -> float:
    hits = np.array([int(np.argmax(s)) in a for s, a in zip(scores, answers)], dtype=np.float64)
    weights = capped_weights([a[0] for a in answers]) if cap else np.ones(len(answers))
    return float((hits * weights).sum() / weights.sum())
