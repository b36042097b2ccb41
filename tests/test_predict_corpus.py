"""`baselines predict` over a corpus: folders, globs, JSONL and standard input; one record per document, the same
as labelling each file on its own; resumable (skips, changed texts, a cut last line); bad documents named and
counted (exit 1); folder output; the Python API; CaselawQA answers equal to `eval`; a real Dask cluster."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import pytest
from caselawqa_fixtures import write_normalized
from typer.testing import CliRunner

from baselines import api
import baselines
from baselines.cli import app
from baselines.core.errors import BaselinesError
from baselines.runs import run
from baselines.runs import training

runner = CliRunner()
SENTENCES = ["IN THE HIGH COURT OF KARNATAKA AT BENGALURU", "The appellant was charged with theft of a cow.",
             "We have considered the evidence on record.", "Accordingly, the appeal is dismissed."]
LABELS = ["PREAMBLE", "FAC", "ANALYSIS", "RPC"]
JUDGMENTS = {
    "a": "IN THE HIGH COURT OF KARNATAKA AT BENGALURU.\nThe appellant was charged with theft. "
         "Accordingly, the appeal is dismissed.\n",
    "b": "\ufeffWe have considered the evidence on record.\r\nThe appellant was charged with theft of a cow.\r\n",
    "c": "Accordingly, the appeal is dismissed. We have considered the evidence.\n",
}


@pytest.fixture(scope="module")
def rr_models(tmp_path_factory):
    """A models folder holding a tiny tfidf-logreg RR tagger."""
    folder = tmp_path_factory.mktemp("rr")
    train = folder / "train.jsonl"
    train.write_text("".join(json.dumps({"id": f"d{k}", "sentences": SENTENCES, "labels": LABELS}) + "\n"
                             for k in range(5)))
    training.train("rr", "tfidf-logreg", None, train_file=train, overrides={"min_df": 1}, models_dir=folder / "models")
    return folder / "models"


def judgments(folder, texts=JUDGMENTS):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        (folder / f"{name}.txt").write_bytes(text.encode("utf-8"))
    return folder


def predict(models, *args, stdin=None):
    return runner.invoke(app, ["predict", "rr", *map(str, args), "--method", "tfidf-logreg", "--segmenter", "rule",
                               "--models-dir", str(models), "--quiet"], input=stdin)


def records(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_folder_is_labelled_as_each_file_on_its_own(rr_models, tmp_path):
    folder = judgments(tmp_path / "in")
    result = predict(rr_models, folder, "--out", tmp_path / "all.jsonl")
    assert result.exit_code == 0, result.output
    together = records(tmp_path / "all.jsonl")
    assert [r["id"] for r in together] == ["a", "b", "c"]
    for name, record in zip("abc", together):
        alone = tmp_path / f"{name}.jsonl"
        assert predict(rr_models, folder / f"{name}.txt", "--out", alone).exit_code == 0
        assert records(alone) == [record]
    given = (folder / "b.txt").open(encoding="utf-8", newline="").read()  # offsets into the file as given
    assert all(given[row["start"]:row["end"]] == row["text"] for row in together[1]["sentences"])
    glob = predict(rr_models, str(folder / "[ab].txt"), "--out", tmp_path / "glob.jsonl")
    assert glob.exit_code == 0 and records(tmp_path / "glob.jsonl") == together[:2]


def test_a_rerun_skips_what_is_written_relabels_changed_texts_and_cuts_a_partial_line(rr_models, tmp_path):
    folder, out = judgments(tmp_path / "in"), tmp_path / "out.jsonl"
    assert predict(rr_models, folder, "--out", out).exit_code == 0
    first = records(out)
    with out.open("ab") as handle:  # a run killed while writing its next line
        handle.write(b'{"id": "d", "digest": "12')
    (folder / "c.txt").write_text("The appeal is dismissed. We have considered the evidence.\n")
    (folder / "d.txt").write_text("The appellant was charged with theft.\n")
    result = predict(rr_models, folder, "--out", out)
    assert result.exit_code == 0, result.output
    assert "partial last line" in result.stderr and "changed since it was labelled" in result.stderr
    assert "2 already there" in result.stderr and "1 changed since" in result.stderr
    again = records(out)
    assert [r["id"] for r in again] == ["a", "b", "c", "d"]  # c replaced in place of its old record: no duplicate
    assert again[:2] == first[:2] and again[2]["digest"] != first[2]["digest"]
    assert "labelled 0 documents" in predict(rr_models, folder, "--out", out).stderr
    foreign = tmp_path / "foreign.jsonl"
    foreign.write_text('{"id": "12", "prediction": "FAC"}\n')
    refused = predict(rr_models, folder, "--out", foreign)
    assert refused.exit_code == 2 and "not an output of it" in refused.output


def test_bad_documents_are_named_and_counted_and_the_others_written(rr_models, tmp_path):
    folder = judgments(tmp_path / "in", {"good": JUDGMENTS["a"], "empty": " \n"})
    (folder / "binary.txt").write_bytes(b"PK\x03\x04\x00\x00zip")
    (folder / "latin.txt").write_bytes("caf\xe9 judgment".encode("latin-1"))
    result = predict(rr_models, folder, "--out", tmp_path / "out.jsonl")
    assert result.exit_code == 1
    assert [r["id"] for r in records(tmp_path / "out.jsonl")] == ["good"]
    for name, reason in (("binary.txt", "binary"), ("empty.txt", "empty"), ("latin.txt", "not UTF-8")):
        assert f"{folder / name}: {reason}" in result.stderr
    assert "3 failed" in result.stderr
    lines = tmp_path / "texts.jsonl"
    lines.write_text(json.dumps({"id": 7, "text": JUDGMENTS["c"]}) + "\n{not json\n"
                     + json.dumps({"id": "x"}) + "\n" + json.dumps({"id": 7, "text": JUDGMENTS["a"]}) + "\n")
    result = predict(rr_models, lines, "--out", tmp_path / "lines.jsonl")
    assert result.exit_code == 1 and [r["id"] for r in records(tmp_path / "lines.jsonl")] == ["7"]
    assert f"{lines}:2: not JSON" in result.stderr and '"text" must be a string' in result.stderr
    assert "duplicate id '7'" in result.stderr


def test_standard_input_to_a_folder_of_records(rr_models, tmp_path):
    texts = [{"id": "case/1", "text": JUDGMENTS["a"]}, {"id": "2", "text": JUDGMENTS["c"]}]
    stdin = "".join(json.dumps(t) + "\n" for t in texts)
    result = predict(rr_models, "-", "--out", tmp_path / "labels", stdin=stdin)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "labels").iterdir()) == [".predict_manifest.json", "2.json",
                                                                       "case%2F1.json"]
    manifest = json.loads((tmp_path / "labels" / ".predict_manifest.json").read_text())
    assert manifest["task"] == "rr" and manifest["options"] == {"--segmenter": "rule"}
    assert manifest["model"] == str((rr_models / "rr" / "tfidf-logreg").resolve())
    record = json.loads((tmp_path / "labels" / "case%2F1.json").read_text())
    assert record["id"] == "case/1" and [r["label"] for r in record["sentences"]][-1] == "RPC"
    assert "2 already there" in predict(rr_models, "-", "--out", tmp_path / "labels", stdin=stdin).stderr
    piped = predict(rr_models, "-", stdin=stdin)  # no --out: JSONL on standard output
    assert [json.loads(line)["id"] for line in piped.stdout.splitlines()] == ["case/1", "2"]


def test_the_python_api_gives_the_records_of_the_command(rr_models, tmp_path):
    folder = judgments(tmp_path / "in")
    predict(rr_models, folder, "--out", tmp_path / "out.jsonl")
    got = baselines.predict("rr", {name: text for name, text in JUDGMENTS.items()}, method="tfidf-logreg",
                            models_dir=rr_models, segmenter="rule")
    assert got == records(tmp_path / "out.jsonl")
    with pytest.raises(BaselinesError, match="text 1: empty"):
        baselines.predict("rr", ["The appeal is dismissed.", "  "], method="tfidf-logreg", models_dir=rr_models,
                          segmenter="rule")


def test_outputs_that_cannot_be_written_are_refused_before_any_work(rr_models, tmp_path):
    from baselines.runs.corpus_output import JsonlSink

    folder = judgments(tmp_path / "in")
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    assert predict(rr_models, folder, "--out", fifo).exit_code == 2
    lines = tmp_path / "texts.jsonl"
    lines.write_text(json.dumps({"id": "1", "text": "x"}) + "\n")
    assert "also an input" in predict(rr_models, lines, "--out", lines).output
    held = JsonlSink(tmp_path / "held.jsonl")
    try:
        refused = predict(rr_models, folder, "--out", tmp_path / "held.jsonl")
        assert refused.exit_code == 2 and "another `baselines predict` is writing" in refused.output
    finally:
        held.close()
    wrong = runner.invoke(app, ["predict", "rr", str(folder), "--subtasks", "sc_direction"])
    assert wrong.exit_code == 2 and "--subtasks applies to caselawqa" in wrong.output


def test_caselawqa_answers_every_task_as_eval_does(tmp_path):
    root = write_normalized(tmp_path / "data")
    small = {"n_features": 4096, "min_df": 1, "k_features": 500, "Cs": [0.3, 1.0], "n_jobs": 1, "min_train": 10}
    training.train("caselawqa", "linear", root, overrides=small)
    _, folder = api.evaluate("caselawqa", "linear", root)
    evaluated = {row["id"]: row["prediction"] for row in records(folder / "predictions.jsonl")}
    items = run.load_split(run.get_task("caselawqa"), root, "test")
    opinions = {item.meta["case_id"]: item.context for item in items}
    lines = tmp_path / "opinions.jsonl"
    lines.write_text("".join(json.dumps({"id": case, "text": text}) + "\n" for case, text in opinions.items()))
    args = ["predict", "caselawqa", str(lines), "--data-dir", str(root), "--quiet"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "answers.jsonl")])
    assert result.exit_code == 0, result.output
    answers = {r["id"]: r["answers"] for r in records(tmp_path / "answers.jsonl")}
    assert len(answers) == len(opinions) and all(len(a) == 4 for a in answers.values())
    assert {key: answers[key.split("/")[1]][key.split("/")[0]]["label"] for key in evaluated} == evaluated
    some = next(iter(answers.values()))["sc_direction"]
    assert some["choice"] in ("affirmed", "reversed", "vacated") and 0 < some["probability"] <= 1
    subset = runner.invoke(app, [*args, "--subtasks", "sc_direction", "--out", str(tmp_path / "one.jsonl")])
    assert subset.exit_code == 0 and all(list(r["answers"]) == ["sc_direction"]
                                         for r in records(tmp_path / "one.jsonl"))
    wrong = runner.invoke(app, [*args, "--segmenter", "rule"])
    assert wrong.exit_code == 2 and "--segmenter applies to tasks that cut raw text into sentences: rr" in wrong.output


def test_speed_reports_documents_and_sentences_per_second(rr_models, tmp_path):
    folder = judgments(tmp_path / "in")
    result = runner.invoke(app, ["speed", "predict", "rr", str(folder), "--method", "tfidf-logreg", "--segmenter",
                                 "rule", "--models-dir", str(rr_models), "--out", str(tmp_path / "speed.json")])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "speed.json").read_text())
    assert report["documents"] == 3 and report["unit"] == "sentences" and report["units_per_s"] > 0
    assert "encoder" not in report  # tfidf-logreg encodes no sentences: no ratio to report


def test_the_encoder_alone_is_timed_on_the_sentences_of_each_batch():
    from baselines.runs.corpus import CorpusText, Labeller, MemorySink, label_corpus
    from baselines.runs.corpus_speed import TimedRuns

    encoded = []
    labeller = Labeller(label=lambda texts: [{"sentences": text.text.split(". ")} for text in texts],
                        unit="sentences", count=lambda fields: len(fields["sentences"]), encode=encoded.extend,
                        encoded_texts=lambda fields: fields["sentences"])
    timed = TimedRuns(labeller)
    summary = label_corpus([CorpusText("a", "a", "One. Two"), CorpusText("b", "b", "Three")], MemorySink(), timed.run)
    assert summary.units == timed.encoded == 3 and encoded == ["One", "Two", "Three"]
    assert timed.pipeline_seconds > 0 and timed.encoder_seconds > 0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for_port(port: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    pytest.fail(f"the Dask scheduler did not listen on port {port} within {seconds} s")


@pytest.fixture
def dask_cluster(tmp_path):
    """A scheduler and one worker (one thread) started with the `dask` command on the loopback address."""
    pytest.importorskip("distributed")
    dask = os.path.join(os.path.dirname(sys.executable), "dask")
    if not os.path.exists(dask):
        pytest.skip("the dask command is not installed")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    started = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                                **quiet)]
    try:
        _wait_for_port(port, seconds=60)
        started.append(subprocess.Popen([dask, "worker", address, "--nthreads", "1", "--nworkers", "1", "--host",
                                         "127.0.0.1", "--no-dashboard", "--local-directory", str(tmp_path)], **quiet))
        yield address
    finally:
        for process in reversed(started):
            process.terminate()
        for process in reversed(started):
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def test_a_dask_cluster_writes_what_a_local_run_writes(rr_models, tmp_path, dask_cluster):
    from distributed import Client

    texts = [{"id": f"j{k}", "text": list(JUDGMENTS.values())[k % 3] + f"The fine is {k} rupees.\n"}
             for k in range(40)]  # two batches
    lines = tmp_path / "texts.jsonl"
    lines.write_text("".join(json.dumps(t) + "\n" for t in texts))
    assert predict(rr_models, lines, "--out", tmp_path / "local.jsonl").exit_code == 0
    started = time.monotonic()
    result = predict(rr_models, lines, "--out", tmp_path / "dask.jsonl", "--backend", "dask",
                     "--scheduler", dask_cluster)
    assert result.exit_code == 0, result.output
    assert time.monotonic() - started < 300
    assert (tmp_path / "dask.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    with Client(dask_cluster, timeout="10s") as client:  # the worker loaded the model once for both batches
        loaded = client.run(lambda: len(__import__("baselines.runs.corpus", fromlist=["_"])._LABELLERS))
    assert list(loaded.values()) == [1]
