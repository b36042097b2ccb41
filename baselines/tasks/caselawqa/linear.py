"""CaselawQA `linear`: TF-IDF of each opinion (computed once, shared by all tasks) -> one linear head per task."""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from baselines.core.errors import BaselinesError
from baselines.core.params import OneOf
from baselines.core.records import ChoiceItem
from baselines.methods.base import Method, params_of
from baselines.tasks.caselawqa.common import BACKENDS, by_task, prediction_rows, run_parallel, unique_opinions
from baselines.tasks.caselawqa.features import TfidfFeatures, TfidfSpec, cached_fit, cached_transform
from baselines.tasks.caselawqa.heads import HeadConfig, fit_head_scored
from baselines.tasks.caselawqa.recognise import TaskPaths, recognise
from baselines.methods.plain_state import load_state_file, save_plain


def head_config(method: HeadConfig) -> HeadConfig:
    """The head hyperparameters of a method, alone (what each per-task job is sent)."""
    return replace(params_of(HeadConfig, method), Cs=tuple(method.Cs), class_weights=tuple(method.class_weights))


def fit_heads(method, train: list[ChoiceItem], val: list[ChoiceItem] | None, X_train, rows_train,
              X_val=None, rows_val=None) -> dict:
    """Task -> fitted Head, one job per task, run with the method's joblib/Dask settings."""
    return fit_heads_scored(method, train, val, X_train, rows_train, X_val, rows_val)[0]


def fit_heads_scored(method, train: list[ChoiceItem], val: list[ChoiceItem] | None, X_train, rows_train,
                     X_val=None, rows_val=None, config: HeadConfig | None = None,
                     desc: str = "fitting per-task heads") -> tuple[dict, dict]:
    """(task -> fitted Head, task -> val scores of its chosen setting in val order, see fit_head_scored), one job
    per task, run with the method's joblib/Dask settings; `config` defaults to the method's head parameters; `desc`
    names the stage (each of a method's stages its own name)."""
    from joblib import delayed

    config = config or head_config(method)
    val_groups = by_task(list(zip(val or [], rows_val or [])), key=lambda pair: pair[0].group)
    train_groups = by_task(list(zip(train, rows_train)), key=lambda pair: pair[0].group)

    on_cluster = method.backend == "dask"  # each worker gets the matrices once, and each job only its rows

    def job(task, pairs):
        items, rows = [p[0] for p in pairs], [p[1] for p in pairs]
        val_pairs = val_groups.get(task, [])
        val_rows = [p[1] for p in val_pairs]
        answers, val_answers = [i.answer for i in items], [p[0].answer for p in val_pairs]
        if on_cluster:
            return delayed(fit_head_rows)(task, len(items[0].choices), config, X_train, rows, answers,
                                          X_val if val_pairs else None, val_rows, val_answers)
        Xv = X_val[val_rows] if val_pairs else None
        return delayed(fit_head_scored)(task, len(items[0].choices), config, X_train[rows], answers, Xv, val_answers)

    def cost(entry):  # largest jobs first, so the last jobs to finish are short ones
        pairs = entry[1]
        return -len(pairs) * len({a for p in pairs for a in p[0].answer})

    ordered = sorted(train_groups.items(), key=cost)
    fitted = run_parallel((job(task, pairs) for task, pairs in ordered), n_jobs=method.n_jobs, backend=method.backend,
                          scheduler=method.scheduler, total=len(train_groups), desc=desc,
                          weights=[len(pairs) for _, pairs in ordered],  # the time left follows the examples done
                          shared=[X for X in (X_train, X_val) if X is not None] if on_cluster else ())
    return {head.task: head for head, _ in fitted}, {head.task: scores for head, scores in fitted}


def fit_head_rows(task: str, n_choices: int, config: HeadConfig, X_train, rows: list[int], answers: list,
                  X_val, val_rows: list[int], val_answers: list):
    """fit_head_scored on the task's rows of the shared matrices, cut where it runs (a Dask worker, which holds
    the matrices once for all the tasks it fits)."""
    Xv = X_val[val_rows] if X_val is not None else None
    return fit_head_scored(task, n_choices, config, X_train[rows], answers, Xv, val_answers)


def predict_heads(heads: dict, records: list[ChoiceItem], X, rows: list[int]) -> list[dict]:
    """Rows with per-choice scores; tasks answered by the majority fallback say so."""
    unknown = sorted({item.group for item in records} - set(heads))
    if unknown:
        raise BaselinesError(f"no trained head for task(s) {', '.join(unknown)}; train on those tasks first")
    out = []
    for task, pairs in by_task(list(zip(records, rows)), key=lambda pair: pair[0].group).items():
        head = heads[task]
        scores = head.scores(X[[p[1] for p in pairs]])
        extra = {"fallback": head.chosen["fallback"]} if head.model is None else None
        out.extend(prediction_rows([p[0] for p in pairs], scores, extra))
    return out


def heads_summary(heads: dict) -> dict:
    return {task: {"kind": "majority" if h.model is None else "linear", **h.chosen} for task, h in sorted(heads.items())}


@dataclass
class PerTaskHeads(TaskPaths, HeadConfig, Method):
    """Base of the CaselawQA methods that fit one linear head per task: the HeadConfig parameters, and how
    the per-task jobs run."""

    PARAMETER_RULES = {"backend": OneOf(BACKENDS)}  # see baselines.core.params
    placement_params = ("n_jobs", "backend", "scheduler")  # a training killed here may be resumed there

    n_jobs: int = 2
    backend: str = "loky"  # loky | threading | sequential | dask (with scheduler: tcp://HOST:PORT)
    scheduler: str | None = None


@dataclass
class CaselawLinear(PerTaskHeads, TfidfSpec):
    """Hashed word 1-2-gram TF-IDF of the whole opinion plus its opening and closing passages -> per-task heads.

    Parameters: those of TfidfSpec (the features) and of PerTaskHeads (the heads), with these defaults."""

    Cs: tuple = (0.1, 0.3, 1.0)  # larger C converges slowly: (0.3, 1, 3, 10) takes 3.3 min warm instead of 1.8
    k_features: int = 30000
    cache: bool = True  # keep fitted features and opinion rows on disk (keyed by spec and opinions)

    def _spec(self) -> TfidfSpec:
        return replace(params_of(TfidfSpec, self), view_weights=tuple(self.view_weights))

    def fit(self, train: list[ChoiceItem], val: list[ChoiceItem] | None = None):
        if not train:
            raise BaselinesError(f"{self.name}: no training examples")
        self.roles_ = recognise(train)
        keys, texts, rows = unique_opinions(train)
        self.features_, X_train = cached_fit(texts, keys, self._spec(), self.cache, n_jobs=self.n_jobs)
        X_val = rows_val = None
        if val:
            val_keys, val_texts, rows_val = unique_opinions(val)
            X_val = cached_transform(self.features_, val_texts, val_keys, self.cache)
        self.heads_ = fit_heads(self, train, val, X_train, rows, X_val, rows_val)
        return self

    def predict(self, records: list[ChoiceItem]) -> list[dict]:
        keys, texts, rows = unique_opinions(records)
        self.features_.n_jobs = self.n_jobs
        X = cached_transform(self.features_, texts, keys, self.cache)
        return predict_heads(self.heads_, records, X, rows)

    def save_state(self, folder: Path) -> None:
        save_plain(folder, "state", {"features": self.features_.state(), "heads": self.heads_})
        (folder / "heads.json").write_text(json.dumps(heads_summary(self.heads_), indent=1))

    def load_state(self, folder: Path) -> None:
        state = load_state_file(folder, "state", legacy="state.joblib")
        self.features_, self.heads_ = TfidfFeatures.from_state(state["features"]), state["heads"]
