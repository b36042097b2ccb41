"""Rhetorical-role loaders: LegalEval JSON, JSONL and TSV folders, and their errors."""
from __future__ import annotations

import json

import pytest

from baselines.tasks.rr.data import load_rr, read_documents, rr_references
from baselines.core.errors import DataError

TEXT = "PREAMBLE text here. The facts were these. We hold so."


def label_studio(docs):
    return [{"id": doc_id, "meta": {"group": "Tax"}, "data": {"text": text},
             "annotations": [{"result": [{"id": f"r{k}", "value": {"start": s, "end": e, "text": text[s:e],
                                                                 "labels": [label] if label else []}}
                                         for k, (s, e, label) in enumerate(spans)]}]}
            for doc_id, text, spans in docs]


def spans_of(text):
    first, second = text.index("The"), text.index("We")
    return [(0, first - 1, "PREAMBLE"), (first, second - 1, "FAC"), (second, len(text), "RATIO")]


def write(path, obj):
    path.write_text(json.dumps(obj), encoding="utf-8")
    return path


def test_label_studio_duplicate_ids_and_empty_documents(tmp_path):
    path = write(tmp_path / "train.json", label_studio([(7, TEXT, spans_of(TEXT)), (7, TEXT, spans_of(TEXT)),
                                                        (9, "no spans", [])]))
    docs = read_documents(path)
    assert [d.id for d in docs] == ["7", "7#2"]
    assert docs[1].meta["original_id"] == "7"
    assert any("7#2" in note for note in docs.notes) and any("9" in note for note in docs.notes)
    assert [s.id for s in docs[1].sentences] == ["7#2/0", "7#2/1", "7#2/2"]
    assert docs[0].sentences[1].text == "The facts were these."


def test_references_use_training_labels(tmp_path):
    root = tmp_path / "rr" / "legaleval2023"
    root.mkdir(parents=True)
    write(root / "train.json", label_studio([(1, TEXT, spans_of(TEXT))]))
    dev_spans = [(s, e, "FAC") for s, e, _ in spans_of(TEXT)]
    write(root / "dev.json", label_studio([(2, TEXT, dev_spans)]))
    docs = load_rr(tmp_path, "dev")
    refs = rr_references(docs)
    assert [r.id for r in refs] == ["2/0", "2/1", "2/2"]
    assert refs[0].labels == ("FAC", "PREAMBLE", "RATIO") and refs[0].gold == ("FAC",)
    assert refs[0].group == refs[0].unit == "2"


def test_unknown_label_at_evaluation_names_the_document(tmp_path):
    root = tmp_path / "rr" / "legaleval2023"
    root.mkdir(parents=True)
    write(root / "train.json", label_studio([(1, TEXT, spans_of(TEXT))]))
    write(root / "dev.json", label_studio([(5, TEXT, [(0, 10, "MYSTERY")])]))
    with pytest.raises(DataError, match=r"'5'.*MYSTERY"):
        load_rr(tmp_path, "dev")


@pytest.mark.parametrize("spans, message", [
    ([(0, 10, "FAC"), (5, 20, "FAC")], "overlaps"),
    ([(0, 999, "FAC")], "out of range"),
    ([(3, 3, "FAC")], "out of range"),
    ([(0, 5, ["FAC", "RLC"])], "at most one label"),
])
def test_bad_spans_name_the_document(tmp_path, spans, message):
    docs = label_studio([(42, TEXT, [(s, e, None) for s, e, _ in spans])])
    for result, (_, _, label) in zip(docs[0]["annotations"][0]["result"], spans):
        result["value"]["labels"] = label if isinstance(label, list) else [label]
        result["value"].pop("text")
    with pytest.raises(DataError, match=rf"42.*{message}"):
        read_documents(write(tmp_path / "bad.json", docs))


def test_jsonl_documents(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps({"id": "a", "sentences": ["One.", "Two."], "labels": ["FAC", "RLC"]}) + "\n"
                    + json.dumps({"id": "b", "sentences": ["Only one."], "labels": ["NONE"]}) + "\n")
    docs = load_rr(None, "train", path)
    assert [len(d.sentences) for d in docs] == [2, 1]
    assert docs[0].text == "One.\nTwo." and docs[0].sentences[1].start == 5
    assert docs[0].labels == ("FAC", "NONE", "RLC")


@pytest.mark.parametrize("line, message", [
    ({"id": "a", "sentences": [], "labels": []}, "no sentences"),
    ({"id": "a", "sentences": ["x."], "labels": ["A", "B"]}, "1 sentences but 2 labels"),
    ({"id": "a", "sentences": ["  "], "labels": ["A"]}, "empty"),
    ({"id": "a", "labels": ["A"]}, "no 'sentences'"),
])
def test_jsonl_errors_name_line_and_document(tmp_path, line, message):
    path = tmp_path / "bad.jsonl"
    path.write_text("\n" + json.dumps(line) + "\n")
    with pytest.raises(DataError, match=rf"bad.jsonl:2.*{message}"):
        read_documents(path)


def test_tsv_folder(tmp_path):
    (tmp_path / "j1.tsv").write_text("The court met.\tPREAMBLE\nIt was\training.\tFAC\n\n", encoding="utf-8")
    (tmp_path / "j2.tsv").write_text("Appeal dismissed.\tRPC\n", encoding="utf-8")
    docs = read_documents(tmp_path)
    assert [d.id for d in docs] == ["j1", "j2"]
    assert docs[0].sentences[1].text == "It was\training." and docs[0].sentences[1].label == "FAC"


def test_tsv_errors(tmp_path):
    (tmp_path / "a.tsv").write_text("no tab here\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"a.tsv:1"):
        read_documents(tmp_path)
    (tmp_path / "a.tsv").write_bytes(b"caf\xe9\tFAC\n")
    with pytest.raises(DataError, match=r"a.tsv.*UTF-8"):
        read_documents(tmp_path)
    (tmp_path / "a.tsv").write_text("", encoding="utf-8")
    with pytest.raises(DataError, match=r"'a' has no sentences"):
        read_documents(tmp_path)
    with pytest.raises(DataError, match="no \\*.tsv"):
        read_documents(tmp_path / "a.tsv.d") if (tmp_path / "a.tsv.d").mkdir() is None else None


def test_non_utf8_json(tmp_path):
    path = tmp_path / "bad.json"
    path.write_bytes(b'[{"id": 1, "data": {"text": "caf\xe9"}}]')
    with pytest.raises(DataError, match="UTF-8"):
        read_documents(path)


def test_real_splits(data_dir):
    train = load_rr(data_dir, "train")
    assert len(train) == 245 and sum(len(d.sentences) for d in train) == 28986
    assert "1744#2" in {d.id for d in train} and len(train[0].labels) == 13
    dev = load_rr(data_dir, "dev")
    refs = rr_references(dev)
    assert len(refs) == 2879 and len({r.id for r in refs}) == 2879
