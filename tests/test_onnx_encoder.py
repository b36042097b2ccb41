"""ONNX Runtime encoding backends on the packaged all-MiniLM-L6-v2: fidelity to torch, cache keys, re-export."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from baselines.encoders.sentence import EncodingCache, encode, encoder_key, load_encoder
from baselines.core.errors import BaselinesError

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from baselines.encoders import onnx_backend as onnx_encoder  # noqa: E402

TEXTS = ["The appeal is dismissed.",
         "Learned counsel for the appellant submitted that the High Court erred in reversing the acquittal. " * 6,
         "Heard.",
         "Section 302 of the Indian Penal Code reads as follows:",
         "Whether the respondent was entitled to the benefit of the notification is the question before us.",
         "word " * 400]  # longer than the encoder's limit: truncated


@pytest.fixture(scope="module")
def onnx_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("onnx-cache")


@pytest.fixture
def shared_cache(onnx_cache, monkeypatch):
    """One cache folder for this module, so each backend is exported once."""
    monkeypatch.setenv("BASELINES_CACHE", str(onnx_cache))
    return onnx_cache


def torch_vectors(texts):
    return load_encoder(None).encode(texts, convert_to_numpy=True, normalize_embeddings=True,
                                     show_progress_bar=False)


def test_onnx_fp32_matches_torch_in_input_order(shared_cache):
    vectors = onnx_encoder.load_onnx_encoder(None, "onnx").encode(TEXTS, batch_size=2)
    cosines = (vectors * torch_vectors(TEXTS)).sum(axis=1)
    assert vectors.dtype == np.float32 and vectors.shape == (len(TEXTS), 384)
    assert cosines.min() > 0.999, cosines
    assert (shared_cache / "onnx" / f"{encoder_key(None)}-fp32" / "model.onnx").is_file()


def test_onnx_int8_close_to_torch(shared_cache):
    vectors = onnx_encoder.load_onnx_encoder(None, "onnx-int8").encode(TEXTS, batch_size=4)
    cosines = (vectors * torch_vectors(TEXTS)).sum(axis=1)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)  # normalised in float32: ~1e-7 off
    assert cosines.mean() > 0.98 and cosines.min() > 0.95, cosines


def test_a_vector_depends_on_its_text_only_whatever_is_encoded_with_it(shared_cache):
    """int8 quantizes activations with one scale per batch: batched, a text's vector moved with its batch-mates."""
    for backend in ("onnx-int8", "onnx"):
        encoder = onnx_encoder.load_onnx_encoder(None, backend)
        alone = encoder.encode(TEXTS[:1])
        together = encoder.encode([TEXTS[0], "an unrelated and much longer sentence " * 20, *TEXTS[1:]], batch_size=8)
        assert np.array_equal(alone[0], together[0]), backend


def test_encoding_cache_keys_differ_by_backend(shared_cache):
    folders = {b: EncodingCache(None, backend=b).folder for b in onnx_encoder.CONCRETE}
    assert len(set(folders.values())) == 3
    assert folders["torch"].name == encoder_key(None, None)  # torch keeps the key of existing caches
    cached = encode(TEXTS[:3], backend="onnx-int8", progress=False)
    assert list(folders["onnx-int8"].glob("*.npy")) and not folders["onnx"].exists()
    again = EncodingCache(None, backend="onnx-int8")
    assert len(again.index) == 3 and np.allclose(again.encode(TEXTS[:3]), cached)


def test_unknown_backend_is_refused_by_methods(shared_cache):
    from baselines.tasks.scalr.similarity import EmbedChooser

    with pytest.raises(BaselinesError, match="onnx-int8"):
        EncodingCache(None, backend="tensorrt")
    with pytest.raises(BaselinesError, match="backend must be one of"):
        EmbedChooser(encode_backend="onnx-fp16").predict([])  # the field reaches the encoder, even with no items


def test_corrupted_export_is_exported_again(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("BASELINES_CACHE", str(tmp_path))
    onnx_encoder.exported_session(None, "onnx")
    model = onnx_encoder.onnx_export_folder(None, "onnx") / "model.onnx"
    model.write_bytes(model.read_bytes()[:5000])  # a truncated file onnxruntime cannot load
    session = onnx_encoder.exported_session(None, "onnx")
    assert "unloadable" in caplog.text and model.stat().st_size > 1_000_000
    assert [i.name for i in session.get_inputs()][:2] == ["input_ids", "attention_mask"]
    assert not [p for p in model.parent.parent.iterdir() if p.name.startswith(".")]  # no temporary folder left


def test_missing_onnxruntime_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("BASELINES_CACHE", str(tmp_path))
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime now raises ImportError
    with pytest.raises(BaselinesError, match=r"pip install onnxruntime onnx"):
        encode(["x"], max_seq_length=17, backend="onnx", progress=False)
    assert not (tmp_path / "onnx").exists()


def test_speed_encoders_command(shared_cache, data_dir, tmp_path):
    import json

    from typer.testing import CliRunner

    from baselines.cli import app

    out = tmp_path / "bench.json"
    encodings = set((shared_cache / "encodings").glob("*"))
    result = CliRunner().invoke(app, ["speed", "encoders", "--data-dir", str(data_dir), "--n", "40",
                                      "--repeats", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["n_texts"] == 40 and list(report["backends"]) == ["torch", "onnx", "onnx-int8"]
    assert report["backends"]["onnx"]["cosine_to_torch"]["min"] > 0.999
    speed = report["backends"]["onnx-int8"]["texts_per_s"]
    assert 0 < speed["min"] <= speed["median"] <= speed["max"]
    assert set((shared_cache / "encodings").glob("*")) == encodings  # the speed test bypasses the encoding cache


def test_speed_refuses_bad_counts(tmp_path):
    from typer.testing import CliRunner

    from baselines.cli import app

    result = CliRunner().invoke(app, ["benchmark", "encoders", "--data-dir", str(tmp_path), "--n", "0"])  # old name
    assert result.exit_code == 2 and "at least 1" in result.output


def test_speed_on_caselawqa_chunks(shared_cache, data_dir):
    from baselines.encoders.speed import encoder_speed, render_speed
    from baselines.tasks.caselawqa.speed import opinion_chunk_texts

    chunks = opinion_chunk_texts(data_dir, 12)
    assert len(chunks) == 12 and all(len(c.split()) <= 96 for c in chunks) and len(set(chunks)) == 12
    report = encoder_speed(data_dir, n=12, repeats=1, backends=("onnx",), task="caselawqa")
    assert report["texts"] == "caselawqa" and report["max_seq_length"] == 128  # as embed-linear encodes them
    assert report["backends"]["onnx"]["cosine_to_torch"]["min"] > 0.999
    assert "12 CaselawQA opinion chunks" in render_speed(report)
    with pytest.raises(BaselinesError, match="caselawqa, rr"):
        encoder_speed(data_dir, n=12, task="scalr")


def test_onnx_export_folder_carries_its_exported_encoder(shared_cache, tmp_path):
    """A model saved with an onnx backend predicts from a cache that never exported the encoder."""
    import shutil

    from baselines.methods.base import Method
    from baselines.tasks.scalr.similarity import EmbedChooser

    chooser = EmbedChooser()
    assert chooser.encode_backend == "auto"  # the default: int8 for MiniLM
    chooser.save(tmp_path / "embed")
    bundled = list((tmp_path / "embed" / "encoders").glob("*/model.onnx"))
    exported = onnx_encoder.onnx_export_folder(None, "onnx-int8")
    assert [b.parent.name for b in bundled] == [exported.name]
    before = onnx_encoder.load_onnx_encoder(None, "onnx-int8").encode(TEXTS[:3])
    shutil.rmtree(exported)
    onnx_encoder._ENCODERS.clear()
    Method.load(tmp_path / "embed")
    assert (exported / "model.onnx").read_bytes() == bundled[0].read_bytes()
    assert np.array_equal(onnx_encoder.load_onnx_encoder(None, "onnx-int8").encode(TEXTS[:3]), before)


def test_folders_saved_before_the_backend_was_recorded_encode_with_torch(tmp_path):
    import json

    from baselines.methods.base import Method
    from baselines.tasks.scalr.similarity import EmbedChooser

    EmbedChooser(encode_backend="onnx").save(tmp_path / "old")
    config = json.loads((tmp_path / "old" / "config.json").read_text())
    del config["params"]["encode_backend"]
    (tmp_path / "old" / "config.json").write_text(json.dumps(config))
    assert Method.load(tmp_path / "old").encode_backend == "torch"
    assert EmbedChooser().encode_backend == "auto"


def test_a_run_from_before_the_backend_was_recorded_is_not_replaced_by_an_int8_run(tmp_path):
    """Its config has no encode_backend: it was torch, so an int8 run is another configuration."""
    import json

    from baselines.runs.results_store import RESULTS_FILE, Variant, check_replace

    variant = Variant(split="test", references="abc")
    (tmp_path / RESULTS_FILE).write_text(json.dumps({
        "task": "scalr", "system": "embed", "split": "test", "n": 3, "coverage": 1.0, "metrics": {"accuracy": 0.5},
        "main_metric": "accuracy", "interval": [0.1, 0.9], "variant": {"references": "abc"},
        "meta": {"method": "embed", "config": {"batch_size": 64}}}))
    with pytest.raises(BaselinesError, match="other configuration"):
        check_replace(tmp_path, scored=False, force=False, variant=variant,
                      config={"batch_size": 64, "encode_backend": "onnx-int8"})
    check_replace(tmp_path, scored=False, force=False, variant=variant,
                  config={"batch_size": 64, "encode_backend": "torch"})  # the same configuration: no refusal


def test_install_keeps_a_folder_another_process_finished_and_replaces_a_stale_one(tmp_path):
    import time

    target, work = tmp_path / "export", tmp_path / "work"
    target.mkdir()
    (target / "model.onnx").write_text("stale")
    started = time.time() + 1  # the stale file predates this export
    work.mkdir()
    (work / "model.onnx").write_text("new")
    onnx_encoder.install_folder(work, target, started)
    assert (target / "model.onnx").read_text() == "new" and not work.exists()
    work.mkdir()
    (work / "model.onnx").write_text("late")
    onnx_encoder.install_folder(work, target, started=0.0)  # another process finished first: its folder stays
    assert (target / "model.onnx").read_text() == "new"


def test_a_cache_that_cannot_take_the_bundled_encoder_is_reported_not_fatal(tmp_path, monkeypatch, caplog):
    from baselines.encoders import bundle as encoder_bundle

    bundled = tmp_path / "model" / "encoders" / onnx_encoder.onnx_export_folder(None, "onnx-int8").name
    bundled.mkdir(parents=True)
    (bundled / "model.onnx").write_bytes(b"x")
    monkeypatch.setenv("BASELINES_CACHE", str(tmp_path / "cache"))

    def refuse(*args, **kwargs):
        raise PermissionError("read-only")

    monkeypatch.setattr(encoder_bundle.tempfile, "mkdtemp", refuse)
    encoder_bundle.restore_encoders(tmp_path / "model")
    assert "cannot restore the bundled encoder" in caplog.text


def test_auto_chooses_int8_for_minilm_and_records_the_concrete_backend(shared_cache):
    import json

    from baselines.runs.run import build_method

    assert onnx_encoder.resolve_backend([None], "auto") == "onnx-int8"
    record = json.loads((onnx_encoder.onnx_export_folder(None, "onnx-int8") / "export.json").read_text())
    assert record["fidelity"]["mean"] >= onnx_encoder.FIDELITY and record["fidelity"]["texts"] == 24
    assert build_method("scalr", "embed").encode_backend == "onnx-int8"  # what config.json will say
    assert EncodingCache(None, backend="auto").folder == EncodingCache(None, backend="onnx-int8").folder


def test_auto_falls_back_to_fp32_where_int8_is_lossy(tmp_path, monkeypatch, caplog):
    """An encoder whose int8 vectors drift from fp32 (all-mpnet-base-v2 here: mean cosine 0.86) gets onnx."""
    import json

    monkeypatch.setenv("BASELINES_CACHE", str(tmp_path))
    folder = onnx_encoder.onnx_export_folder(None, "onnx-int8")
    folder.mkdir(parents=True)
    (folder / "model.onnx").write_bytes(b"not read")
    (folder / "export.json").write_text(json.dumps({"fidelity": {"mean": 0.858, "min": 0.69, "texts": 24}}))
    assert onnx_encoder.resolve_backend([None], "auto") == "onnx"
    assert "too lossy" in caplog.text and "0.858" in caplog.text
    assert onnx_encoder.resolve_backend([None], "onnx-int8") == "onnx-int8"  # asked for explicitly: kept


def test_tuned_encoders_of_equal_file_sizes_get_their_own_cache_keys(tmp_path):
    for name, digest in (("a", "11"), ("b", "22")):
        folder = tmp_path / name / "encoder"
        folder.mkdir(parents=True)
        (folder / "config.json").write_text("{}")
        (folder / "tuned.json").write_text(f'{{"weights_sha256": "{digest}"}}')
    assert encoder_key(str(tmp_path / "a" / "encoder")) != encoder_key(str(tmp_path / "b" / "encoder"))
