"""BiLSTM-CRF rhetorical-role tagger over frozen sentence embeddings plus position/surface features.

The estimator only wires the parts together: features (features.py), the network (network.py), the
training loop (trainer.py) and the ensemble of taggers trained from consecutive seeds (ensemble.py).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from baselines.tasks.rr.data import Document
from baselines.core.errors import BaselinesError
from baselines.methods.base import Method, params_of
from baselines.methods.plain_state import load_state_file, save_plain
from baselines.tasks.rr.common import (check_objective_weights, check_predictable, check_refit, cut_sequences,
                                       decoded_rows, label_ids, labelled_documents, load_tagger_files,
                                       save_tagger_files, split_indexes, training_labels)
from baselines.tasks.rr.features import FeatureSettings, TfidfProjection, document_features
from baselines.tasks.rr.network import NetworkShape
from baselines.tasks.rr.trainer import Sequences, TrainingSettings, chosen_rates, with_validation_documents


@dataclass
class BiLstmCrfTagger(TrainingSettings, NetworkShape, FeatureSettings, Method):
    """Each document a sequence of sentence vectors; a BiLSTM gives emissions, a CRF decodes the labels.

    Parameters: those of FeatureSettings, NetworkShape and TrainingSettings, and the ones below.
    """

    val_fraction: float = 0.1  # documents carved from train for early stopping (dev is never used)
    max_train_len: int = 400  # longer training documents are cut into pieces of this many sentences
    torch_threads: int = 1  # small recurrent batches: one thread is as fast and identical run to run
    seed: int = 0
    n_models: int = 2  # > 1: that many taggers (seeds seed, seed+1, ...) decoded as one ensemble
    workers: int = 2  # ensemble members trained at once, each in its own process (same result as 1)

    def features(self, docs: list[Document], progress: bool = True) -> list[np.ndarray]:
        """Per document a (n_sentences, n_features) float32 matrix."""
        return document_features(docs, self, self.tfidf_, progress)

    def fit(self, train: list[Document], val=None):
        from baselines.tasks.rr.ensemble import MemberPlan, fit_ensemble

        check_objective_weights(self)
        check_refit(self, val)
        started = time.time()
        docs = labelled_documents(train, self.name)
        self.labels_ = training_labels(docs, self.name)
        self.tfidf_ = TfidfProjection.fit(docs, self.tfidf_dims, self.seed) if self.tfidf_dims > 0 else None
        data, n_train = self._sequences(docs, val)
        self.n_features_ = int(data.xs[0].shape[1])
        plan = MemberPlan(self.n_features_, len(self.labels_), params_of(NetworkShape, self),
                          params_of(TrainingSettings, self), self.torch_threads,
                          refit=with_validation_documents(data, self.max_train_len, self.name) if self.refit else None)
        self.model_, self.history_ = fit_ensemble(data, plan, self._seeds(), self.workers)
        self.train_info_ = {"documents": len(docs), "loader_notes": list(getattr(train, "notes", [])),
                            "train_documents": n_train, "val_documents": len(data.val_xs),
                            "fit_seconds": round(time.time() - started, 2),
                            "best_epochs": [len(chosen_rates(h)) for h in self.history_],
                            **({"refit_documents": n_train + len(data.val_xs)} if self.refit else {})}
        return self

    def _sequences(self, docs: list[Document], val) -> tuple[Sequences, int]:
        """(training pieces and validation documents as arrays, number of training documents).

        Validation documents are `val` when given, else a seeded `val_fraction` of the training documents."""
        feats, labels = self.features(docs), label_ids(docs, self.labels_)
        if val:
            train_idx = list(range(len(docs)))
            val_xs, val_ys = self.features(val), label_ids(val, self.labels_)
        else:
            train_idx, val_idx = split_indexes(len(docs), self.val_fraction, self.seed)
            val_xs, val_ys = [feats[i] for i in val_idx], [labels[i] for i in val_idx]
        xs, ys = cut_sequences([feats[i] for i in train_idx], [labels[i] for i in train_idx], self.max_train_len)
        return Sequences(xs, ys, val_xs, val_ys), len(train_idx)

    def _seeds(self) -> list[int]:
        return [self.seed + k for k in range(max(1, self.n_models))]

    def predict(self, records: list[Document], progress: bool = True) -> list[dict]:
        from baselines.tasks.rr.network import decode_documents, torch_threads

        check_predictable(records, self.labels_)
        feats = self.features(records, progress)
        if feats and any(len(f) and f.shape[1] != self.n_features_ for f in feats):
            raise BaselinesError(f"{self.name}: features have the wrong width (model expects {self.n_features_}); "
                                 "was it trained with another encoder?")
        with torch_threads(self.torch_threads):
            decoded = decode_documents(self.model_, feats, self.predict_batch_docs, len(self.labels_))
        return decoded_rows(records, self.labels_, decoded)

    def save_state(self, folder: Path) -> None:
        save_tagger_files(self, folder)
        if self.tfidf_ is not None:
            save_plain(folder, "tfidf", self.tfidf_.state())

    def load_state(self, folder: Path) -> None:
        from baselines.tasks.rr.network import Ensemble

        weights = load_tagger_files(self, folder)
        self.tfidf_ = None
        if self.tfidf_dims > 0:
            self.tfidf_ = TfidfProjection.from_state(load_state_file(folder, "tfidf", legacy="tfidf.joblib"))
        self.model_ = Ensemble.from_state_dict(weights, len(self._seeds()), self.n_features_, len(self.labels_),
                                               params_of(NetworkShape, self))
