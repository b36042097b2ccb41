"""BiLSTM-CRF rhetorical-role tagger over frozen sentence embeddings plus position/surface features."""
from __future__ import annotations

import contextlib

import copy
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..data.rr import Document, model_input
from ..errors import BaselinesError
from .base import Method
from .rr_common import (FEATURE_NAMES, check_predictable, embed_documents, rows_for, sentence_features,
                        training_labels)


@dataclass
class BiLstmCrfTagger(Method):
    """Each document a sequence of sentence vectors; a BiLSTM gives emissions, a CRF decodes the labels."""

    task = "rr"
    name = "bilstm_crf"

    encoder: str = "minilm"  # sentence-transformer: local folder, hub name or 'minilm'
    max_seq_length: int | None = None  # None: the encoder's own limit
    encode_batch_size: int = 64
    surface_features: bool = True  # position and lexical features beside the embedding
    tfidf_dims: int = 0  # > 0: also a TF-IDF n-gram vector reduced to this many SVD dimensions (fit on train)
    projection: int = 256
    hidden: int = 128
    layers: int = 1
    dropout: float = 0.4
    lr: float = 0.002
    weight_decay: float = 0.0001
    batch_docs: int = 16
    max_epochs: int = 60
    patience: int = 8
    lr_decay: float = 0.5  # < 1: multiply the learning rate by this after `decay_patience` epochs without gain
    decay_patience: int = 2
    val_fraction: float = 0.1  # documents carved from train for early stopping
    max_train_len: int = 400  # longer training documents are cut into pieces of this many sentences
    predict_batch_docs: int = 8
    torch_threads: int = 1  # small recurrent batches: one thread is as fast and identical run to run
    seed: int = 0
    n_models: int = 2  # > 1: that many taggers (seeds seed, seed+1, ...) decoded as one ensemble
    workers: int = 2  # ensemble members trained at once, each in its own process (same result as 1)

    def features(self, docs: list[Document], progress: bool = True) -> list[np.ndarray]:
        """Per document a (n_sentences, dim [+ surface]) float32 matrix."""
        parts = [embed_documents(docs, self.encoder, self.max_seq_length, self.encode_batch_size, progress)]
        if self.surface_features:
            parts.append([sentence_features(d) for d in docs])
        if self.tfidf_dims > 0:
            parts.append(self._tfidf(docs))
        return [np.hstack(blocks).astype(np.float32) for blocks in zip(*parts)]

    def _tfidf(self, docs: list[Document]) -> list[np.ndarray]:
        """Per document (n_sentences, tfidf_dims): TF-IDF reduced by SVD, scaled to unit length."""
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.decomposition import TruncatedSVD
        from sklearn.preprocessing import normalize

        texts = [model_input(s.text) for d in docs for s in d.sentences]
        if not hasattr(self, "tfidf_"):
            vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=2, max_features=100000, sublinear_tf=True)
            svd = TruncatedSVD(self.tfidf_dims, random_state=self.seed)
            svd.fit(vectorizer.fit_transform(texts))
            self.tfidf_ = (vectorizer, svd)
        vectorizer, svd = self.tfidf_
        reduced = normalize(svd.transform(vectorizer.transform(texts))) if texts else np.zeros((0, self.tfidf_dims))
        out, offset = [], 0
        for doc in docs:
            out.append(reduced[offset:offset + len(doc.sentences)])
            offset += len(doc.sentences)
        return out

    def _split(self, n: int) -> tuple[list[int], list[int]]:
        order = np.random.default_rng(self.seed).permutation(n).tolist()
        n_val = max(1, int(round(n * self.val_fraction))) if n >= 4 and self.val_fraction > 0 else 0
        return order[n_val:], order[:n_val]

    def _pieces(self, feats, labels, indexes):
        """Training sequences, documents longer than max_train_len cut into consecutive pieces."""
        xs, ys, step = [], [], max(1, self.max_train_len)
        for i in indexes:
            for begin in range(0, len(feats[i]), step):
                xs.append(feats[i][begin:begin + step])
                ys.append(labels[i][begin:begin + step])
        return xs, ys

    def fit(self, train: list[Document], val=None):
        from .rr_crf import Ensemble

        started = time.time()
        docs = [d for d in train if d.sentences and all(s.label is not None for s in d.sentences)]
        if not docs:
            raise BaselinesError("bilstm_crf: no labelled training documents")
        self.labels_ = training_labels(docs, self.name)
        self.__dict__.pop("tfidf_", None)  # refit: the TF-IDF projection is learned from these documents
        index = {label: k for k, label in enumerate(self.labels_)}
        feats = self.features(docs)
        labels = [np.array([index[s.label] for s in d.sentences], dtype=np.int64) for d in docs]
        if val:
            train_idx, val_idx = list(range(len(docs))), []
            val_feats, val_labels = self.features(val), [
                np.array([index.get(s.label, -1) for s in d.sentences]) for d in val]
        else:
            train_idx, val_idx = self._split(len(docs))
            val_feats, val_labels = [feats[i] for i in val_idx], [labels[i] for i in val_idx]
        self.n_features_ = int(feats[0].shape[1])
        xs, ys = self._pieces(feats, labels, train_idx)
        seeds = self._seeds()
        if self.workers > 1 and len(seeds) > 1:
            from joblib import Parallel, delayed

            trained = Parallel(n_jobs=min(self.workers, len(seeds)), backend="loky", max_nbytes=None)(
                delayed(self._fit_member)(xs, ys, val_feats, val_labels, seed) for seed in seeds)
        else:
            trained = [self._fit_member(xs, ys, val_feats, val_labels, seed) for seed in seeds]
        self.model_ = Ensemble([member for member, _ in trained])
        self.history_ = [history for _, history in trained]
        self.train_info_ = {"documents": len(docs), "loader_notes": list(getattr(train, "notes", [])),
                            "train_documents": len(train_idx),
                            "val_documents": len(val_feats), "fit_seconds": round(time.time() - started, 2),
                            "best_epochs": [max(h, key=lambda e: e["val_weighted_f1"])["epoch"] for h in self.history_]}
        return self

    def _fit_member(self, xs, ys, val_feats, val_labels, seed: int) -> tuple:
        """One tagger trained from `seed` (in this process or a worker): (model, epoch history)."""
        import torch

        with torch_threads(self.torch_threads):  # small recurrent batches; the encoder used every core
            torch.manual_seed(seed)
            tagger = self._new_tagger()
            return tagger, self._train(tagger, xs, ys, val_feats, val_labels, seed)

    def _seeds(self) -> list[int]:
        return [self.seed + k for k in range(max(1, self.n_models))]

    def _new_tagger(self):
        from .rr_crf import BiLstmCrf

        return BiLstmCrf(self.n_features_, len(self.labels_), self.projection, self.hidden, self.layers,
                         self.dropout)

    def _train(self, model, xs, ys, val_feats, val_labels, seed: int) -> list[dict]:
        """Adam on the CRF loss; keep the epoch with the best weighted F1 on the validation documents."""
        import torch
        from sklearn.metrics import f1_score

        from .rr_crf import batches

        optimizer = torch.optim.Adam(model.parameters(), lr=self.lr, weight_decay=self.weight_decay)
        scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="max", factor=self.lr_decay,
                                                               patience=self.decay_patience) \
            if self.lr_decay < 1.0 else None
        rng = np.random.default_rng(seed)
        history, best, best_state, waited = [], -1.0, None, 0
        for epoch in range(1, self.max_epochs + 1):
            model.train()
            total = 0.0
            for x, y, lengths, _ in batches(xs, ys, self._epoch_order(xs, rng), self.batch_docs):
                optimizer.zero_grad()
                loss = model.loss(x, y, lengths)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
                optimizer.step()
                total += float(loss.detach()) * len(lengths)
            entry = {"epoch": epoch, "loss": round(total / len(xs), 4)}
            if val_feats:
                predicted = np.concatenate([p for p, _ in self._decode(val_feats, marginals=False, model=model)])
                gold = np.concatenate(val_labels)
                entry["val_weighted_f1"] = round(float(f1_score(gold, predicted, average="weighted")), 4)
            else:
                entry["val_weighted_f1"] = -entry["loss"]
            history.append(entry)
            if scheduler is not None:
                scheduler.step(entry["val_weighted_f1"])
            print(f"seed {seed} epoch {epoch}: loss {entry['loss']}, val weighted F1 "
                  f"{entry['val_weighted_f1']}", file=sys.stderr)
            if entry["val_weighted_f1"] > best:
                best, best_state, waited = entry["val_weighted_f1"], copy.deepcopy(model.state_dict()), 0
            else:
                waited += 1
                if waited >= self.patience:
                    break
        model.load_state_dict(best_state)
        return history

    def _epoch_order(self, xs, rng) -> list[int]:
        """Documents ordered so that batches hold similar lengths (less padding); batch order shuffled."""
        noisy = sorted(range(len(xs)), key=lambda i: len(xs[i]) + rng.uniform(0, 40))
        groups = [noisy[k:k + self.batch_docs] for k in range(0, len(noisy), self.batch_docs)]
        return [i for g in rng.permutation(len(groups)).tolist() for i in groups[g]]

    def _decode(self, feats: list[np.ndarray], marginals: bool = True, model=None) -> list[tuple]:
        """(label ids, marginals) per document, in the given order; documents batched by length."""
        import torch

        from .rr_crf import batches

        model = model if model is not None else self.model_
        model.eval()
        out: list = [None] * len(feats)
        nonempty = [i for i in range(len(feats)) if len(feats[i])]
        order = sorted(nonempty, key=lambda i: len(feats[i]))
        with torch.no_grad():
            for x, _, lengths, chosen in batches(feats, None, order, self.predict_batch_docs):
                paths, posteriors = model.decode(x, lengths, marginals)
                for i, path, marginal in zip(chosen, paths, posteriors):
                    out[i] = (np.array(path, dtype=np.int64), marginal)
        empty = (np.zeros(0, dtype=np.int64), np.zeros((0, len(self.labels_))))
        return [o if o is not None else empty for o in out]

    def predict(self, records: list[Document], progress: bool = True) -> list[dict]:
        check_predictable(records, self.labels_)
        feats = self.features(records, progress)
        if feats and any(len(f) and f.shape[1] != self.n_features_ for f in feats):
            raise BaselinesError(f"bilstm_crf: features have the wrong width (model expects {self.n_features_}); "
                                 "was it trained with another encoder?")
        rows = []
        with torch_threads(self.torch_threads):
            decoded = self._decode(feats)
        for doc, (path, marginal) in zip(records, decoded):
            rows.extend(rows_for(doc, self.labels_, path.tolist(), marginal))
        return rows

    def save_state(self, folder: Path) -> None:
        import torch

        torch.save(self.model_.state_dict(), folder / "model.pt")
        (folder / "labels.json").write_text(json.dumps(list(self.labels_)))
        if self.tfidf_dims > 0:
            import joblib

            joblib.dump(self.tfidf_, folder / "tfidf.joblib")
        (folder / "state.json").write_text(json.dumps({"n_features": self.n_features_,
                                                       "feature_names": ["embedding"] + FEATURE_NAMES,
                                                       "history": self.history_, "train": self.train_info_},
                                                      indent=1))

    def load_state(self, folder: Path) -> None:
        import torch

        from .rr_crf import Ensemble

        self.labels_ = tuple(json.loads((folder / "labels.json").read_text()))
        state = json.loads((folder / "state.json").read_text())
        self.n_features_, self.history_, self.train_info_ = state["n_features"], state["history"], state["train"]
        if self.tfidf_dims > 0:
            import joblib

            self.tfidf_ = joblib.load(folder / "tfidf.joblib")
        self.model_ = Ensemble([self._new_tagger() for _ in self._seeds()])
        self.model_.load_state_dict(torch.load(folder / "model.pt", map_location="cpu", weights_only=True))
        self.model_.eval()


@contextlib.contextmanager
def torch_threads(count: int):
    """Run the recurrent part with `count` torch threads, restoring the previous setting after."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)
