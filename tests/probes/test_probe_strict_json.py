"""Probes of item 6: JSON input is strict. An object naming a key twice (where json keeps the last value
silently) is an error naming the file and the line, in every reader of user files (read_jsonl, read_json)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from baselines.cli import app
from baselines.core.errors import DataError
from baselines.core.io import read_json, read_jsonl


def scalr_data(tmp_path: Path) -> Path:
    """A data folder whose SCALR test split has 3 questions (gold of question k: k % 5)."""
    folder = tmp_path / "data" / "scalr"
    folder.mkdir(parents=True)
    folder.joinpath("test.jsonl").write_text("".join(json.dumps(
        {"index": str(k), "question": f"question {k}", "answer": str(k % 5),
         **{f"choice_{c}": f"holding {c}" for c in range(5)}}) + "\n" for k in range(3)))
    return tmp_path / "data"


def refused(result, *words: str) -> str:
    """Exit 2 with one line saying each of `words`."""
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert all(word in lines[0] for word in words), lines[0]
    return lines[0]


@pytest.mark.parametrize("field, second_line, key", [
    ("raw", '{"id": "1", "raw": "The answer is B", "raw": "The answer is A"}', "raw"),
    ("raw", '{"id": "1", "raw": "The answer is B", "id": "2"}', "id"),
    ("prediction", '{"id": "1", "prediction": "1", "prediction": "0"}', "prediction"),
])
def test_score_refuses_a_predictions_line_naming_a_key_twice(tmp_path, field, second_line, key):
    data = scalr_data(tmp_path)
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(json.dumps({"id": "0", field: "0"}) + "\n" + second_line + "\n"
                           + json.dumps({"id": "2", field: "2"}) + "\n")
    result = CliRunner().invoke(app, ["score", "scalr", str(predictions), "--data-dir", str(data), "--name", "dup"])
    refused(result, "p.jsonl:2:", f"duplicate key '{key}'")
    assert not (tmp_path / "results").exists()


def test_a_key_named_twice_in_a_nested_object_names_its_line(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"id": "a", "text": "t"}\n\n{"id": "b", "meta": {"k": 1, "k": 2}}\n')
    with pytest.raises(DataError, match=r"x\.jsonl:3: duplicate key 'k'"):
        list(read_jsonl(path))


def test_a_predict_style_line_with_two_ids_is_refused_by_read_jsonl(tmp_path):
    """predict's JSONL input ({"id", "text"} per line) must not take the last of two ids."""
    path = tmp_path / "docs.jsonl"
    path.write_text('{"id": "first", "text": "The appeal is dismissed.", "id": "second"}\n')
    with pytest.raises(DataError, match=r"docs\.jsonl:1: duplicate key 'id'"):
        list(read_jsonl(path))


def test_read_json_names_the_line_of_the_key_named_twice(tmp_path):
    path = tmp_path / "results.json"
    path.write_text('{\n  "id": "x",\n  "items": [\n    {"id": 1, "note": "a \\" \\"id\\": "},\n'
                    '    {"id": 2,\n     "label": "B",\n     "id": 3}\n  ]\n}\n')
    with pytest.raises(DataError, match=r"results\.json:7: duplicate key 'id'"):
        read_json(path)


def test_strict_parsing_keeps_every_well_formed_document(tmp_path):
    path = tmp_path / "ok.json"
    document = {"id": "x", "a": {"id": "y", "b": [{"id": 1}, {"id": 2}]}, "ID": 3}
    path.write_text(json.dumps(document, indent=2))
    assert read_json(path) == document


def test_a_duplicate_is_a_json_decode_error_for_readers_that_catch_bad_json():
    """A reader that turns bad JSON into a per-line problem (predict) catches it with the others, and its
    message names the key."""
    from baselines.core.io import loads_strict

    with pytest.raises(json.JSONDecodeError) as caught:
        loads_strict('{"id": "a", "text": "t", "id": "b"}')
    assert caught.value.msg.startswith("duplicate key 'id'")


def test_predict_input_with_a_key_named_twice_is_a_document_with_a_problem(tmp_path):
    """predict's own JSONL reader: the line is reported as a bad document naming the key, never labelled as the
    last of its two ids."""
    import io

    from baselines.runs.corpus_input import jsonl_texts

    lines = b'{"id": "first", "text": "The appeal is dismissed.", "id": "second"}\n{"id": "ok", "text": "Held."}\n'
    texts = list(jsonl_texts(io.BytesIO(lines), "docs.jsonl"))
    assert [text.id for text in texts] == ["docs.jsonl:1", "ok"]
    assert "duplicate key 'id'" in texts[0].problem and texts[1].problem is None
