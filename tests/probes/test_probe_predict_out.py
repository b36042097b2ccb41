"""Probes of where `baselines predict` writes: a folder --out never loses a file predict did not write, a folder
where a record would go is refused with nothing left behind, and an --out inside a glob INPUT is not read back
as input, so it resumes."""
from __future__ import annotations

import json

import pytest
from conftest import refused as refused_in_one_line
from typer.testing import CliRunner

from baselines.cli import app
from baselines.runs import training

runner = CliRunner()
SENTENCES = ["IN THE HIGH COURT OF KARNATAKA AT BENGALURU", "The appellant was charged with theft of a cow.",
             "We have considered the evidence on record.", "Accordingly, the appeal is dismissed."]
LABELS = ["PREAMBLE", "FAC", "ANALYSIS", "RPC"]
TEXTS = {"a": "The appellant was charged with theft. Accordingly, the appeal is dismissed.\n",
         "settings": "We have considered the evidence on record.\n",
         "notes": "IN THE HIGH COURT OF KARNATAKA AT BENGALURU.\nThe appeal is dismissed.\n"}


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rr")
    train = folder / "train.jsonl"
    train.write_text("".join(json.dumps({"id": f"d{k}", "sentences": SENTENCES, "labels": LABELS}) + "\n"
                             for k in range(5)))
    training.train("rr", "majority", None, train_file=train, models_dir=folder / "models")
    return folder / "models"


def texts(folder, names=TEXTS):
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / f"{name}.txt").write_text(TEXTS[name])
    return folder


def predict(models, source, out):
    return runner.invoke(app, ["predict", "rr", str(source), "--out", str(out), "--method", "majority",
                               "--segmenter", "rule", "--models-dir", str(models), "--quiet"])


def refused(result, *words) -> str:
    return refused_in_one_line(result, *words, stream="stderr")  # stdout may show progress


def contents(folder) -> dict:
    """name -> bytes of every file below `folder`, hidden ones included."""
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def test_files_predict_did_not_write_are_refused_before_any_work_and_kept(models, tmp_path):
    out = tmp_path / "labels"
    out.mkdir()
    (out / "settings.json").write_text('{"theme": "dark"}\n')
    (out / "notes.json").write_text('{"id": "notes", "todo": "check"}\n')
    before = contents(out)
    line = refused(predict(models, texts(tmp_path / "in"), out), "not a record of `baselines predict`",
                   "move it", "another --out")
    assert str(out / "notes.json") in line or str(out / "settings.json") in line
    assert contents(out) == before  # nothing labelled, nothing written, nothing replaced


def test_a_file_added_to_an_output_folder_is_refused_on_resume(models, tmp_path):
    source, out = texts(tmp_path / "in", ["a", "settings"]), tmp_path / "labels"
    assert predict(models, source, out).exit_code == 0
    (out / "settings.json").write_text('{"theme": "dark"}\n')  # the user's own file, where a record was
    before = contents(out)
    refused(predict(models, source, out), f"{out / 'settings.json'}: not a record")
    assert contents(out) == before


def test_other_kinds_of_files_in_an_output_folder_are_left_alone(models, tmp_path):
    out = tmp_path / "labels"
    out.mkdir()
    (out / "README.md").write_text("Labels of the judgments.\n")
    result = predict(models, texts(tmp_path / "in"), out)
    assert result.exit_code == 0, result.output
    assert (out / "README.md").read_text() == "Labels of the judgments.\n"
    assert sorted(p.name for p in out.iterdir()) == [".predict_manifest.json", "README.md", "a.json", "notes.json",
                                                     "settings.json"]


def test_a_folder_where_a_record_goes_is_refused_with_nothing_left_behind(models, tmp_path):
    out = tmp_path / "labels"
    (out / "a.json").mkdir(parents=True)
    refused(predict(models, texts(tmp_path / "in"), out), f"{out / 'a.json'}: is a folder")
    assert contents(out) == {} and sorted(p.name for p in out.iterdir()) == ["a.json"]  # no .tmp, no record


@pytest.mark.parametrize("out_name", ["labels.jsonl", "labels"])
def test_an_output_is_not_created_when_the_labeller_cannot_load(models, tmp_path, out_name):
    """The output is checked and opened before the model loads; when loading fails, what it created goes."""
    result = runner.invoke(app, ["predict", "rr", str(texts(tmp_path / "in")), "--out", str(tmp_path / out_name),
                                 "--method", "majority", "--segmenter", str(tmp_path / "absent"), "--models-dir",
                                 str(models), "--quiet"])
    refused(result, "no trained segmenter")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]


@pytest.mark.parametrize("out_name", ["labels.jsonl", "labels"])
def test_an_out_inside_a_glob_input_resumes(models, tmp_path, out_name):
    """corpus/* with --out corpus/labels.jsonl, and corpus/*/* (texts in corpus/texts/) with --out corpus/labels/:
    on the second run the pattern matches the output too."""
    corpus = tmp_path / "corpus"
    folder = texts(corpus if out_name.endswith(".jsonl") else corpus / "texts")
    pattern = str(corpus / "*") if folder == corpus else str(corpus / "*" / "*")
    out = corpus / out_name
    first = predict(models, pattern, out)
    assert first.exit_code == 0, first.output
    written = contents(out) if out.is_dir() else out.read_bytes()
    again = predict(models, pattern, out)
    assert again.exit_code == 0, again.output
    assert "labelled 0 documents" in again.stderr and "3 already there" in again.stderr
    assert (contents(out) if out.is_dir() else out.read_bytes()) == written
