"""Mention models of the entity tasks: a conditional logit over each example's choices, fit on train only.

Each (example, choice) pair is described by the choice's mention features (aliases.Matcher), a summary of
the whole example (log mentions of each kind of choice), and the log train prior of the choice; all but the
prior are interacted with the choice's kind (court of appeals, district court, state court, other named
choice, choice without alias), so one weight vector serves every choice list of a family of tasks.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from baselines.core.records import ChoiceItem
from baselines.tasks.caselawqa.aliases import ENTITY_TASKS, N_FEATURES, Matcher, family, mention_features
from baselines.tasks.caselawqa.common import by_task, opinion_keys, train_shares
from baselines.tasks.caselawqa.windows import chunked_map

KINDS = ("circuit", "district", "statecourt", "other", "none")
BLOCK = N_FEATURES + 2 * len(KINDS) + 1  # mention features, example summary, bias
N_COLUMNS = len(KINDS) * BLOCK + 1  # + the log train prior


def choice_kinds(choices: list[str], matcher: Matcher) -> np.ndarray:
    """The kind (index into KINDS) of each choice."""
    kinds = []
    for i, choice in enumerate(choices):
        if not matcher.has_alias[i]:
            kinds.append(4)
        elif "Circuit" in choice and "Court of Appeals" in choice:
            kinds.append(0)
        elif "District Court" in choice:
            kinds.append(1)
        elif choice.startswith("State ") and "Court" in choice:
            kinds.append(2)
        else:
            kinds.append(3)
    return np.array(kinds, dtype=np.int64)


def design(features: np.ndarray, kinds: np.ndarray, log_prior: np.ndarray) -> np.ndarray:
    """(n_choices, N_COLUMNS) rows of one example from its (n_choices, N_FEATURES) mention features."""
    summary = np.zeros(2 * len(KINDS), dtype=np.float32)
    for kind in range(len(KINDS)):
        chosen = kinds == kind
        if chosen.any():
            summary[2 * kind] = np.log1p(np.expm1(features[chosen, 0]).sum())
            summary[2 * kind + 1] = np.log1p(np.expm1(features[chosen, 1]).sum())
    block = np.hstack([features, np.broadcast_to(summary, (len(features), len(summary))),
                       np.ones((len(features), 1), dtype=np.float32)])
    X = np.zeros((len(features), N_COLUMNS), dtype=np.float32)
    for kind in range(len(KINDS)):
        chosen = kinds == kind
        X[chosen, kind * BLOCK:(kind + 1) * BLOCK] = block[chosen]
    X[:, -1] = log_prior
    return X


def fit_conditional_logit(groups: list[tuple[np.ndarray, int]], l2: float = 1.0, max_iter: int = 300) -> np.ndarray:
    """Weights maximising sum log softmax(X @ w)[gold] - l2/2 |w|^2 over (X (n_choices, d), gold index) groups."""
    import scipy.sparse as sp
    from scipy.optimize import minimize

    if not groups:
        return np.zeros(N_COLUMNS)
    X = sp.csr_matrix(np.vstack([x for x, _ in groups]), dtype=np.float64)  # a row has one kind's block: sparse
    sizes = np.array([len(x) for x, _ in groups])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    gold = starts + np.array([g for _, g in groups])
    owner = np.repeat(np.arange(len(groups)), sizes)

    def loss(w):
        z = X @ w
        z -= np.maximum.reduceat(z, starts)[owner]
        e = np.exp(z)
        total = np.add.reduceat(e, starts)
        p = e / total[owner]
        p[gold] -= 1.0  # softmax minus the gold indicator: the gradient of the negative log-likelihood in z
        value = -(z[gold] - np.log(total)).sum() + 0.5 * l2 * w @ w
        return value, X.T @ p + l2 * w

    return minimize(loss, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B", options={"maxiter": max_iter}).x


@lru_cache(maxsize=32)
def matcher_for(task: str, choices: tuple[str, ...]) -> tuple[Matcher, np.ndarray]:
    """The Matcher of a task's choices and the kind of each choice (the state tasks share one)."""
    matcher = Matcher(task, list(choices))
    return matcher, choice_kinds(list(choices), matcher)


def _counts_of(texts: list[str], task: str, choices: tuple[str, ...]) -> list[np.ndarray]:
    matcher, _ = matcher_for(task, choices)
    return [matcher.counts(text) for text in texts]


def mention_counts(records: list[ChoiceItem], roles: dict, n_jobs: int = 1) -> list[np.ndarray | None]:
    """Per record: its opinion's (n_choices, 3) mention counts under the aliases of the entity task its task is
    (`roles`: task -> the known task it is, recognise.py; None outside the entity tasks); each opinion is read
    once per family of tasks."""
    keys = opinion_keys(records)
    wanted: dict[tuple, dict[str, str]] = {}  # (family, choices) -> opinion key -> text
    task_of: dict[tuple, str] = {}
    for item, key in zip(records, keys):
        role = roles.get(item.group)
        if role in ENTITY_TASKS:
            index = (family(role), tuple(item.choices))
            wanted.setdefault(index, {})[key] = item.context
            task_of.setdefault(index, role)
    found: dict[tuple, np.ndarray] = {}
    for index, texts in wanted.items():
        counted = chunked_map(_counts_of, list(texts.values()), n_jobs, task_of[index], index[1])
        found.update({(*index, key): c for key, c in zip(texts, counted)})
    return [found.get((family(roles.get(item.group) or ""), tuple(item.choices), key))
            for item, key in zip(records, keys)]


def log_priors(train: list[ChoiceItem], roles: dict) -> dict[str, np.ndarray]:
    """Task that is an entity task -> log train share of each choice (first answers, +0.5 smoothing)."""
    return {task: np.log(train_shares([item.answer[0] for item in items], len(items[0].choices)))
            for task, items in sorted(by_task(train).items()) if roles.get(task) in ENTITY_TASKS}


def design_of(item: ChoiceItem, counts: np.ndarray, priors: dict, roles: dict) -> np.ndarray:
    _, kinds = matcher_for(roles[item.group], tuple(item.choices))
    return design(mention_features(counts), kinds, priors[item.group])


def fit_mention_models(train: list[ChoiceItem], counts: list, priors: dict, roles: dict,
                       l2: float) -> dict[str, np.ndarray]:
    """Family -> conditional-logit weights, fit on the training examples of the family's tasks."""
    groups: dict[str, list] = {}
    for item, c in zip(train, counts):
        if c is not None and item.group in priors:
            groups.setdefault(family(roles[item.group]), []).append((design_of(item, c, priors, roles),
                                                                     item.answer[0]))
    return {name: fit_conditional_logit(rows, l2) for name, rows in sorted(groups.items())}


def mention_logits(item: ChoiceItem, counts, priors: dict, models: dict, roles: dict) -> np.ndarray | None:
    """(n_choices,) mention-model logits of one example; None where its task has no mention model."""
    role = roles.get(item.group)
    if counts is None or item.group not in priors or role is None or family(role) not in models:
        return None
    return design_of(item, counts, priors, roles) @ models[family(role)]
