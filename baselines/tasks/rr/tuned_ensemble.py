"""`bilstm-crf-ft-ensemble`: several tuned taggers of `bilstm-crf-ft` decoded as one.

The members are trained one after another from consecutive seeds (seed, seed+1, ...) on the same fitting
and validation documents (the split the first seed draws), so the validation documents score every member
and the ensemble alike. Their encoders share the frozen lower layers, whose token states are computed once,
in training and in prediction; each member runs its own tuned top layers and tagger, and the ensemble
decodes the mean of the members' emission scores with the mean of their CRF transitions (SplitEnsemble).
Each member is saved as a complete `bilstm-crf-ft` model folder (`member-K/`).
"""
from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from baselines.core.errors import BaselinesError
from baselines.core.params import FalseOnly, Range
from baselines.core.progress import say
from baselines.methods.base import Method
from baselines.tasks.rr.bilstm_crf_ft import FineTunedTagger
from baselines.tasks.rr.common import check_predictable, decoded_rows
from baselines.tasks.rr.data import Document
from baselines.tasks.rr.trainer import Sequences, validation_score

REFIT_REFUSAL = "an ensemble's members are weighed on its validation documents; refit is an option of bilstm-crf-ft"


@dataclass
class TunedEnsemble(FineTunedTagger):
    """`members` taggers of `bilstm-crf-ft` with these parameters, decoded as one.

    Parameters: those of `bilstm-crf-ft` (each member's; `seed` is the first member's), and `members`."""

    PARAMETER_RULES = {"members": Range(1), "refit": FalseOnly(REFIT_REFUSAL)}  # see baselines.core.params

    members: int = 3  # taggers trained from seeds seed, seed+1, ...

    def fit(self, train: list[Document], val=None):
        from baselines.tasks.rr.network import torch_threads

        started = time.time()
        docs, fit_docs, val_docs = self.training_documents(train, val)
        with torch_threads(self.torch_threads):
            self.members_, kept, val_set = self._fit_members(fit_docs, val_docs)
            scores = self._validation_scores(val_set)
        self.model_ = joined_model(self.members_)
        self.train_info_ = {"documents": len(docs), "train_documents": len(fit_docs), "val_documents": len(val_docs),
                            "fit_seconds": round(time.time() - started, 2), "kept_tuning_epochs": kept, **scores}
        return self

    def check_settings(self) -> None:
        super().check_settings()
        if self.refit:
            raise BaselinesError(f"{self.name}: refit=true is not available: {REFIT_REFUSAL}")

    def _fit_members(self, fit_docs: list[Document], val_docs: list[Document]) -> tuple[list, list, object]:
        """(fitted members, the tuning epoch each kept, the validation documents through the frozen layers); the
        lower token states are computed once, by the first member."""
        import torch

        members, kept, encoded = [], [], None
        for k in range(self.members):
            say(f"ensemble member {k + 1}/{self.members} (seed {self.seed + k})")
            torch.manual_seed(self.seed + k)
            member = self.member(k)
            member.labels_ = self.labels_
            member.encoder_ = member._new_encoder(self.encoder)
            encoded = encoded or (member._documents(fit_docs), member._documents(val_docs))
            kept.append(member.fit_encoded(*encoded))
            member.train_info_ = {"ensemble_member": k, "train_documents": len(fit_docs),
                                  "val_documents": len(val_docs), "kept_tuning_epoch": kept[-1]}
            members.append(member)
        return members, kept, encoded[1]

    def member(self, k: int) -> FineTunedTagger:
        """The unfitted `bilstm-crf-ft` tagger of member k: these parameters, seed `seed + k`."""
        shared = {f.name: getattr(self, f.name) for f in dataclasses.fields(FineTunedTagger)}
        return FineTunedTagger(**{**shared, "seed": self.seed + k})

    def _validation_scores(self, val_set) -> dict:
        """Validation weighted F1 of each member alone and of the ensemble of the first 1, 2, ... members."""
        if not val_set.states:
            return {}
        per_member = [val_set.all_features(m.encoder_) for m in self.members_]

        def score(model, feats) -> float:
            return validation_score(model, Sequences([], [], feats, val_set.labels), self.predict_batch_docs, 0.0)

        return {"member_val_weighted_f1": [score(m.model_, f) for m, f in zip(self.members_, per_member)],
                "ensemble_val_weighted_f1": [score(joined_model(self.members_[:j]), joined(per_member[:j]))
                                             for j in range(1, len(self.members_) + 1)]}

    def predict(self, records: list[Document], progress: bool = True) -> list[dict]:
        from baselines.tasks.rr.network import decode_documents, torch_threads

        check_predictable(records, self.labels_)
        with torch_threads(self.torch_threads):
            states = self.members_[0].lower_states(records, progress)
            feats = joined([m.features_from_states(records, states) for m in self.members_])
            decoded = decode_documents(self.model_, feats, self.predict_batch_docs, len(self.labels_))
        return decoded_rows(records, self.labels_, decoded)

    def save_state(self, folder: Path) -> None:
        from baselines.core.safe_write import write_json

        for k, member in enumerate(self.members_):
            target = folder / f"member-{k}"
            target.mkdir()
            write_json(target / "config.json", member.config_dict())
            member.save_state(target)
        write_json(folder / "ensemble.json", {"labels": list(self.labels_), "train": self.train_info_})

    def load_state(self, folder: Path) -> None:
        saved = json.loads((folder / "ensemble.json").read_text())
        self.labels_, self.train_info_ = tuple(saved["labels"]), saved["train"]
        self.members_ = [Method.load(folder / f"member-{k}") for k in range(self.members)]
        self.model_ = joined_model(self.members_)


def joined_model(members: list[FineTunedTagger]):
    """The members' taggers as one SplitEnsemble over their features side by side (eval mode)."""
    from baselines.tasks.rr.network import SplitEnsemble

    return SplitEnsemble([m.model_ for m in members], [m.n_features_ for m in members]).eval()


def joined(per_member: list[list[np.ndarray]]) -> list[np.ndarray]:
    """Per document, the members' feature matrices side by side: (n_sentences, sum of their widths)."""
    return [np.hstack(blocks) for blocks in zip(*per_member)]
