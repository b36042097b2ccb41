"""CaselawQA `signals`: the `linear` heads plus what the opinion says where a bag of words dilutes it.

Per task, three signals are combined (combine.py), with weights chosen on val inside `fit` (choose.py):
  - the `linear` head (TF-IDF of the whole opinion and its opening and closing passages);
  - a second head on the anchored-window view (windows.py: short passages around the cert grant, the lower
    court's disposition, a dissent below, overruling, unconstitutionality, the parties' roles, the judgment);
  - for the entity tasks (states, courts, agencies), a mention model over the choices' names (aliases.py,
    mentions.py; curated tables in tables/), fit on train only;
plus a correction of the class prior for the documented construction of the evaluation splits (majority
class capped at one half). Each record is answered from its own opinion alone: no task reads another task's
answer, so an answer never depends on which other records are predicted with it. The weights are chosen on
the val scores of heads fit on train (out of fold where val is small); the heads that predict are then refit
on train + val, as `linear` does. The choices and their val scores are written to signals.json in the model
folder.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from baselines.core.errors import BaselinesError
from baselines.core.params import Each, OneOf, Range, Sklearn
from baselines.core.records import ChoiceItem
from baselines.methods.plain_state import load_plain, save_plain
from baselines.tasks.caselawqa.choose import Grids, ValChooser
from baselines.tasks.caselawqa.combine import TaskParts, Weights, combined_scores, prior_shift, softmax
from baselines.tasks.caselawqa.common import by_task, prediction_rows, unique_opinions
from baselines.tasks.caselawqa.features import TfidfFeatures, cached_fit, cached_transform
from baselines.tasks.caselawqa.heads import CLASSIFIERS, head_estimator
from baselines.tasks.caselawqa.linear import CaselawLinear, fit_heads_scored, head_config, heads_summary
from baselines.tasks.caselawqa.mentions import fit_mention_models, log_priors, mention_counts, mention_logits
from baselines.tasks.caselawqa.readers import VIEWS, reader_texts
from baselines.tasks.caselawqa.recognise import by_name, recognise, task_paths
from baselines.tasks.caselawqa.windows import window_texts, window_vectorizer


@dataclass
class CaselawSignals(CaselawLinear):
    """`linear` (same parameters and defaults) + window heads + mention models, combined per task on val."""

    PARAMETER_RULES = {  # see baselines.core.params; the other weights and mention_l2: at least 0
        "window_min_df": Sklearn("sklearn.feature_extraction.text:TfidfVectorizer", "min_df"),
        "window_Cs": Each(Sklearn(head_estimator, "C")), "confident_thresholds": Each(Range(0, 1)),
        "reader_views": Each(OneOf(tuple(VIEWS)), least=0), "reader_classifier": OneOf(CLASSIFIERS),
        "reader_Cs": Each(Sklearn(head_estimator, "C")),
        "reader_min_df": Sklearn("sklearn.feature_extraction.text:TfidfVectorizer", "min_df"),
    }

    window_width: int = 250  # characters each side of an anchor match
    window_hits: int = 10  # matches of each anchor read per opinion
    window_min_df: int = 3
    window_Cs: tuple = (0.1, 0.3, 1.0)  # C candidates of the window heads (chi2 selection off)
    mention_l2: float = 1.0
    head_weights: tuple = Grids.head  # candidate weights of each lever, chosen on val
    mention_weights: tuple = Grids.mentions
    window_weights: tuple = Grids.windows
    prior_weights: tuple = Grids.prior  # (0.0,) turns the prior correction off
    confident_thresholds: tuple = Grids.confident
    reader_views: tuple = ()  # reader views (readers.VIEWS) with heads of their own; `readers` reads both
    reader_min_df: int = 2
    reader_classifier: str = "svm"  # the reader views' heads: svm | logreg
    reader_Cs: tuple = (0.1, 0.3, 1.0)  # C candidates of the reader heads
    reader_weights: tuple = Grids.readers

    def _grids(self) -> Grids:
        return Grids(tuple(self.head_weights), tuple(self.mention_weights), tuple(self.window_weights),
                     tuple(self.prior_weights), tuple(self.confident_thresholds), tuple(self.reader_weights))

    def _jobs(self) -> int:
        return 1 if self.backend == "sequential" else self.n_jobs

    def fit(self, train: list[ChoiceItem], val: list[ChoiceItem] | None = None):
        if not train:
            raise BaselinesError(f"{self.name}: no training examples")
        val = val or []
        self.roles_ = recognise(train)
        matrices = {"train": {}, "val": {}}  # split -> view ("words", "windows", a reader view) -> opinion rows
        head_val, window_val = self._fit_heads(train, val, matrices)
        reader_val = self._fit_readers(train, val, matrices)
        self.mention_priors_ = log_priors(train, self.roles_)
        self.mention_models_ = fit_mention_models(train, mention_counts(train, self.roles_, self._jobs()),
                                                  self.mention_priors_, self.roles_, self.mention_l2)
        self.prior_shifts_ = {task: prior_shift([i.answer[0] for i in items], len(items[0].choices))
                              for task, items in by_task(train).items()}
        self.weights_, self.steps_ = {task: Weights() for task in self.heads_}, {"note": "no val: every lever off"}
        if val:
            parts = self._parts(val, head_val, window_val, reader_val)
            answers = {task: [i.answer for i in items] for task, items in by_task(val).items() if task in parts}
            chooser = ValChooser(parts, answers, self.cap_val_majority)
            chosen, self.steps_ = chooser.choose(self._grids(), self.min_val)
            self.weights_.update(chosen)
            self._after_choice(train, val, matrices, chooser)
        return self

    def _after_choice(self, train: list[ChoiceItem], val: list[ChoiceItem], matrices: dict, chooser) -> None:
        """Levers fit and weighted after every other was chosen (none here; see stacked.py)."""

    def _fit_heads(self, train: list[ChoiceItem], val: list[ChoiceItem], matrices: dict) -> tuple[dict, dict]:
        """Fit the `linear` heads and the window heads; their val scores (task -> (n_val, n_choices)). The opinions'
        rows are kept in `matrices` (split -> view -> rows)."""
        keys, texts, rows = unique_opinions(train)
        val_keys, val_texts, val_rows = unique_opinions(val)
        self.features_, X = cached_fit(texts, keys, self._spec(), self.cache, n_jobs=self.n_jobs)
        X_val = cached_transform(self.features_, val_texts, val_keys, self.cache) if val else None
        self.heads_, head_val = fit_heads_scored(self, train, val, X, rows, X_val, val_rows if val else None,
                                                 desc="fitting per-task heads on the words")
        windows = window_texts(texts, self.window_width, self.window_hits, self._jobs())
        self.window_vectorizer_ = window_vectorizer(self.window_min_df).fit(windows)
        W = self.window_vectorizer_.transform(windows)
        W_val = self._window_rows(val_texts) if val else None
        self.window_heads_, window_val = fit_heads_scored(self, train, val, W, rows, W_val, val_rows if val else None,
                                                          config=self._window_config(),
                                                          desc="fitting per-task heads on the procedural windows")
        matrices["train"].update(words=X, windows=W)
        matrices["val"].update(words=X_val, windows=W_val)
        return head_val, window_val

    def _window_config(self):
        return replace(head_config(self), Cs=tuple(self.window_Cs), k_features=0)

    def _reader_config(self):
        return replace(head_config(self), Cs=tuple(self.reader_Cs), k_features=0, classifier=self.reader_classifier)

    def _fit_readers(self, train: list[ChoiceItem], val: list[ChoiceItem], matrices: dict) -> dict:
        """A vectorizer and per-task heads for each reader view; their val scores (view -> task -> scores)."""
        _, texts, rows = unique_opinions(train)
        _, val_texts, val_rows = unique_opinions(val)
        self.reader_vectorizers_, self.reader_heads_, scores = {}, {}, {}
        for view in self.reader_views:
            self.reader_vectorizers_[view] = window_vectorizer(self.reader_min_df)
            R = self.reader_vectorizers_[view].fit_transform(reader_texts(texts, view, self._jobs()))
            R_val = self._reader_rows(view, val_texts) if val else None
            self.reader_heads_[view], scores[view] = fit_heads_scored(
                self, train, val, R, rows, R_val, val_rows if val else None, config=self._reader_config(),
                desc=f"fitting per-task heads on the {view.replace('_', ' ')} reading")
            matrices["train"][view], matrices["val"][view] = R, R_val
        return scores

    def _reader_rows(self, view: str, texts: list[str]):
        return self.reader_vectorizers_[view].transform(reader_texts(texts, view, self._jobs()))

    def _window_rows(self, texts: list[str]):
        return self.window_vectorizer_.transform(window_texts(texts, self.window_width, self.window_hits, self._jobs()))

    def _parts(self, records: list[ChoiceItem], heads: dict, windows: dict, readers: dict) -> dict:
        """Task -> TaskParts of `records` from per-task head, window-head and reader-head scores (view -> task ->
        scores; rows in task order)."""
        counts = mention_counts(records, self.roles_, self._jobs())
        parts = {}
        for task, pairs in by_task(list(zip(records, counts)), key=lambda pair: pair[0].group).items():
            if task not in self.heads_ or heads.get(task) is None:
                continue
            logits = [mention_logits(item, c, self.mention_priors_, self.mention_models_, self.roles_)
                      for item, c in pairs]
            parts[task] = TaskParts(head=heads[task], windows=windows.get(task), shift=self.prior_shifts_.get(task),
                                    mentions=np.vstack(logits) if logits and logits[0] is not None else None,
                                    readers={view: by[task] for view, by in readers.items() if by.get(task) is not None})
        return parts

    def predict(self, records: list[ChoiceItem]) -> list[dict]:
        unknown = sorted({item.group for item in records} - set(self.heads_))
        if unknown:
            raise BaselinesError(f"no trained head for task(s) {', '.join(unknown)}; train on those tasks first")
        matrices = self._matrices(records)
        _, texts, rows = unique_opinions(records)
        groups = by_task(list(zip(records, rows)), key=lambda pair: pair[0].group)
        heads = {task: self.heads_[task].scores(matrices["words"][[r for _, r in pairs]])
                 for task, pairs in groups.items()}
        windows = {task: self.window_heads_[task].scores(matrices["windows"][[r for _, r in pairs]])
                   for task, pairs in groups.items() if task in self.window_heads_}
        scores = combined_scores(self._parts(records, heads, windows, self._reader_scores(texts, matrices, groups)),
                                 self.weights_)
        out: dict[str, dict] = {}
        for task, pairs in groups.items():
            items = [item for item, _ in pairs]
            out.update((row["id"], row) for row in prediction_rows(items, softmax(scores[task]), self._fallback(task)))
        return [out[item.id] for item in records]

    def _matrices(self, records: list[ChoiceItem]) -> dict:
        """View ("words", "windows", each reader view) -> the rows of the distinct opinions of `records`."""
        keys, texts, _ = unique_opinions(records)
        self.features_.n_jobs = self.n_jobs
        matrices = {"words": cached_transform(self.features_, texts, keys, self.cache),
                    "windows": self._window_rows(texts)}
        matrices.update((view, self._reader_rows(view, texts)) for view in self.reader_heads_)
        return matrices

    def _reader_scores(self, texts: list[str], matrices: dict, groups: dict) -> dict:
        """View -> task -> scores of the reader views' heads, for the records of `groups` (task -> (record, opinion
        row) pairs) over the opinions `texts` (`matrices`: their rows, by view)."""
        return {view: {task: view_heads[task].scores(matrices[view][[r for _, r in pairs]])
                       for task, pairs in groups.items() if task in view_heads}
                for view, view_heads in self.reader_heads_.items()}

    def _fallback(self, task: str) -> dict | None:
        """Marks a task answered without a trained head: a majority head and no signal that reads the opinion
        weighted (mentions, windows, the confident rule; the prior correction reads none)."""
        head, weights = self.heads_[task], self.weights_.get(task, Weights())
        reads_opinion = weights.mentions or weights.windows or weights.confident or any(weights.readers.values())
        if head.model is None and not reads_opinion:
            return {"fallback": head.chosen["fallback"]}
        return None

    def save_state(self, folder: Path) -> None:
        save_plain(folder, "state", {
            "features": self.features_.state(), "heads": self.heads_, "window_vectorizer": self.window_vectorizer_,
            "window_heads": self.window_heads_, "reader_vectorizers": self.reader_vectorizers_,
            "reader_heads": self.reader_heads_, "mention_priors": self.mention_priors_,
            "mention_models": self.mention_models_, "prior_shifts": self.prior_shifts_,
            "weights": {task: asdict(w) for task, w in self.weights_.items()}, "steps": self.steps_,
            "roles": self.roles_})
        (folder / "signals.json").write_text(json.dumps(self.summary(), indent=1))

    def load_state(self, folder: Path) -> None:
        state = load_plain(folder, "state")
        self.features_, self.heads_ = TfidfFeatures.from_state(state["features"]), state["heads"]
        self.window_vectorizer_, self.window_heads_ = state["window_vectorizer"], state["window_heads"]
        self.mention_priors_, self.mention_models_ = state["mention_priors"], state["mention_models"]
        self.reader_vectorizers_ = state.get("reader_vectorizers", {})  # none in models of earlier releases
        self.reader_heads_ = state.get("reader_heads", {})
        self.prior_shifts_, self.steps_ = state["prior_shifts"], state["steps"]
        self.weights_ = {task: Weights(**w) for task, w in state["weights"].items()}
        self.roles_ = state.get("roles") or by_name(self.heads_)  # models of earlier releases: by name

    def summary(self) -> dict:
        """What was chosen on val, per task, with its val scores; the val mean after each lever."""
        heads, windows = heads_summary(self.heads_), heads_summary(self.window_heads_)
        tasks = {}
        for task, w in sorted(self.weights_.items()):
            weights = {k: v for k, v in asdict(w).items() if k != "val"}
            tasks[task] = {"weights": weights, "val": w.val, "linear_head": heads.get(task),
                           "window_head": windows.get(task)}
            tasks[task].update({f"{view}_head": heads_summary(view_heads).get(task)
                                for view, view_heads in self.reader_heads_.items()})
        return {"val_mean_after_each_lever": self.steps_, "mention_models": sorted(self.mention_models_),
                "task_paths": task_paths(self.roles_), "tasks": tasks}


@dataclass
class CaselawReaders(CaselawSignals):
    """`signals` plus the readers of the parties and of the court below (readers.py), each with per-task heads
    whose weights are chosen on val after every `signals` lever (0 where a view does not help a task)."""

    reader_views: tuple = tuple(VIEWS)
