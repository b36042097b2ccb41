"""BiLSTM-CRF rhetorical-role tagger over a sentence encoder whose top layers are tuned for the task.

Training has two stages on the same training documents, with no second model between them (so no
sentence gets a vector from an encoder that has already learned its label, the leakage of fitting a
tagger on the outputs of a separately fine-tuned encoder):
1. the tagger is trained on the frozen encoder's vectors plus the surface features, to convergence
   (early stopping on the validation documents, as `bilstm-crf` does);
2. the encoder's top `tuned_layers` layers and the tagger are trained jointly for `tune_epochs` epochs
   (joint_training.py); the lower layers run once per sentence (tuned_encoder.py).
The model folder holds the tuned encoder as a sentence-transformers folder (`encoder/`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from baselines.tasks.rr.data import Document, check_labels
from baselines.core.errors import BaselinesError
from baselines.core.params import OneOf, Range
from baselines.core.progress import bar as progress_bar
from baselines.methods.base import Method, params_of
from baselines.methods.blocks import apply_flat
from baselines.tasks.rr.common import (check_objective_weights, check_predictable, check_refit, cut_sequences,
                                       decoded_rows, label_ids, labelled_documents, load_tagger_files,
                                       save_tagger_files, split_documents, training_labels)
from baselines.tasks.rr.features import handmade_features, sentence_texts
from baselines.tasks.rr.joint_training import SCHEDULES
from baselines.tasks.rr.network import NetworkShape
from baselines.tasks.rr.objectives import checked_weight
from baselines.tasks.rr.trainer import Sequences, TrainingSettings


@dataclass
class FineTunedTagger(TrainingSettings, NetworkShape, Method):
    """The BiLSTM-CRF tagger of `bilstm-crf` (one tagger) over an encoder whose top layers it tunes.

    Parameters: those of NetworkShape and TrainingSettings (stage 1), and the ones below."""

    PARAMETER_RULES = {"tuned_layers": Range(1), "encoder_lr": Range(0, above=True),  # see baselines.core.params
                       "tagger_lr": Range(0, above=True), "tune_schedule": OneOf(SCHEDULES)}

    rare_weight: float = 1.0  # class weights for the rare roles in both stages (chosen on validation)
    encoder: str = "minilm"  # local sentence-transformers folder, or 'minilm' (packaged all-MiniLM-L6-v2)
    max_seq_length: int = 64  # tokens per sentence (out of fold, 64 costs -0.2 against MiniLM's 256)
    tuned_layers: int = 2  # top transformer layers trained with the tagger (the others stay frozen)
    tune_epochs: int = 4  # joint epochs after the frozen stage (0: the frozen stage only)
    encoder_lr: float = 1e-4
    tagger_lr: float = 5e-4  # the tagger's learning rate while tuning
    tune_average_from: int = 2  # k > 0: keep the mean weights of joint epochs k..tune_epochs; 0: the best epoch
    tune_schedule: str = "constant"  # or 'linear': warm up over 10% of the joint steps, then decay to 0
    piece_len: int = 64  # sentences per document piece in a tuning step
    batch_pieces: int = 2  # pieces per tuning step
    surface_features: bool = True
    structure_features: bool = False  # paragraphs, headings and quotations around the sentence (structure.py)
    val_fraction: float = 0.1  # documents carved from train for early stopping and the best epoch
    max_train_len: int = 400  # stage 1: longer documents are cut into pieces of this many sentences
    encode_batch_size: int = 64
    torch_threads: int = 2
    seed: int = 0
    split_seed: int | None = None  # draws the validation documents (None: `seed`); pairs runs of other seeds

    def fit(self, train: list[Document], val=None):
        from baselines.tasks.rr.network import torch_threads

        started = time.time()
        docs, fit_docs, val_docs = self.training_documents(train, val)
        import torch

        torch.manual_seed(self.seed)
        with torch_threads(self.torch_threads):
            self.encoder_ = self._new_encoder(self.encoder)
            fit_set, val_set = self._documents(fit_docs), self._documents(val_docs)
            kept_epoch = self.fit_encoded(fit_set, val_set)
            if self.refit:
                self.refit_encoded(fit_set.joined(val_set), kept_epoch)
        self.train_info_ = {"documents": len(docs), "train_documents": len(fit_docs), "val_documents": len(val_docs),
                            "fit_seconds": round(time.time() - started, 2), "kept_tuning_epoch": kept_epoch,
                            **({"refit_documents": len(fit_docs) + len(val_docs)} if self.refit else {})}
        return self

    def training_documents(self, train: list[Document], val) -> tuple[list, list, list]:
        """(labelled training documents, fitting documents, validation documents), after the settings are checked
        and `labels_` is set from the training documents."""
        self.check_settings()
        check_refit(self, val)
        docs = labelled_documents(train, self.name)
        self.labels_ = training_labels(docs, self.name)
        return (docs, *self.fitting_split(docs, val))

    def check_settings(self) -> None:
        """Refuse bad objective weights, epochs or schedule before any encoding starts."""
        from baselines.tasks.rr.joint_training import checked_schedule

        check_objective_weights(self)
        checked_weight("tune_epochs", self.tune_epochs)
        checked_weight("tune_average_from", self.tune_average_from)
        checked_schedule(self.tune_schedule)

    def fitting_split(self, docs: list[Document], val) -> tuple[list[Document], list[Document]]:
        """(fitting, validation) documents: `val` when given, else a seeded `val_fraction` of `docs`."""
        split_seed = self.seed if self.split_seed is None else self.split_seed
        fit_docs, val_docs = (docs, [d for d in val if d.sentences]) if val else \
            split_documents(docs, self.val_fraction, split_seed)
        check_labels(val_docs, self.labels_, "validation data")
        return fit_docs, val_docs

    def fit_encoded(self, fit_set, val_set) -> int | str:
        """Both training stages on documents already through the frozen layers (EncodedDocuments), with
        `encoder_` and `labels_` set; returns the tuning epoch kept. Uses torch's global generator as it is."""
        from baselines.tasks.rr.joint_training import JointSettings, TuningResult, tune_jointly
        from baselines.tasks.rr.network import new_tagger
        from baselines.tasks.rr.trainer import train_tagger

        frozen = fit_set.all_features(self.encoder_)
        self.n_features_ = int(frozen[0].shape[1])
        self.model_ = new_tagger(self.n_features_, len(self.labels_), params_of(NetworkShape, self))
        data = self._stage_one_sequences(frozen, fit_set.labels, val_set)
        frozen_history = train_tagger(self.model_, data, self, self.seed, progress=True)
        tuned = tune_jointly(self.encoder_, self.model_, fit_set, val_set, params_of(JointSettings, self)) \
            if self.tune_epochs > 0 else TuningResult([], 0)
        self.model_.eval()
        self.history_ = {"frozen": frozen_history, "tuned": tuned.history}
        return tuned.kept_epoch

    def refit_encoded(self, every_set, kept_epoch: int | str) -> None:
        """Train a new encoder top and tagger from the same seed on `every_set` (the fitting and validation
        documents, through the frozen layers) with no validation: stage 1 for the epochs and learning rates it
        chose, then the joint stage up to the epoch it kept (the mean of the same epochs; none when it kept the
        frozen start). `history_` gains 'refit_frozen' and 'refit_tuned'."""
        import dataclasses

        import torch

        from baselines.tasks.rr.joint_training import EncodedDocuments, JointSettings, tune_jointly
        from baselines.tasks.rr.network import new_tagger
        from baselines.tasks.rr.trainer import chosen_rates, refit_tagger

        torch.manual_seed(self.seed)
        self.encoder_ = self._new_encoder(self.encoder)
        self.model_ = new_tagger(self.n_features_, len(self.labels_), params_of(NetworkShape, self))
        no_validation = EncodedDocuments([], [], [])
        data = self._stage_one_sequences(every_set.all_features(self.encoder_), every_set.labels, no_validation)
        self.history_["refit_frozen"] = refit_tagger(self.model_, data, self, self.seed,
                                                     chosen_rates(self.history_["frozen"]), progress=True)
        epochs = 0 if kept_epoch == 0 else kept_epoch if isinstance(kept_epoch, int) else self.tune_epochs
        settings = dataclasses.replace(params_of(JointSettings, self), tune_epochs=epochs)
        self.history_["refit_tuned"] = tune_jointly(self.encoder_, self.model_, every_set, no_validation,
                                                    settings).history if epochs else []
        self.model_.eval()

    def _new_encoder(self, folder):
        from baselines.encoders.names import resolve_encoder
        from baselines.tasks.rr.tuned_encoder import TunedEncoder

        source = Path(resolve_encoder(folder)) if not isinstance(folder, Path) else folder
        if not source.is_dir():
            raise BaselinesError(f"{self.name}: the encoder must be a local sentence-transformers folder, "
                                 f"got {folder!r}")
        return TunedEncoder(source, self.tuned_layers, self.max_seq_length)

    def _documents(self, docs: list[Document]):
        """EncodedDocuments of `docs`: lower token states (with a progress bar), surface features, label ids."""
        from baselines.tasks.rr.joint_training import EncodedDocuments

        texts = [sentence_texts(d) for d in docs]
        with progress_bar(total=sum(map(len, texts)), desc="encoding sentences (frozen layers)",
                          unit="sentence") as bar:
            states = apply_flat(lambda flat: self.encoder_.lower_states(flat, self.encode_batch_size, bar), texts)
        return EncodedDocuments(states, [handmade_features(d, self) for d in docs], label_ids(docs, self.labels_))

    def _stage_one_sequences(self, feats: list[np.ndarray], labels: list[np.ndarray], val_set) -> Sequences:
        xs, ys = cut_sequences(feats, labels, self.max_train_len)
        return Sequences(xs, ys, val_set.all_features(self.encoder_) if val_set.states else [], val_set.labels)

    def predict(self, records: list[Document], progress: bool = True) -> list[dict]:
        from baselines.tasks.rr.network import decode_documents, torch_threads

        check_predictable(records, self.labels_)
        with torch_threads(self.torch_threads):
            states = self.lower_states(records, progress)
            feats = self.features_from_states(records, states)
            decoded = decode_documents(self.model_, feats, self.predict_batch_docs, len(self.labels_))
        return decoded_rows(records, self.labels_, decoded)

    def lower_states(self, records: list[Document], progress: bool = True) -> list[list]:
        """Per document, its sentences' token states after the frozen layers (with a progress bar)."""
        texts = [sentence_texts(d) for d in records]
        with progress_bar(total=sum(map(len, texts)), desc="encoding sentences", unit="sentence",
                          enabled=progress) as bar:
            return apply_flat(lambda flat: self.encoder_.lower_states(flat, self.encode_batch_size, bar), texts)

    def features_from_states(self, records: list[Document], states: list[list]) -> list[np.ndarray]:
        """Per document, (n_sentences, n_features) float32: the tuned top layers' vectors and surface features."""
        vectors = apply_flat(lambda flat: self.encoder_.top_vectors(flat, self.encode_batch_size), states)
        return [np.hstack([block, handmade_features(doc, self)]).astype(np.float32) for doc, block in zip(records, vectors)]

    def save_state(self, folder: Path) -> None:
        save_tagger_files(self, folder)
        self.encoder_.save(folder / "encoder")

    def load_state(self, folder: Path) -> None:
        from baselines.tasks.rr.network import new_tagger

        weights = load_tagger_files(self, folder)
        self.encoder_ = self._new_encoder(folder / "encoder")
        self.model_ = new_tagger(self.n_features_, len(self.labels_), params_of(NetworkShape, self))
        self.model_.load_state_dict(weights)
        self.model_.eval()
