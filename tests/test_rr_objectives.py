"""The tagger's auxiliary objectives: label shift and class-weighted emissions, on toy data."""
from __future__ import annotations

import logging
import math

import numpy as np
import pytest
import torch

from baselines.core.errors import BaselinesError
from baselines.tasks.rr.network import Ensemble, NetworkShape, batches, new_tagger, padding_mask
from baselines.tasks.rr.objectives import balanced_weights, label_shift_loss, weighted_emission_loss
from baselines.tasks.rr.trainer import Sequences, TrainingSettings, train_tagger
from test_rr_methods import toy_sequences


def test_label_shift_loss_counts_only_pairs_inside_documents():
    head = torch.nn.Linear(8, 1)
    torch.nn.init.zeros_(head.weight)
    torch.nn.init.zeros_(head.bias)  # every logit 0: each pair costs log 2
    states = torch.randn(2, 4, 4)  # (B, T, 2H)
    y = torch.tensor([[0, 0, 1, 1], [2, 1, 0, 0]])
    mask = padding_mask(torch.tensor([4, 2]), 4)
    with torch.no_grad():
        loss = label_shift_loss(head, states, y, mask)
    assert math.isclose(float(loss), (3 + 1) * math.log(2) / 2, rel_tol=1e-6)
    assert float(label_shift_loss(head, states[:, :1], y[:, :1], mask[:, :1])) == 0.0


def test_weighted_emission_loss_is_the_weighted_cross_entropy_of_real_positions():
    scores = torch.randn(2, 3, 4)  # (B, T, L)
    y = torch.tensor([[0, 3, 1], [2, 0, 0]])
    mask = padding_mask(torch.tensor([3, 1]), 3)
    weights = torch.tensor([1.0, 2.0, 3.0, 4.0])
    expected = sum(float(weights[y[b, t]] * -torch.log_softmax(scores[b, t], 0)[y[b, t]])
                   for b, t in [(0, 0), (0, 1), (0, 2), (1, 0)]) / 2
    assert math.isclose(float(weighted_emission_loss(scores, y, mask, weights)), expected, rel_tol=1e-5)


def test_balanced_weights_favour_rare_labels_and_leave_unseen_ones_at_one():
    weights = balanced_weights([np.array([0, 0, 0, 1]), np.array([0, 0, 0, 0])], 3).numpy()
    assert weights[1] > 1.0 > weights[0] and weights[2] == 1.0
    assert math.isclose(weights[1], math.sqrt(8 / (3 * 1)), rel_tol=1e-6)


def test_tagger_with_both_objectives_learns_and_reloads_identically():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    xs, ys = toy_sequences(64, rng)
    val_xs, val_ys = toy_sequences(16, rng)
    shape = NetworkShape(projection=16, hidden=16, dropout=0.0, shift_weight=1.0)
    model = new_tagger(4, 3, shape)
    settings = TrainingSettings(lr=0.02, max_epochs=25, patience=25, rare_weight=1.0)
    history = train_tagger(model, Sequences(xs, ys, val_xs, val_ys), settings, seed=0)
    assert max(e["val_weighted_f1"] for e in history) > 0.9
    ensemble = Ensemble([model]).eval()
    restored = Ensemble.from_state_dict(ensemble.state_dict(), 1, 4, 3, shape)
    x, _, lengths, _ = next(batches(val_xs, None, list(range(len(val_xs))), len(val_xs)))
    with torch.no_grad():
        assert restored.decode(x, lengths)[0] == ensemble.decode(x, lengths)[0]


def test_negative_objective_weights_are_refused_by_name():
    with pytest.raises(BaselinesError, match="shift_weight must be >= 0"):
        new_tagger(4, 3, NetworkShape(shift_weight=-1.0))
    with pytest.raises(BaselinesError, match="rare_weight must be >= 0"):
        train_tagger(new_tagger(4, 3, NetworkShape()), Sequences(*toy_sequences(2, np.random.default_rng(0))),
                     TrainingSettings(rare_weight=-0.5), seed=0)


def test_negative_joint_epochs_are_refused_before_any_encoding():
    from baselines.tasks.rr.data import Document, Sentence
    from baselines.tasks.rr.bilstm_crf_ft import FineTunedTagger

    doc = Document("d", "A.", [Sentence("d/0", 0, 2, "A.", "FAC")])
    with pytest.raises(BaselinesError, match="tune_epochs must be >= 0"):
        FineTunedTagger(tune_epochs=-1).fit([doc])


def test_unknown_joint_schedule_is_refused_before_any_encoding():
    from baselines.tasks.rr.data import Document, Sentence
    from baselines.tasks.rr.bilstm_crf_ft import FineTunedTagger

    doc = Document("d", "A.", [Sentence("d/0", 0, 2, "A.", "FAC")])
    with pytest.raises(BaselinesError, match="tune_schedule must be one of constant, linear, got 'cosine'"):
        FineTunedTagger(tune_schedule="cosine").fit([doc])


def test_linear_schedule_warms_up_then_decays_to_zero():
    from baselines.tasks.rr.joint_training import schedule

    factor = schedule("linear", 100)  # 10 warm-up steps
    assert [factor(step) for step in (0, 4, 9)] == pytest.approx([0.1, 0.5, 1.0])
    assert factor(10) == pytest.approx(1.0) and factor(55) == pytest.approx(0.5)
    assert factor(99) == pytest.approx(1 / 90) and factor(100) == 0.0
    assert all(schedule("constant", 100)(step) == 1.0 for step in (0, 50, 99))


def test_negative_average_from_is_refused_before_any_encoding():
    from baselines.tasks.rr.data import Document, Sentence
    from baselines.tasks.rr.bilstm_crf_ft import FineTunedTagger

    doc = Document("d", "A.", [Sentence("d/0", 0, 2, "A.", "FAC")])
    with pytest.raises(BaselinesError, match="tune_average_from must be >= 0 .*got -1"):
        FineTunedTagger(tune_average_from=-1).fit([doc])


def test_weight_average_is_the_mean_of_the_points_in_each_entrys_dtype():
    from baselines.tasks.rr.joint_training import WeightAverage

    layer, average = torch.nn.Linear(3, 2), WeightAverage()
    layer.register_buffer("steps", torch.tensor(0, dtype=torch.int64))
    points = []
    for k in range(3):
        with torch.no_grad():
            layer.weight.fill_(float(k))
            layer.bias.copy_(torch.tensor([k, 2.0 * k]))
            layer.steps.fill_(2 * k)
        points.append({key: value.clone() for key, value in layer.state_dict().items()})
        average.add(layer)
    (mean,) = average.mean_states(layer)
    assert torch.equal(mean["weight"], torch.full((2, 3), 1.0)) and torch.equal(mean["bias"], torch.tensor([1.0, 2.0]))
    assert mean["steps"].dtype == torch.int64 and int(mean["steps"]) == 2
    assert torch.equal(layer.weight, points[-1]["weight"])  # averaging reads the module, never writes it


class ToyEncoder(torch.nn.Module):
    """Stands in for the tuned encoder: one trainable top layer over the mean of a sentence's token states."""

    dimension = 4

    def __init__(self):
        super().__init__()
        self.top = torch.nn.ModuleList([torch.nn.Linear(4, 4)])

    def pooled(self, states: list[torch.Tensor]) -> torch.Tensor:
        return self.top[0](torch.stack([s.float().mean(0) for s in states]))


def toy_encoded(n_docs: int, rng) -> "EncodedDocuments":
    from baselines.tasks.rr.joint_training import EncodedDocuments

    states = [[torch.from_numpy(rng.normal(size=(3, 4)).astype(np.float32)) for _ in range(5)] for _ in range(n_docs)]
    return EncodedDocuments(states, [np.zeros((5, 0), dtype=np.float32)] * n_docs,
                            [rng.integers(0, 3, size=5).astype(np.int64) for _ in range(n_docs)])


def tuned_with_scores(monkeypatch, scores: list[float], average_from: int, with_validation: bool = True):
    """tune_jointly over toy documents for 3 epochs, validation scores replaced by `scores` in call order:
    (its result, the encoder and tagger, their weights at every validation, the weights they end with)."""
    from baselines.tasks.rr import joint_training
    from baselines.tasks.rr.joint_training import EncodedDocuments, JointSettings, tune_jointly

    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    encoder, tagger = ToyEncoder(), new_tagger(4, 3, NetworkShape(projection=8, hidden=8, dropout=0.0))
    scored, remaining = [], iter(scores)

    def scripted_score(encoder, tagger, val, settings):
        scored.append(weights_of(encoder, tagger))
        return next(remaining)

    monkeypatch.setattr(joint_training, "_score", scripted_score)
    settings = JointSettings(tune_epochs=3, encoder_lr=0.05, tagger_lr=0.05, tune_average_from=average_from,
                             tune_schedule="constant", piece_len=2, batch_pieces=2, rare_weight=0.0,
                             predict_batch_docs=4, seed=0)
    val = toy_encoded(1, rng) if with_validation else EncodedDocuments([], [], [])
    result = tune_jointly(encoder, tagger, toy_encoded(3, rng), val, settings, progress=False)
    assert next(remaining, None) is None, "every scripted score is used"
    return result, scored, weights_of(encoder, tagger)


def weights_of(*modules) -> list[torch.Tensor]:
    return [value.detach().clone() for module in modules for value in module.state_dict().values()]


def same_weights(a: list[torch.Tensor], b: list[torch.Tensor]) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("scores, kept", [([0.5, 0.7, 0.6, 0.65], 1), ([0.9, 0.7, 0.6, 0.65], 0)])
def test_joint_stage_keeps_the_best_epoch_counting_the_frozen_start(monkeypatch, scores, kept):
    result, scored, final = tuned_with_scores(monkeypatch, scores, average_from=0)
    assert result.kept_epoch == kept
    assert result.history == [{"epoch": 0, "val_weighted_f1": scores[0]}] + [
        {"epoch": e, "loss": result.history[e]["loss"], "val_weighted_f1": scores[e]} for e in (1, 2, 3)]
    assert not same_weights(scored[0], scored[3])  # training moved the weights ...
    assert same_weights(final, scored[kept])  # ... and the kept epoch's weights are restored


def test_joint_stage_without_validation_documents_keeps_the_last_epoch(monkeypatch, caplog):
    with caplog.at_level(logging.INFO, logger="baselines.tasks.rr.joint_training"):
        result, scored, final = tuned_with_scores(monkeypatch, [0.5, 0.9, 0.8, 0.1], average_from=0,
                                                  with_validation=False)
    assert result.kept_epoch == 3 and same_weights(final, scored[3])
    assert [set(entry) for entry in result.history] == [{"epoch"}] + [{"epoch", "loss"}] * 3  # nothing to score
    said = [record.getMessage() for record in caplog.records if "tuning epoch" in record.getMessage()]
    assert len(said) == 3 and all(line.endswith("no validation documents") for line in said)


@pytest.mark.parametrize("mean_score, kept", [(0.8, 0), (0.9, "mean 2-3"), (0.95, "mean 2-3")])
def test_the_averaged_epochs_are_kept_unless_the_frozen_start_scores_higher(monkeypatch, mean_score, kept):
    result, scored, final = tuned_with_scores(monkeypatch, [0.9, 0.7, 0.6, 0.65, mean_score], average_from=2)
    assert result.kept_epoch == kept
    assert result.history[-1] == {"epoch": "mean 2-3", "val_weighted_f1": mean_score}
    mean = [(a + b) / 2 for a, b in zip(scored[2], scored[3])]  # the weights after epochs 2 and 3
    assert all(torch.allclose(x, y) for x, y in zip(scored[4], mean))  # what was scored as the mean
    assert same_weights(final, scored[0] if kept == 0 else scored[4])


def test_the_joint_settings_are_parameters_of_the_fine_tuned_tagger():
    import dataclasses

    from baselines.methods.base import params_of
    from baselines.tasks.rr.bilstm_crf_ft import FineTunedTagger
    from baselines.tasks.rr.joint_training import JointSettings

    tagger = FineTunedTagger(tune_epochs=7, piece_len=9, rare_weight=0.5)
    settings = params_of(JointSettings, tagger)
    assert all(getattr(settings, f.name) == getattr(tagger, f.name) for f in dataclasses.fields(JointSettings))
    assert (settings.tune_epochs, settings.piece_len, settings.rare_weight) == (7, 9, 0.5)


def test_tuned_tagger_weights_the_rare_roles_by_default_and_the_frozen_one_does_not():
    from baselines.tasks.rr.bilstm_crf import BiLstmCrfTagger
    from baselines.tasks.rr.bilstm_crf_ft import FineTunedTagger
    from baselines.tasks.rr.trainer import loss_weighting

    ys = [np.array([0, 0, 0, 1])]
    tuned = loss_weighting(ys, 2, FineTunedTagger().rare_weight)
    assert tuned["rare_weight"] == 1.0
    assert tuned["class_weights"][1] > tuned["class_weights"][0]  # the rarer label counts for more
    assert loss_weighting(ys, 2, BiLstmCrfTagger().rare_weight) == {}


def test_transition_prior_is_the_smoothed_log_probability_of_the_training_sequences():
    from torchcrf import CRF

    from baselines.tasks.rr.trainer import set_transition_prior

    crf = CRF(3, batch_first=True)
    set_transition_prior(crf, [np.array([0, 1, 1]), np.array([0, 2]), np.array([], dtype=np.int64)])
    transitions = torch.exp(crf.transitions).detach().numpy()
    assert np.allclose(transitions.sum(axis=1), 1.0)
    assert np.allclose(transitions[0], [1 / 5, 2 / 5, 2 / 5])  # 0->1 and 0->2 once each, plus one per pair
    assert np.allclose(transitions[1], [1 / 4, 2 / 4, 1 / 4])
    assert np.allclose(torch.exp(crf.start_transitions).detach().numpy(), [3 / 5, 1 / 5, 1 / 5])
    assert np.allclose(torch.exp(crf.end_transitions).detach().numpy(), [1 / 5, 2 / 5, 2 / 5])
