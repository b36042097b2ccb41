"""Rhetorical-role taggers on toy data: the CRF network, the floors, save/load and bad input."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from baselines.tasks.rr.data import Document, Sentence
from baselines.core.errors import BaselinesError, DataError
from baselines.methods.base import Method
from baselines.tasks.rr.features import FEATURE_NAMES, FeatureSettings, feature_names, sentence_features
from baselines.tasks.rr.network import BiLstmCrf, Ensemble, batches, crf_marginals
from baselines.tasks.rr.simple import RRMajority, RRTfidfLogreg
from baselines.tasks.rr.fixture import contract_documents as rr_documents
from baselines.tasks.rr.pipeline import document_from_text, project, resegment


def toy_sequences(n, rng):
    """Label 0 starts every document and labels then cycle 0->1->2->0; features after t=0 are noise."""
    xs, ys = [], []
    for _ in range(n):
        length = int(rng.integers(1, 12))
        y = np.arange(length) % 3
        x = rng.normal(size=(length, 4)).astype(np.float32)
        x[0, 0] += 3.0
        xs.append(x)
        ys.append(y.astype(np.int64))
    return xs, ys


def test_bilstm_crf_learns_a_toy_sequence_problem():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    xs, ys = toy_sequences(64, rng)
    model = BiLstmCrf(4, 3, projection=16, hidden=16, layers=1, dropout=0.0)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
    for _ in range(30):
        for x, y, lengths, _ in batches(xs, ys, list(range(len(xs))), 16):
            optimizer.zero_grad()
            model.loss(x, y, lengths).backward()
            optimizer.step()
    model.eval()
    test_x, test_y = toy_sequences(20, rng)
    with torch.no_grad():
        x, _, lengths, _ = next(batches(test_x, None, list(range(20)), 20))
        paths, marginals = model.decode(x, lengths)
    accuracy = np.mean(np.concatenate([np.array(p) == y for p, y in zip(paths, test_y)]))
    assert accuracy > 0.9
    for path, marginal, y in zip(paths, marginals, test_y):
        assert len(path) == len(y) == marginal.shape[0]
        assert np.allclose(marginal.sum(axis=1), 1.0, atol=1e-5)  # float32 softmax rows: ~1e-7 off



def test_training_without_validation_documents_keeps_the_best_training_loss():
    """No validation documents: epochs are scored by minus their loss, which may well be below -1."""
    from baselines.tasks.rr.network import new_tagger, NetworkShape
    from baselines.tasks.rr.trainer import Sequences, TrainingSettings, train_tagger

    torch.manual_seed(0)
    xs, ys = toy_sequences(8, np.random.default_rng(0))
    model = new_tagger(4, 3, NetworkShape(projection=8, hidden=8))
    history = train_tagger(model, Sequences(xs, ys), TrainingSettings(max_epochs=3, patience=3), seed=0)
    assert len(history) == 3 and min(e["loss"] for e in history) > 1.0  # the scores were all below -1

def test_long_documents_are_cut_into_consecutive_pieces_in_document_order():
    from baselines.tasks.rr.common import cut_sequences, label_ids

    docs = [doc("long", [(f"Sentence {k}.", "FAC") for k in range(5)]), doc("short", [("A.", "RPC"), ("B.", None)])]
    ys = label_ids(docs, ("FAC", "RATIO", "RPC"))
    assert [y.tolist() for y in ys] == [[0] * 5, [2, -1]]
    xs = [np.arange(5.0)[:, None], np.arange(10.0, 12.0)[:, None]]
    pieces, labels = cut_sequences(xs, ys, 2)
    assert [p.ravel().tolist() for p in pieces] == [[0, 1], [2, 3], [4], [10, 11]]
    assert [y.tolist() for y in labels] == [[0, 0], [0, 0], [0], [2, -1]]


def test_ensemble_averages_emissions_and_transitions():
    torch.manual_seed(2)
    members = [BiLstmCrf(4, 3, projection=8, hidden=8, layers=1, dropout=0.0).eval() for _ in range(2)]
    for member in members:
        torch.nn.init.normal_(member.crf.transitions)
    x, _, lengths, _ = next(batches([np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32)], None, [0], 1))
    with torch.no_grad():
        alone = Ensemble(members[:1]).eval()
        assert alone.decode(x, lengths)[0] == members[0].decode(x, lengths)[0]
        both = Ensemble(members).eval()
        mean = (members[0].emissions(x, lengths) + members[1].emissions(x, lengths)) / 2
        assert torch.allclose(both.emissions(x, lengths), mean)
        assert torch.allclose(both.crf.transitions, (members[0].crf.transitions + members[1].crf.transitions) / 2)
        restored = Ensemble([BiLstmCrf(4, 3, projection=8, hidden=8, layers=1, dropout=0.0) for _ in range(2)])
        restored.load_state_dict(both.state_dict())
        assert restored.eval().decode(x, lengths)[0] == both.decode(x, lengths)[0]


def test_split_ensemble_gives_each_member_its_own_block_of_features():
    from baselines.tasks.rr.network import SplitEnsemble

    torch.manual_seed(3)
    members = [BiLstmCrf(width, 3, projection=8, hidden=8, layers=1, dropout=0.0).eval() for width in (4, 2)]
    blocks = [np.random.default_rng(k).normal(size=(5, width)).astype(np.float32) for k, width in enumerate((4, 2))]
    x, _, lengths, _ = next(batches([np.hstack(blocks)], None, [0], 1))  # (1, 5, 6)
    with torch.no_grad():
        each = [m.emissions(torch.from_numpy(b)[None], lengths) for m, b in zip(members, blocks)]
        assert torch.allclose(SplitEnsemble(members, [4, 2]).eval().emissions(x, lengths), (each[0] + each[1]) / 2)


def test_split_seed_draws_the_validation_documents_whatever_the_seed():
    from baselines.tasks.rr.bilstm_crf_ft import FineTunedTagger

    docs = rr_documents(12)

    def held_out(**params):
        tagger = FineTunedTagger(val_fraction=0.25, **params)
        tagger.labels_ = ("ANALYSIS", "FAC", "PREAMBLE", "RPC")
        return [d.id for d in tagger.fitting_split(docs, None)[1]]

    assert held_out(seed=1, split_seed=0) == held_out(seed=0) != held_out(seed=1)


def test_marginals_match_brute_force():
    from itertools import product

    from torchcrf import CRF

    torch.manual_seed(1)
    crf = CRF(3, batch_first=True)
    torch.nn.init.normal_(crf.transitions)
    scores = torch.randn(4, 3)  # (T, L)
    totals = torch.zeros(4, 3)
    for path in product(range(3), repeat=4):
        tags = torch.tensor([path])
        weight = crf._compute_score(scores[None].transpose(0, 1), tags.T, torch.ones(4, 1, dtype=torch.bool)).exp()
        for t, label in enumerate(path):
            totals[t, label] += weight[0]
    expected = totals / totals.sum(dim=1, keepdim=True)
    # forward-backward against brute force over 81 paths, both float32 on 4 steps: rounding stays near 1e-7
    assert torch.allclose(crf_marginals(crf, scores), expected, atol=1e-5)


def doc(doc_id, pairs):
    text, spans, offset = "", [], 0
    for sentence, label in pairs:
        spans.append((offset, offset + len(sentence), label))
        text += sentence + "\n"
        offset += len(sentence) + 1
    sentences = [Sentence(f"{doc_id}/{k}", s, e, text[s:e], label) for k, (s, e, label) in enumerate(spans)]
    return Document(doc_id, text, sentences, labels=("FAC", "RATIO", "RPC"))


TRAIN = [doc(f"d{k}", [("The facts are these.", "FAC"), ("The accused was seen.", "FAC"),
                       ("We hold the law is clear.", "RATIO"), ("Appeal dismissed.", "RPC")]) for k in range(6)]


def test_floors_and_tfidf_predict_one_row_per_sentence(tmp_path):
    one = [doc("single", [("Appeal dismissed.", "RPC")])]
    majority = RRMajority().fit(TRAIN)
    assert {r["prediction"] for r in majority.predict(TRAIN)} == {"FAC"}
    tfidf = RRTfidfLogreg(min_df=1).fit(TRAIN)
    rows = tfidf.predict(TRAIN + one)
    assert [r["id"] for r in rows][-1] == "single/0" and rows[-1]["prediction"] == "RPC"
    assert abs(sum(rows[0]["probabilities"].values()) - 1) < 1e-3
    folder = tfidf.save(tmp_path / "tfidf")
    assert Method.load(folder).predict(TRAIN) == tfidf.predict(TRAIN)


def test_unknown_gold_label_is_a_clear_error():
    model = RRMajority().fit(TRAIN)
    strange = [doc("odd", [("Something.", "STA")])]
    with pytest.raises(DataError, match="'odd'.*STA"):
        model.predict(strange)
    with pytest.raises(BaselinesError, match="no labelled"):
        RRMajority().fit([doc("x", [("Text.", None)])])


def test_surface_features_for_one_and_many_sentences():
    assert sentence_features(doc("one", [("Held: appeal allowed.", "RPC")])).shape == (1, 24)
    many = doc("long", [(f"Sentence {k} of the judgment.", "FAC") for k in range(5000)])
    features = sentence_features(many)
    assert features.shape == (5000, 24) and np.isfinite(features).all()


def test_projection_to_gold_sentences():
    gold = doc("g", [("First one.", "FAC"), ("Second one.", "FAC"), ("Third.", "RPC")])
    spans = [(0, 22), (23, 29)]  # first two gold sentences merged
    predicted = resegment([gold], type("Fixed", (), {"segment": lambda self, text: spans})())
    rows = [{"id": s.id, "prediction": label} for s, label in zip(predicted[0].sentences, ["FAC", "RPC"])]
    assert [(r["id"], r["prediction"]) for r in project(predicted, rows)] == [
        ("g/0", "FAC"), ("g/1", "FAC"), ("g/2", "RPC")]
    assert document_from_text("x", "ab", [(0, 2)]).sentences[0].id == "x/s0"


def test_context_texts_put_each_sentence_between_its_neighbours():
    from baselines.tasks.rr.features import context_texts

    three = doc("d", [("First.", "FAC"), ("Second.", "FAC"), ("Third.", "RPC")])
    assert context_texts(three) == ["[SEP] First. [SEP] Second.", "First. [SEP] Second. [SEP] Third.",
                                  "Second. [SEP] Third. [SEP]"]
    assert context_texts(doc("e", [])) == []


def test_feature_names_follow_the_blocks_that_are_switched_on():
    assert feature_names(FeatureSettings()) == ["embedding"] + FEATURE_NAMES
    wide = feature_names(FeatureSettings(neighbour_context=True, tfidf_dims=32))
    assert wide == ["embedding", "context_embedding"] + FEATURE_NAMES + ["tfidf_svd[32]"]
    assert feature_names(FeatureSettings(surface_features=False)) == ["embedding"]


def test_tuned_encoder_vectors_do_not_depend_on_batch_order():
    """encode() pools texts in length order; each vector equals the text pooled on its own."""
    from baselines.encoders.names import resolve_encoder
    from baselines.tasks.rr.tuned_encoder import TunedEncoder

    encoder = TunedEncoder(resolve_encoder("minilm"), tuned_layers=1, max_seq_length=32)
    texts = ["Held.", "The appeal is dismissed with costs.", "Heard counsel for the parties at length today.",
             "No.", "The High Court erred in law when it set aside the order of the trial court."]
    vectors = encoder.encode(texts, batch_size=2)
    alone = np.vstack([encoder.encode([t], batch_size=1) for t in texts])
    assert vectors.shape == (5, encoder.dimension)
    # float32 products of other shapes (a padded batch against one text) sum in another order, by CPU kernel: up to
    # 1.6e-5 apart per component on an AMD EPYC (AVX2), under 1e-5 on Intel Xeons; 1e-4 allows that rounding, while
    # two texts' vectors differ by about 0.2 in their largest component (the last assertion)
    np.testing.assert_allclose(vectors, alone, atol=1e-4)
    assert np.abs(vectors[0] - vectors[1]).max() > 1e-2


def _tiny_encoder_folder(folder: Path, config) -> Path:
    """A randomly initialised transformer of `config` with MiniLM's tokenizer files, saved in `folder`."""
    import shutil

    import torch
    from transformers import AutoModel

    from baselines.encoders.names import resolve_encoder

    torch.manual_seed(0)
    model = AutoModel.from_config(config)
    if config.model_type == "mpnet":  # a position bias large enough to change the vectors when left out
        torch.nn.init.normal_(model.encoder.relative_attention_bias.weight, std=2.0)
    model.save_pretrained(str(folder))
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        shutil.copy(Path(resolve_encoder("minilm")) / name, folder / name)
    return folder


@pytest.mark.parametrize("kind", ["bert", "mpnet"])
def test_tuned_encoder_two_stages_give_the_whole_model_s_mean_pooled_vectors(tmp_path, kind):
    """Frozen lower layers, then the tuned top ones: the vectors of one forward pass of the whole encoder (up to
    the float16 rounding of the lower states), for each encoder type the tuned tagger runs."""
    import torch
    from transformers import AutoModel, AutoTokenizer, BertConfig, MPNetConfig

    from baselines.tasks.rr.tuned_encoder import TunedEncoder

    shape = dict(vocab_size=30522, hidden_size=32, num_hidden_layers=3, num_attention_heads=4, intermediate_size=64,
                 initializer_range=0.2)  # weights large enough that attention (and MPNet's position bias) matter
    config = BertConfig(**shape) if kind == "bert" else MPNetConfig(**shape)
    folder = _tiny_encoder_folder(tmp_path / kind, config)
    texts = ["The appeal is dismissed with costs.", "Held.", "Heard counsel for the parties at length today."]
    vectors = TunedEncoder(folder, tuned_layers=2, max_seq_length=32).encode(texts, batch_size=2)
    tokenizer, model = AutoTokenizer.from_pretrained(str(folder)), AutoModel.from_pretrained(str(folder)).eval()
    batch = tokenizer(texts, padding=True, truncation=True, max_length=32, return_tensors="pt")
    with torch.no_grad():
        hidden = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).last_hidden_state
    mask = batch["attention_mask"][:, :, None].float()  # (B, T, 1)
    whole = torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=1).numpy()  # (B, H)
    np.testing.assert_allclose(vectors, whole, atol=5e-3)
    assert np.abs(vectors[0] - vectors[1]).max() > 5e-2


def test_the_tuned_tagger_refuses_an_encoder_type_it_cannot_run_by_layers(tmp_path):
    from transformers import DistilBertConfig

    from baselines.tasks.rr.tuned_encoder import TunedEncoder

    folder = _tiny_encoder_folder(tmp_path / "distil", DistilBertConfig(dim=32, n_layers=2, n_heads=4, hidden_dim=64))
    with pytest.raises(BaselinesError, match="bert, mpnet; this one is 'distilbert'"):
        TunedEncoder(folder, tuned_layers=1, max_seq_length=32)


def test_predicting_without_a_trained_model_names_the_training_command(tmp_path):
    from baselines.tasks.rr.pipeline import predict_file

    judgment = tmp_path / "judgment.txt"
    judgment.write_text("The appeal is dismissed.\n")
    with pytest.raises(BaselinesError, match="run `baselines train rr --method bilstm-crf-ft` first"):
        predict_file(judgment, method_name="bilstm-crf-ft", models_dir=tmp_path / "models")


def test_a_negative_split_seed_is_refused_by_name():
    from baselines.core.config import parse_overrides
    from baselines.runs.model_choice import build_method

    with pytest.raises(BaselinesError, match="split_seed must be at least 0"):
        build_method("rr", "bilstm-crf-ft", overrides=parse_overrides(["split_seed=-1"]))
    assert build_method("rr", "bilstm-crf-ft", overrides=parse_overrides(["split_seed=0"])).split_seed == 0
