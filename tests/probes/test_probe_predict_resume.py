"""Probes of resuming `baselines predict`: an --out is resumed only by the same job (the task, the model, the
options that change the records); any other asks for another --out in one line, before any work, the output
left byte for byte as it was."""
from __future__ import annotations

import json

import pytest
from conftest import refused as refused_in_one_line
from caselawqa_fixtures import toy_cases, write_normalized
from typer.testing import CliRunner

from baselines.cli import app
from baselines.runs import training

runner = CliRunner()
SENTENCES = ["IN THE HIGH COURT OF KARNATAKA AT BENGALURU", "The appellant was charged with theft of a cow.",
             "We have considered the evidence on record.", "Accordingly, the appeal is dismissed."]
LABELS = ["PREAMBLE", "FAC", "ANALYSIS", "RPC"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """(models folder, data folder): tiny rr models (tfidf-logreg, majority) and a CaselawQA majority model."""
    folder = tmp_path_factory.mktemp("trained")
    train = folder / "train.jsonl"
    train.write_text("".join(json.dumps({"id": f"d{k}", "sentences": SENTENCES, "labels": LABELS}) + "\n"
                             for k in range(5)))
    models, data = folder / "models", write_normalized(folder / "data")
    training.train("rr", "tfidf-logreg", None, train_file=train, overrides={"min_df": 1}, models_dir=models)
    training.train("rr", "majority", None, train_file=train, models_dir=models)
    training.train("caselawqa", "majority", data, models_dir=models)
    return models, data


@pytest.fixture
def opinions(tmp_path):
    """A JSONL of two opinions, also readable as judgments."""
    texts = list(toy_cases()[0].values())[:2]
    path = tmp_path / "texts.jsonl"
    path.write_text("".join(json.dumps({"id": f"doc{k}", "text": text}) + "\n" for k, text in enumerate(texts)))
    return path


def predict(trained, task, source, out, *options):
    models, data = trained
    return runner.invoke(app, ["predict", task, str(source), "--out", str(out), "--models-dir", str(models),
                               "--data-dir", str(data), "--quiet", *options])


def refused(result, *words) -> str:
    return refused_in_one_line(result, *words, stream="stderr")  # stdout may show progress


def test_an_output_of_one_task_is_not_resumed_by_another(trained, opinions, tmp_path):
    out = tmp_path / "labels.jsonl"
    assert predict(trained, "rr", opinions, out, "--method", "tfidf-logreg", "--segmenter", "rule").exit_code == 0
    before = out.read_bytes()
    refused(predict(trained, "caselawqa", opinions, out, "--method", "majority"),
            f"{out} was labelled by task rr, not caselawqa", "another --out")
    assert out.read_bytes() == before
    folder = tmp_path / "labels"  # the same for a folder of records
    assert predict(trained, "rr", opinions, folder, "--method", "tfidf-logreg", "--segmenter", "rule").exit_code == 0
    refused(predict(trained, "caselawqa", opinions, folder, "--method", "majority"), "labelled by task rr")
    assert sorted(p.name for p in folder.iterdir()) == [".predict_manifest.json", "doc0.json", "doc1.json"]
    assert all("sentences" in json.loads((folder / f"doc{k}.json").read_text()) for k in range(2))


def test_other_subtasks_are_refused_and_the_same_ones_in_another_order_resume(trained, opinions, tmp_path):
    out = tmp_path / "answers.jsonl"
    first = predict(trained, "caselawqa", opinions, out, "--method", "majority", "--subtasks", "sc_state,sc_direction")
    assert first.exit_code == 0, first.output
    before = out.read_bytes()
    refused(predict(trained, "caselawqa", opinions, out, "--method", "majority", "--subtasks", "sc_direction"),
            "--subtasks differs", "has sc_direction,sc_state; asked: sc_direction")
    refused(predict(trained, "caselawqa", opinions, out, "--method", "majority"), "--subtasks differs",
            "asked: every task the model answers")
    assert out.read_bytes() == before
    again = predict(trained, "caselawqa", opinions, out, "--method", "majority", "--subtasks", "sc_direction,sc_state")
    assert again.exit_code == 0 and "2 already there" in again.stderr and out.read_bytes() == before


def test_another_model_is_refused_naming_both(trained, opinions, tmp_path):
    models, _ = trained
    out = tmp_path / "roles.jsonl"
    assert predict(trained, "rr", opinions, out, "--method", "tfidf-logreg", "--segmenter", "rule").exit_code == 0
    before = out.read_bytes()
    line = refused(predict(trained, "rr", opinions, out, "--method", "majority", "--segmenter", "rule"),
                   "another model", str((models / "rr" / "tfidf-logreg").resolve()))
    assert str((models / "rr" / "majority").resolve()) in line
    assert out.read_bytes() == before
    copy = tmp_path / "copy"  # the same model elsewhere: the same job, resumed
    copy.mkdir()
    for path in (models / "rr" / "tfidf-logreg").iterdir():
        if path.is_file():
            (copy / path.name).write_bytes(path.read_bytes())
    resumed = predict(trained, "rr", opinions, out, "--model", copy, "--segmenter", "rule")
    assert resumed.exit_code == 0 and "2 already there" in resumed.stderr and out.read_bytes() == before


def test_records_without_a_manifest_are_not_resumed(trained, opinions, tmp_path):
    """Records whose job is not known (written before resumes were keyed, or copied without their manifest)."""
    out = tmp_path / "roles.jsonl"
    assert predict(trained, "rr", opinions, out, "--method", "tfidf-logreg", "--segmenter", "rule").exit_code == 0
    manifests = [path for path in tmp_path.iterdir() if path.name.startswith(".roles.jsonl")]
    assert len(manifests) == 1 and json.loads(manifests[0].read_text())["task"] == "rr"
    manifests[0].unlink()
    before = out.read_bytes()
    refused(predict(trained, "rr", opinions, out, "--method", "tfidf-logreg", "--segmenter", "rule"),
            "no record of the task, model and options", "another --out")
    assert out.read_bytes() == before


def test_the_segmenter_in_effect_is_part_of_the_job(trained, opinions, tmp_path):
    """No --segmenter (and no trained senter saved) is rule: the same job. Another senter is refused before it
    loads (this one is not a pipeline at all: loading it would fail)."""
    out = tmp_path / "roles.jsonl"
    assert predict(trained, "rr", opinions, out, "--method", "tfidf-logreg", "--segmenter", "rule").exit_code == 0
    before = out.read_bytes()
    same = predict(trained, "rr", opinions, out, "--method", "tfidf-logreg")
    assert same.exit_code == 0 and "2 already there" in same.stderr
    senter = tmp_path / "senter"
    senter.mkdir()
    (senter / "config.cfg").write_text("[nlp]\n")
    refused(predict(trained, "rr", opinions, out, "--method", "tfidf-logreg", "--segmenter", senter),
            f"--segmenter differs: {out} has rule; asked: {senter.resolve()} (sha256 ")
    assert out.read_bytes() == before
