"""The encoding cache survives damaged shards: verified on load, moved aside, encoded again, said in a warning."""
from __future__ import annotations

import logging

import numpy as np
import pytest

from baselines.encoders import sentence as encoders
from baselines.encoders.sentence import EncodingCache

TEXTS = ["The appeal is dismissed.", "No order as to costs.", "Heard the counsel."]


class FakeEncoder:
    """Deterministic unit vectors; counts the texts it was asked to encode."""

    def __init__(self):
        self.calls = 0

    def encode(self, texts, **_):
        self.calls += len(texts)
        vectors = np.array([[len(t), sum(map(ord, t)) % 97, 1.0] for t in texts], dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def get_sentence_embedding_dimension(self):
        return 3


@pytest.fixture
def fake(monkeypatch):
    model = FakeEncoder()
    monkeypatch.setattr(encoders, "load_encoder", lambda *args, **kwargs: model)
    monkeypatch.setattr(encoders, "encoder_key", lambda *args, **kwargs: "fake")
    return model


def shard_file(root):
    (npy,) = (root / "encodings" / "fake").glob("*.npy")
    return npy


@pytest.mark.parametrize("damage", ["truncated", "empty", "zeroed", "zeroed-without-checksum"])
def test_a_damaged_shard_is_encoded_again_with_a_warning(damage, fake, tmp_path, caplog):
    first = EncodingCache("fake", root=tmp_path, backend="torch").encode(TEXTS, progress=False)
    npy = shard_file(tmp_path)
    data = npy.read_bytes()
    if damage == "truncated":
        npy.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        npy.write_bytes(b"")
    else:
        np.save(npy, np.zeros((len(TEXTS), 3), dtype=np.float32))
        if damage == "zeroed-without-checksum":  # a shard written before checksums existed
            npy.with_suffix(".sha256").unlink()
    with caplog.at_level(logging.WARNING, logger="baselines.encoders.sentence"):
        again = EncodingCache("fake", root=tmp_path, backend="torch").encode(TEXTS, progress=False)
    assert np.allclose(again, first) and fake.calls == 2 * len(TEXTS)
    assert "is damaged" in caplog.text and "encoded again" in caplog.text
    assert list((tmp_path / "encodings" / "fake").glob("*.damaged"))
    fake.calls = 0
    assert np.allclose(EncodingCache("fake", root=tmp_path, backend="torch").encode(TEXTS, progress=False), first)
    assert fake.calls == 0  # the re-encoded shard is whole


def test_a_whole_cache_is_read_without_encoding(fake, tmp_path):
    first = EncodingCache("fake", root=tmp_path, backend="torch").encode(TEXTS, progress=False)
    fake.calls = 0
    assert np.array_equal(EncodingCache("fake", root=tmp_path, backend="torch").encode(TEXTS, progress=False), first)
    assert fake.calls == 0 and shard_file(tmp_path).with_suffix(".sha256").is_file()


def test_uncached_encoding_neither_reads_nor_writes_the_cache(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("BASELINES_CACHE", str(tmp_path))
    with encoders.uncached():
        fresh = encoders.encode(TEXTS, "fake", progress=False, backend="torch")
        assert encoders.encode([], "fake", progress=False, backend="torch").shape == (0, 3)
    assert not (tmp_path / "encodings").exists() and fake.calls == 3
    cached = encoders.encode(TEXTS, "fake", progress=False, backend="torch")  # outside: written
    assert np.array_equal(fresh, cached) and shard_file(tmp_path).is_file()
    with encoders.uncached():
        encoders.encode(TEXTS, "fake", progress=False, backend="torch")
    assert fake.calls == 9  # inside, the cache is not read either


def test_a_timed_step_records_what_the_cache_served_and_the_table_says_so(fake, tmp_path):
    """A prediction that reads its encodings back costs less than one that computes them: the stopwatch records
    how many were served, and the cost cell of a table names the share."""
    from baselines.comparison.cost import Cost
    from baselines.runs.cost import Stopwatch

    cold, warm = Stopwatch(), Stopwatch()
    with cold:
        EncodingCache("fake", root=tmp_path, backend="torch").encode(TEXTS, progress=False)
    with warm:
        EncodingCache("fake", root=tmp_path, backend="torch").encode(TEXTS[:2] + ["A new sentence."], progress=False)
    assert cold.caches == {"sentence encodings": {"served": 0, "computed": 3}}
    again = Stopwatch()
    with again:  # within one step, texts it computed itself, or asks for twice, are computed once, never served
        EncodingCache("fake", root=tmp_path / "again", backend="torch").encode(TEXTS, progress=False)
        EncodingCache("fake", root=tmp_path / "again", backend="torch").encode(TEXTS + TEXTS[:1], progress=False)
    assert again.caches == {"sentence encodings": {"served": 0, "computed": 3}}
    assert warm.caches == {"sentence encodings": {"served": 2, "computed": 1}}
    assert Cost(8.7, "CPU", False, cache_served=2 / 3).cell() == "8.7 CPU-s (67% from cache)"
    assert Cost(8.7, "CPU", False, cache_served=0.05).cell() == "8.7 CPU-s"  # RR's repeated sentences: not marked
    from baselines.cli.summary import cache_said

    assert cache_said({"caches": warm.caches}) == "; 2 of 3 sentence encodings read from the cache"
    assert cache_said({"caches": cold.caches}) == "" and cache_said({}) == ""
