"""Real LegalEval data: a small BiLSTM-CRF beats the majority floor on a dev slice and reloads exactly."""
from __future__ import annotations

import json

import pytest

from baselines.tasks.rr.data import load_rr
from baselines.evaluation.scoring import score_predictions
from baselines.methods.base import Method
from baselines.tasks.rr.bilstm_crf import BiLstmCrfTagger
from baselines.tasks.rr.simple import RRMajority
from baselines.registry import get_task

pytestmark = [pytest.mark.realdata, pytest.mark.slow]


def weighted_f1(method, docs) -> float:
    task = get_task("rr")
    result, _ = score_predictions(task, method.predict(docs, progress=False), task.references(docs), replicates=20)
    return result.metrics["weighted_f1"]


def test_small_bilstm_crf_beats_majority_and_round_trips(data_dir, tmp_path):
    train = load_rr(data_dir, "train")[:24]
    dev = load_rr(data_dir, "dev")[:4]
    floor = weighted_f1(RRMajority().fit(train), dev)
    tagger = BiLstmCrfTagger(max_epochs=10, patience=4, batch_docs=2, lr=0.004, hidden=64, projection=128,
                             n_models=2, seed=0).fit(train)
    assert tagger.train_info_["val_documents"] >= 1 and tagger.history_
    assert weighted_f1(tagger, dev) > floor + 0.1
    rows = tagger.predict(dev, progress=False)
    reloaded = Method.load(tagger.save(tmp_path / "bilstm_crf"))
    assert reloaded.predict(dev, progress=False) == rows
    assert set(rows[0]["probabilities"]) == set(tagger.labels_)


def test_seeded_training_is_deterministic(data_dir):
    train = load_rr(data_dir, "train")[:6]
    dev = load_rr(data_dir, "dev")[:1]
    runs = [BiLstmCrfTagger(max_epochs=2, hidden=32, projection=64, n_models=1, seed=3).fit(train).predict(
        dev, progress=False) for _ in range(2)]
    assert runs[0] == runs[1]


def test_ensemble_members_trained_in_workers_equal_those_trained_in_process(data_dir):
    train = load_rr(data_dir, "train")[:6]
    dev = load_rr(data_dir, "dev")[:1]
    runs = [BiLstmCrfTagger(max_epochs=2, hidden=32, projection=64, n_models=2, workers=workers, seed=3).fit(train)
            for workers in (1, 2)]
    assert len(runs[0].model_.members) == 2 and len(runs[0].history_) == 2
    assert runs[0].predict(dev, progress=False) == runs[1].predict(dev, progress=False)


def test_tiny_fine_tune_moves_the_encoder_and_reloads_exactly(data_dir, tmp_path):
    """Two judgments (163 sentences), one joint epoch, short sequences: the tuned layers change, the frozen
    ones do not, and the saved folder (a sentence-transformers encoder inside) predicts the same rows."""
    import torch

    from baselines.tasks.rr.bilstm_crf_ft import FineTunedTagger

    train = load_rr(data_dir, "train")[:2]
    dev = load_rr(data_dir, "dev")[:1]
    tagger = FineTunedTagger(max_seq_length=24, tuned_layers=1, tune_epochs=1, max_epochs=3, hidden=32,
                             projection=64, encoder_lr=1e-3, val_fraction=0.0, seed=0)
    before = {k: v.clone() for k, v in tagger._new_encoder(tagger.encoder).transformer.state_dict().items()}
    tagger.fit(train)
    after = tagger.encoder_.transformer.state_dict()
    changed = {k.split(".")[2] for k in before if k.startswith("encoder.layer.") and not torch.equal(before[k], after[k])}
    assert changed == {str(tagger.encoder_.cut)}  # only the top layer moved
    assert [e["epoch"] for e in tagger.history_["tuned"]] == [0, 1, "mean 1-1"]  # fewer epochs than
    assert tagger.train_info_["kept_tuning_epoch"] == "mean 1-1"  # tune_average_from (2): the last one
    rows = tagger.predict(dev, progress=False)
    folder = tagger.save(tmp_path / "bilstm-crf-ft")
    assert (folder / "encoder" / "modules.json").is_file() and (folder / "encoder" / "model.safetensors").is_file()
    assert json.loads((folder / "encoder" / "sentence_bert_config.json").read_text())["max_seq_length"] == 24
    assert Method.load(folder).predict(dev, progress=False) == rows


def test_tiny_fine_tune_with_averaged_epochs_keeps_the_mean_and_reloads_exactly(data_dir, tmp_path):
    from baselines.tasks.rr.bilstm_crf_ft import FineTunedTagger

    train, dev = load_rr(data_dir, "train")[:3], load_rr(data_dir, "dev")[:1]
    tagger = FineTunedTagger(max_seq_length=16, tuned_layers=1, tune_epochs=2, tune_average_from=1, max_epochs=2,
                             hidden=16, projection=32, encoder_lr=1e-3, val_fraction=0.0, seed=0).fit(train)
    assert [e["epoch"] for e in tagger.history_["tuned"]] == [0, 1, 2, "mean 1-2"]
    assert tagger.train_info_["kept_tuning_epoch"] == "mean 1-2"  # no validation documents: the mean
    rows = tagger.predict(dev, progress=False)
    reloaded = Method.load(tagger.save(tmp_path / "averaged"))
    assert reloaded.predict(dev, progress=False) == rows
    again = reloaded.save(tmp_path / "saved-again") / "encoder" / "tuned.json"
    assert again.read_text() == (tmp_path / "averaged" / "encoder" / "tuned.json").read_text()  # same source


def test_tuned_ensemble_member_is_the_single_tagger_and_reloads_exactly(data_dir, tmp_path):
    """Member k of a tuned ensemble is the `bilstm-crf-ft` tagger of seed `seed + k` on the first seed's split
    (`split_seed`; the shared lower states change nothing); the ensemble of one member scores as that member on
    validation. Four short judgments, two of them validation: seed 6 alone would hold out another two."""
    import torch

    from baselines.tasks.rr.bilstm_crf_ft import FineTunedTagger
    from baselines.tasks.rr.common import split_indexes
    from baselines.tasks.rr.tuned_ensemble import TunedEnsemble

    train = sorted(load_rr(data_dir, "train")[:8], key=lambda doc: len(doc.sentences))[:4]
    dev = load_rr(data_dir, "dev")[:1]
    settings = dict(max_seq_length=16, tuned_layers=1, tune_epochs=1, max_epochs=2, hidden=16, projection=32,
                    val_fraction=0.5, seed=5)
    assert set(split_indexes(4, 0.5, 5)[1]) != set(split_indexes(4, 0.5, 6)[1])  # so split_seed is what pairs them
    ensemble = TunedEnsemble(members=2, **settings).fit(train)
    single = FineTunedTagger(**settings).fit(train)
    assert ensemble.members_[0].predict(dev, progress=False) == single.predict(dev, progress=False)
    second = FineTunedTagger(**{**settings, "seed": 6, "split_seed": 5}).fit(train)
    for part in ("model_", "encoder_"):  # the tagger and the tuned top layers, weight for weight
        member_weights = getattr(ensemble.members_[1], part).state_dict()
        second_weights = getattr(second, part).state_dict()
        assert all(torch.equal(member_weights[name], second_weights[name]) for name in second_weights), part
    info = ensemble.train_info_
    assert info["val_documents"] == 2 and len(info["member_val_weighted_f1"]) == 2
    assert info["ensemble_val_weighted_f1"][0] == info["member_val_weighted_f1"][0]
    rows = ensemble.predict(dev, progress=False)
    folder = ensemble.save(tmp_path / "ensemble")
    assert Method.load(folder).predict(dev, progress=False) == rows
    assert Method.load(folder / "member-1").predict(dev, progress=False) == \
        ensemble.members_[1].predict(dev, progress=False)  # each member is a bilstm-crf-ft model folder
