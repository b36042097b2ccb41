"""CaselawQA `stacked`: `readers`, plus a stacked head for the tasks whose answer follows from other answers.

After every `readers` lever is chosen, the tasks of dependencies.DEPENDENCIES get one more head, read as one
more view of the combination (combine.py, "stacked"): it reads the cross-fitted `readers` answers of the tasks
the codebook defines them from, their declared outer products, and the reasons readers' tags (stacking.py,
reasons.py). Its learner (logistic regression or LinearSVC), C and class weighting are chosen on val per task,
then its weight in the combination, as each reader view's is (0 where it does not help). What it chose is
written to signals.json beside the other levers.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path

import scipy.sparse as sp

from baselines.core.params import Each, OneOf, Range, Sklearn
from baselines.core.records import ChoiceItem
from baselines.methods.plain_state import load_plain, save_plain
from baselines.tasks.caselawqa.combine import Weights
from baselines.tasks.caselawqa.common import by_task, run_parallel, unique_opinions
from baselines.tasks.caselawqa.dependencies import GROUPS, Inputs, source_tasks, stacked_tasks
from baselines.tasks.caselawqa.heads import CLASSIFIERS, fit_head_scored, head_estimator
from baselines.tasks.caselawqa.linear import head_config, heads_summary
from baselines.tasks.caselawqa.reasons import reason_texts
from baselines.tasks.caselawqa.signals import CaselawReaders
from baselines.tasks.caselawqa.stacking import (component_weights, cross_fitted, opinion_folds, source_distribution,
                                                stack_matrix)
from baselines.tasks.caselawqa.windows import window_vectorizer

VIEW = "stacked"  # the stacked heads' name among the reader views of the combination
MAX_STACK_FOLDS = 100  # cross-fitting needs 2 folds at least (a source's answers out of fold); each fold refits them


@dataclass
class CaselawStacked(CaselawReaders):
    """`readers` + stacked heads over other tasks' out-of-fold answers and the reasons readers."""

    PARAMETER_RULES = {"stack_classifiers": Each(OneOf(CLASSIFIERS)), "stack_Cs": Each(Sklearn(head_estimator, "C")),
                       "stack_groups": Each(OneOf(GROUPS)), "stack_folds": Range(2, MAX_STACK_FOLDS, whole=True),
                       "stack_min_df": Sklearn("sklearn.feature_extraction.text:TfidfVectorizer", "min_df")}

    stack_folds: int = 5  # folds of the train and val opinions the sources' answers are cross-fitted over
    stack_classifiers: tuple = ("logreg", "svm")  # learners of the stacked heads, chosen per task on val
    stack_Cs: tuple = (0.3, 1.0, 3.0, 10.0)
    stack_min_df: int = 2  # of the reasons readers' tags
    stack_groups: tuple = GROUPS  # the kinds of input the stacked heads read: sources, crosses, readers

    def fit(self, train: list[ChoiceItem], val: list[ChoiceItem] | None = None):
        self.stack_inputs_, self.stack_vectorizers_, self.stack_heads_ = {}, {}, {}  # none without val
        self.stack_source_weights_ = {}
        return super().fit(train, val)

    def _after_choice(self, train: list[ChoiceItem], val: list[ChoiceItem], matrices: dict, chooser) -> None:
        self.stack_inputs_ = stacked_tasks(set(self.heads_), tuple(self.stack_groups), self.roles_)
        self.stack_vectorizers_, self.stack_heads_ = {}, {}
        if not self.stack_inputs_:
            return
        # the sources' combinations as they stand now: choosing the stacked view's weight moves their head weights,
        # and a prediction must read the sources the stacked heads were fit on
        self.stack_source_weights_ = {task: self.weights_[task] for task in source_tasks(self.stack_inputs_)}
        (keys, texts, rows), (val_keys, val_texts, val_rows) = unique_opinions(train), unique_opinions(val)
        shift = len(texts)
        both = {view: sp.vstack([matrices["train"][view], matrices["val"][view]], format="csr")
                for view in matrices["train"]}
        groups = by_task(list(zip(train + val, rows + [r + shift for r in val_rows])), key=lambda pair: pair[0].group)
        sources = self._cross_fit(groups, both, keys + val_keys)
        tags = {}
        for name in sorted({name for inputs in self.stack_inputs_.values() for name in inputs.readers}):
            self.stack_vectorizers_[name] = window_vectorizer(self.stack_min_df)
            tags[name] = sp.vstack([self.stack_vectorizers_[name].fit_transform(reason_texts(texts, name, self._jobs())),
                                    self._reason_rows(name, val_texts)], format="csr")
        for task, inputs in self.stack_inputs_.items():
            pairs = groups[task]
            fit, held = ([p for p in pairs if (p[1] < shift) == is_train] for is_train in (True, False))
            F, F_val = (stack_matrix(task, inputs, sources, tags, [r for _, r in part]) for part in (fit, held))
            self.stack_heads_[task], scores = self._stacked_head(
                task, F, [i.answer for i, _ in fit], F_val, [i.answer for i, _ in held])
            if task in chooser.parts:
                chooser.parts[task].readers[VIEW] = scores
        self.weights_, self.steps_[f"+{VIEW}"] = chooser.add_view(self.weights_, VIEW, self._grids(), self.min_val)

    def _cross_fit(self, groups: dict, matrices: dict, keys: list[str]) -> dict:
        """Task -> (n_opinions, n_choices) out-of-fold `readers` answers of every source over the opinions of
        train and val (`matrices`: their rows by view, `keys` their opinions' keys; `groups`: task -> (record,
        opinion row) pairs)."""
        from joblib import delayed

        fold = opinion_folds(keys, self.stack_folds)
        jobs = [(task, part) for task in source_tasks(self.stack_inputs_)
                for part in component_weights(self.stack_source_weights_[task])]
        calls = (delayed(cross_fitted)(*self._component(task, part), matrices[part], [r for _, r in groups[task]],
                                       [i.answer for i, _ in groups[task]], fold)
                 for task, part in jobs)
        done = run_parallel(calls, n_jobs=self.n_jobs, backend=self.backend, scheduler=self.scheduler,
                            total=len(jobs), desc="cross-fitting the answers the stacked heads read")
        components: dict = {}
        for (task, part), scores in zip(jobs, done):
            components.setdefault(task, {})[part] = scores
        return {task: source_distribution(by_part, self.stack_source_weights_[task], self.prior_shifts_.get(task))
                for task, by_part in components.items()}

    def _component(self, task: str, part: str):
        """(the head of `task` on the view `part`, the configuration it was fit with)."""
        if part == "words":
            return self.heads_[task], head_config(self)
        if part == "windows":
            return self.window_heads_[task], self._window_config()
        return self.reader_heads_[part][task], self._reader_config()

    def _stacked_head(self, task: str, F, answers: list, F_val, val_answers: list):
        """The best of the stacked learners on val (ties: the first listed), with its val scores."""
        best = None
        for classifier in self.stack_classifiers:
            config = replace(head_config(self), classifier=classifier, Cs=tuple(self.stack_Cs), k_features=0)
            head, scores = fit_head_scored(task, self.heads_[task].n_choices, config, F, answers, F_val, val_answers)
            head.chosen["classifier"] = classifier if head.model is not None else None
            accuracy = head.chosen.get("accuracy", head.chosen.get("majority_accuracy", 0.0))
            if best is None or accuracy > best[0]:
                best = (accuracy, head, scores)
        return best[1], best[2]

    def _reason_rows(self, name: str, texts: list[str]):
        return self.stack_vectorizers_[name].transform(reason_texts(texts, name, self._jobs()))

    def _reader_scores(self, texts: list[str], matrices: dict, groups: dict) -> dict:
        readers = super()._reader_scores(texts, matrices, groups)
        wanted = {task: inputs for task, inputs in self.stack_inputs_.items() if task in groups}
        if not wanted:
            return readers
        sources = {}  # every opinion, every source, combined as when the stacked heads were fit
        for task in source_tasks(wanted):
            weights = self.stack_source_weights_[task]
            parts = {part: self._component(task, part)[0].scores(matrices[part]) for part in component_weights(weights)}
            sources[task] = source_distribution(parts, weights, self.prior_shifts_.get(task))
        tags = {name: self._reason_rows(name, texts) for name in {n for i in wanted.values() for n in i.readers}}
        readers[VIEW] = {task: self.stack_heads_[task].scores(
            stack_matrix(task, inputs, sources, tags, [r for _, r in groups[task]])) for task, inputs in wanted.items()}
        return readers

    def save_state(self, folder: Path) -> None:
        super().save_state(folder)
        save_plain(folder, "stacked", {
            "inputs": {task: [list(i.sources), [list(p) for p in i.crosses], list(i.readers)]
                       for task, i in self.stack_inputs_.items()},
            "source_weights": {task: asdict(w) for task, w in self.stack_source_weights_.items()},
            "vectorizers": self.stack_vectorizers_, "heads": self.stack_heads_})

    def load_state(self, folder: Path) -> None:
        super().load_state(folder)
        state = load_plain(folder, "stacked")
        self.stack_inputs_ = {task: Inputs(tuple(s), tuple(tuple(p) for p in c), tuple(r))
                              for task, (s, c, r) in state["inputs"].items()}
        self.stack_vectorizers_, self.stack_heads_ = state["vectorizers"], state["heads"]
        self.stack_source_weights_ = {task: Weights(**w) for task, w in state["source_weights"].items()}

    def summary(self) -> dict:
        out = super().summary()
        for task, head in heads_summary(self.stack_heads_).items():
            inputs = self.stack_inputs_[task]
            out["tasks"][task][f"{VIEW}_head"] = {**head, "sources": list(inputs.sources),
                                                  "crosses": [list(p) for p in inputs.crosses],
                                                  "readers": list(inputs.readers)}
        return out
