"""Refitting a rhetorical-role tagger on every training document, validation ones too, for the epochs (and
learning-rate steps) its validated run chose."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from baselines.core.errors import BaselinesError
from baselines.tasks.rr.network import NetworkShape, new_tagger
from baselines.tasks.rr.trainer import (Sequences, TrainingSettings, chosen_rates, refit_tagger, train_tagger,
                                        with_validation_documents)
from baselines.tasks.rr.fixture import contract_documents as rr_documents
from test_rr_methods import toy_sequences


def test_a_refit_repeats_the_learning_rates_up_to_the_first_best_epoch():
    history = [{"epoch": 1, "lr": 0.002, "val_weighted_f1": 0.5}, {"epoch": 2, "lr": 0.002, "val_weighted_f1": 0.7},
               {"epoch": 3, "lr": 0.001, "val_weighted_f1": 0.7}, {"epoch": 4, "lr": 0.001, "val_weighted_f1": 0.6},
               {"epoch": 1, "lr": 0.002, "loss": 1.0, "refit": True}]
    assert chosen_rates(history) == [0.002, 0.002]


def test_training_records_the_learning_rate_of_every_epoch_after_its_decays():
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    data = Sequences(*toy_sequences(8, rng), *toy_sequences(2, rng))
    settings = TrainingSettings(lr=0.01, max_epochs=12, patience=12, lr_decay=0.5, decay_patience=0)
    history = train_tagger(new_tagger(4, 3, NetworkShape(projection=8, hidden=8)), data, settings, seed=0)
    rates = [entry["lr"] for entry in history]
    assert rates[0] == 0.01 and min(rates) < 0.01 and rates == sorted(rates, reverse=True)


def test_a_refit_trains_on_the_validation_documents_too_for_the_given_epochs():
    rng = np.random.default_rng(1)
    xs, ys = toy_sequences(8, rng)
    val_xs, val_ys = toy_sequences(3, rng)
    data = with_validation_documents(Sequences(xs, ys, val_xs, val_ys), 5, "m")
    assert not data.val_xs and data.xs[:8] == xs and max(map(len, data.xs[8:])) <= 5  # validation ones cut
    assert sum(map(len, data.xs)) == sum(map(len, xs + val_xs))

    def refit():
        torch.manual_seed(0)
        model = new_tagger(4, 3, NetworkShape(projection=8, hidden=8))
        return model, refit_tagger(model, data, TrainingSettings(), 0, [0.01, 0.005])

    (first, history), (second, _) = refit(), refit()
    assert [(e["epoch"], e["lr"], e["refit"]) for e in history] == [(1, 0.01, True), (2, 0.005, True)]
    assert all(torch.equal(a, b) for a, b in zip(first.state_dict().values(), second.state_dict().values()))


def test_a_refit_without_validation_documents_is_refused_before_any_work():
    with pytest.raises(BaselinesError, match="needs validation documents"):
        with_validation_documents(Sequences(*toy_sequences(2, np.random.default_rng(0))), 5, "m")
    from baselines.tasks.rr.bilstm_crf import BiLstmCrfTagger
    from baselines.tasks.rr.bilstm_crf_ft import FineTunedTagger

    for method in (BiLstmCrfTagger(refit=True, val_fraction=0.0), FineTunedTagger(refit=True, val_fraction=0.0)):
        with pytest.raises(BaselinesError, match="refit=true needs validation documents.*val_fraction"):
            method.fit(rr_documents(8))


@pytest.mark.parametrize("method", ["bilstm-crf", "bilstm-crf-ft"])
def test_a_config_asking_for_a_refit_without_validation_documents_is_refused_as_it_loads(method):
    from baselines.core.config import resolve_config
    from baselines.methods import method_class

    klass = method_class("rr", method)
    assert resolve_config(klass, "rr", method, overrides={"refit": True})["refit"] is True
    with pytest.raises(BaselinesError, match="command-line overrides: refit must be false while val_fraction is 0"):
        resolve_config(klass, "rr", method, overrides={"refit": True, "val_fraction": 0})
    with pytest.raises(BaselinesError, match="refit must be true or false, got 1"):
        resolve_config(klass, "rr", method, overrides={"refit": 1})


def test_the_tuned_ensemble_refuses_refit_as_its_config_loads():
    from baselines.core.config import resolve_config
    from baselines.methods import method_class

    klass = method_class("rr", "bilstm-crf-ft-ensemble")
    assert resolve_config(klass, "rr", "bilstm-crf-ft-ensemble")["refit"] is False
    with pytest.raises(BaselinesError, match="refit must be false .an ensemble's members are weighed"):
        resolve_config(klass, "rr", "bilstm-crf-ft-ensemble", overrides={"refit": True})


def test_the_frozen_tagger_refits_every_member_on_every_document():
    from baselines.tasks.rr.bilstm_crf import BiLstmCrfTagger

    docs = rr_documents(10)
    tagger = BiLstmCrfTagger(refit=True, max_epochs=3, n_models=2, workers=1).fit(docs)
    assert tagger.train_info_["refit_documents"] == 10 == tagger.train_info_["train_documents"] + 1
    for history, kept in zip(tagger.history_, tagger.train_info_["best_epochs"]):
        assert [e["epoch"] for e in history if e.get("refit")] == list(range(1, kept + 1))
    assert len(tagger.predict(docs[:2])) == 10


def test_the_tuned_tagger_refits_both_stages_and_an_ensemble_refuses_to():
    from baselines.tasks.rr.bilstm_crf_ft import FineTunedTagger
    from baselines.tasks.rr.tuned_ensemble import TunedEnsemble

    docs = rr_documents(10)
    tagger = FineTunedTagger(refit=True, max_epochs=2, tune_epochs=1, max_seq_length=16).fit(docs)
    history, kept = tagger.history_, tagger.train_info_["kept_tuning_epoch"]
    assert len(history["refit_frozen"]) == len(chosen_rates(history["frozen"]))
    assert (history["refit_tuned"] == []) == (kept == 0) and tagger.train_info_["refit_documents"] == 10
    assert not any("val_weighted_f1" in entry for entry in history["refit_frozen"] + history["refit_tuned"])
    assert len(tagger.predict(docs[:1])) == 5
    with pytest.raises(BaselinesError, match="refit=true is not available: an ensemble.s members are weighed"):
        TunedEnsemble(refit=True).fit(docs)


def test_an_eval_without_its_model_names_the_train_command_with_the_same_config_and_overrides():
    from baselines.runs.model_choice import train_command

    assert train_command("rr", "bilstm-crf-ft", "bilstm-crf-ft-top6-refit", "bilstm-crf-ft-top6-refit", {}) == \
        "baselines train rr --method bilstm-crf-ft --config bilstm-crf-ft-top6-refit"
    assert train_command("rr", "bilstm-crf", "bilstm-crf-refit", None, {"refit": True}) == \
        "baselines train rr --method bilstm-crf --set refit=true --name bilstm-crf-refit"
    assert train_command("rr", "bilstm-crf", "bilstm-crf", None, None) == "baselines train rr --method bilstm-crf"
