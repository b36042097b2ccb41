"""Tasks read together: out-of-fold answer distributions of some tasks as features of another task's head.

For the tasks of dependencies.DEPENDENCIES, a stacked head reads, for the same opinion, the answer
distributions of its sources (and its own), the outer products of the declared pairs, and the tags of its
reasons readers. A source's distribution is its `readers` answer: its heads on the words, the windows and the
reader views combined with the weights chosen on val (the mention lever apart; stacked.py). A stacked head is
fit on distributions no head of the source saw the label of:

- train and val: cross-fitted. The opinions of train and val are dealt into `folds` folds (by a seeded hash
  of the opinion's content, so the examples of one opinion in every task fall in one fold, whatever order or
  layout they were read from); an opinion's distribution comes
  from the source's heads (each the setting it chose on val) fit on the examples of the other folds. The
  stacked head is fit on the train opinions' features, weighted on the val opinions', then refit on both;
- predicting: from the heads the model keeps (fit on train + val, as every head), combined with the weights the
  sources had when the stacked heads were fit (choosing the stacked view's weight later moves them).

The features of an opinion are computed from that opinion alone, whichever other tasks or records are asked
for with it, so a prediction never depends on the other records predicted with it. No test label is read.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from baselines.tasks.caselawqa.combine import TaskParts, Weights, softmax, task_scores
from baselines.tasks.caselawqa.common import majority_choice
from baselines.tasks.caselawqa.dependencies import Inputs
from baselines.tasks.caselawqa.heads import Head, HeadConfig, _fit


def opinion_folds(keys: list[str], folds: int, seed: int = 0) -> np.ndarray:
    """(n_opinions,) the fold of each opinion, from its content key (common.opinion_keys) alone: the same
    opinion falls in the same fold whatever the order the examples were read in (a layout's task order) and
    whichever other opinions are there."""
    import hashlib

    return np.array([int(hashlib.sha1(f"{seed}:{key}".encode()).hexdigest()[:12], 16) % folds for key in keys],
                    dtype=np.int64)


def head_like(head: Head, config: HeadConfig, X, answers: list[list[int]]) -> Head:
    """A head of `head`'s chosen setting (C, class weight) fit on X and answers; its majority answer where it is a
    majority head or only one answer is seen."""
    counts = Counter(a for answer in answers for a in answer)
    fitted = Head(head.task, head.n_choices, majority_choice(counts, head.n_choices))
    if head.model is not None and len(counts) > 1:
        fitted.columns, fitted.model, fitted.classes = _fit(config, X, answers, head.chosen["C"],
                                                            head.chosen["class_weight"])
    return fitted


def cross_fitted(head: Head, config: HeadConfig, X, example_rows: list[int], answers: list[list[int]],
                 fold: np.ndarray) -> np.ndarray:
    """(n_opinions, n_choices) out-of-fold scores of a head of `head`'s setting over the opinions of `X` (`fold`:
    theirs): each fold's from a head fit on the examples of the other folds' opinions. `example_rows`: the
    opinion row of each of the task's examples, `answers` their answers."""
    rows = np.asarray(example_rows)
    out_of_fold = np.zeros((X.shape[0], head.n_choices))
    for k in range(int(fold.max()) + 1):
        keep = fold[rows] != k
        held_out = np.flatnonzero(fold == k)
        fitted = head_like(head, config, X[rows[keep]], [a for a, kept in zip(answers, keep) if kept])
        out_of_fold[held_out] = fitted.scores(X[held_out])
    return out_of_fold


def source_distribution(components: dict, weights: Weights, shift: np.ndarray | None) -> np.ndarray:
    """(n, n_choices) a source's answer distribution: its component scores (`components`: "words", "windows" or
    a reader view -> (n, n_choices)) combined with its weights and prior correction, as combine.task_scores
    does, the mention lever and the confident rule apart."""
    n, width = next(iter(components.values())).shape
    parts = TaskParts(head=components.get("words", np.ones((n, width))), windows=components.get("windows"),
                      shift=shift, readers={view: s for view, s in components.items() if view not in ("words", "windows")})
    return softmax(task_scores(parts, replace(weights, mentions=0.0, confident=0.0)))


def component_weights(weights: Weights) -> list[str]:
    """The components a source's distribution is made of: those its weights use ("words", "windows", views)."""
    used = ["words"] * bool(weights.head) + ["windows"] * bool(weights.windows)
    used += sorted(view for view, weight in weights.readers.items() if weight and view != "stacked")
    return used or ["words"]  # a task answered by its prior alone: its words head stands for it


def stack_matrix(task: str, inputs: Inputs, sources: dict, readers: dict, rows) -> sp.csr_matrix:
    """The stacked features of the opinions at `rows`: the task's own and its sources' distributions (`sources`:
    task -> (n_opinions, n_choices)), the outer product of each declared pair, and its readers' tags (`readers`:
    reader -> (n_opinions, n_tags) sparse)."""
    rows = np.asarray(rows, dtype=np.int64)
    dense = [sources[name][rows] for name in (task, *inputs.sources)]
    for a, b in inputs.crosses:
        left, right = sources[a][rows], sources[b][rows]
        dense.append(np.einsum("ni,nj->nij", left, right).reshape(len(rows), -1))  # (n, n_a * n_b)
    parts = [sp.csr_matrix(np.hstack(dense).astype(np.float32))]
    parts += [readers[name][rows] for name in inputs.readers]
    return sp.hstack(parts, format="csr", dtype=np.float32)
