"""Probes of issue 22, cases 1 and 11: in-sample runs are caught by the items' content, whatever the split or
file names; two concurrent `score --name same` never both succeed."""
from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest
from conftest import run_results
from typer.testing import CliRunner

from baselines import api
from baselines.cli import app
from baselines.core.errors import BaselinesError

SENTENCES = ["IN THE HIGH COURT OF KARNATAKA AT BENGALURU", "The appellant was charged with theft of a cow.",
             "We have considered the evidence on record.", "Accordingly, the appeal is dismissed."]
LABELS = ["PREAMBLE", "FAC", "ANALYSIS", "RPC"]


def run(*args):
    return CliRunner().invoke(app, [str(arg) for arg in args])


def questions(path: Path, topic: str, ids=range(6)) -> Path:
    """A tiny SCALR file: question k about `topic`, answer k % 5."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"index": str(i), "question": f"question {k} about {topic}",
                                        "answer": str(k % 5), **{f"choice_{c}": f"holding {c} on {topic}"
                                                                 for c in range(5)}}) + "\n"
                            for k, i in enumerate(ids)))
    return path


def rr_jsonl(path: Path, docs: int, words: str) -> Path:
    path.write_text("".join(json.dumps({"id": f"d{k}", "sentences": [f"{s} {words} {k}" for s in SENTENCES],
                                        "labels": LABELS}) + "\n" for k in range(docs)))
    return path


def as_label_studio(jsonl: Path, path: Path) -> Path:
    """The same documents in LegalEval's Label Studio JSON, under other ids (9000 + k)."""
    docs = []
    for k, line in enumerate(jsonl.read_text().splitlines()):
        row, offset, spans = json.loads(line), 0, []
        for sentence, label in zip(row["sentences"], row["labels"]):
            spans.append({"value": {"start": offset, "end": offset + len(sentence), "labels": [label]}})
            offset += len(sentence) + 2
        docs.append({"id": 9000 + k, "data": {"text": "  ".join(row["sentences"])},
                     "annotations": [{"result": spans}]})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(docs))
    return path


def no_runs(tmp_path: Path, task: str) -> bool:
    return not list((tmp_path / "results" / task).glob("*/*/results.json"))


def test_an_rr_model_fit_on_the_dev_documents_is_refused_on_dev(tmp_path):
    """Case 1: `train rr --train-file <dev>` then `eval rr` on dev (another format, other ids) is refused."""
    dev = rr_jsonl(tmp_path / "dev.jsonl", 3, "dev")
    data = tmp_path / "data"
    as_label_studio(dev, data / "rr" / "legaleval2023" / "dev.json")
    as_label_studio(rr_jsonl(tmp_path / "train.jsonl", 3, "train"), data / "rr" / "legaleval2023" / "train.json")
    assert run("train", "rr", "--method", "tfidf-logreg", "--set", "min_df=1", "--train-file", dev,
               "--name", "x").exit_code == 0
    result = run("eval", "rr", "--name", "x", "--method", "tfidf-logreg", "--data-dir", data)
    assert result.exit_code == 2 and "was fit on 3 of the 3 scored items" in result.output
    assert "models/rr/x" in result.output and "id '9000'" in result.output and "--cv K" in result.output
    assert no_runs(tmp_path, "rr")
    result = run("eval", "rr", "--name", "x", "--method", "tfidf-logreg", "--test-file", dev)
    assert result.exit_code == 2 and "in-sample" in result.output


def test_a_scalr_copy_of_the_test_file_as_train_file_is_refused(tmp_path):
    """Case 1: SCALR fit on a renamed, renumbered copy of the test questions is refused on them."""
    data = tmp_path / "data"
    questions(data / "scalr" / "test.jsonl", "warrants")
    copy = questions(tmp_path / "copy.jsonl", "warrants", ids=range(100, 106))
    assert run("train", "scalr", "--method", "majority", "--train-file", copy).exit_code == 0
    for where in (("--data-dir", data), ("--test-file", data / "scalr" / "test.jsonl"), ("--test-file", copy)):
        result = run("eval", "scalr", "--method", "majority", *where)
        assert result.exit_code == 2 and "was fit on 6 of the 6 scored items" in result.output, where
    assert no_runs(tmp_path, "scalr")


def test_a_model_fit_on_other_items_is_accepted_on_any_file_and_says_so(tmp_path):
    """Case 1: fit on the `test` split of one folder, scored on the `test` split of another (same ids, other
    questions): accepted, and the figures state the overlap found."""
    fitted, other = tmp_path / "fitted", tmp_path / "other"
    questions(fitted / "scalr" / "test.jsonl", "warrants")
    questions(other / "scalr" / "test.jsonl", "taxes")
    assert run("train", "scalr", "--method", "majority", "--data-dir", fitted).exit_code == 0
    result = run("eval", "scalr", "--method", "majority", "--data-dir", other)
    assert result.exit_code == 0, result.output
    overlap = run_results("scalr", "majority")["meta"]["train_overlap"]
    assert overlap["checked"] and overlap["overlapping"] == 0 and overlap["train_items"] == 6
    assert overlap["same_id_other_text"] == 6


def test_overlap_of_a_few_items_is_refused_and_named(tmp_path):
    """Case 1: one training question among the scored ones is enough to refuse, naming it."""
    fitted = questions(tmp_path / "fitted.jsonl", "warrants")
    scored = tmp_path / "scored.jsonl"
    rows = [json.loads(line) for line in questions(tmp_path / "other.jsonl", "taxes").read_text().splitlines()]
    rows[4] = {**json.loads(fitted.read_text().splitlines()[2]), "index": "4"}
    scored.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert run("train", "scalr", "--method", "majority", "--train-file", fitted).exit_code == 0
    result = run("eval", "scalr", "--method", "majority", "--test-file", scored)
    assert result.exit_code == 2 and "fit on 1 of the 6 scored items" in result.output and "'4'" in result.output


def test_a_model_saved_without_digests_falls_back_to_the_split_name(tmp_path):
    """Case 1: a model of the previous release (no digests) still loads; its figures say nothing was checked."""
    data = tmp_path / "data"
    test_file = questions(data / "scalr" / "test.jsonl", "warrants")
    assert run("train", "scalr", "--method", "majority", "--data-dir", data).exit_code == 0
    config_path = tmp_path / "models" / "scalr" / "majority" / "config.json"
    config = json.loads(config_path.read_text())
    config["trained_on"] = {"split": "test", "file": None, "n": 6}
    config_path.write_text(json.dumps(config))
    (config_path.parent / "fit_items.json").unlink()
    result = run("eval", "scalr", "--method", "majority", "--data-dir", data)
    assert result.exit_code == 2 and "was fit on the test split itself" in result.output
    assert run("eval", "scalr", "--method", "majority", "--test-file", test_file).exit_code == 0
    overlap = run_results("scalr", "majority")["meta"]["train_overlap"]
    assert overlap["checked"] is False and "earlier release" in overlap["reason"]
    result = run("eval", "scalr", "--method", "majority", "--data-dir", data, "--allow-overlap")
    assert result.exit_code == 0, result.output
    written = tmp_path / "results" / "scalr" / "majority" / "test" / "results.json"
    overlap = json.loads(written.read_text())["meta"]["train_overlap"]
    assert overlap["allowed"] is True and "test split itself" in overlap["allowed_past"]


def test_cross_validation_and_stateless_methods_are_unchanged(tmp_path):
    """Case 1: --cv is out of fold by construction; a method without training fits on nothing."""
    data = tmp_path / "data"
    questions(data / "scalr" / "test.jsonl", "warrants")
    assert run("eval", "scalr", "--method", "majority", "--cv", "3", "--data-dir", data).exit_code == 0
    assert run_results("scalr", "majority")["meta"]["train_overlap"]["out_of_fold"] is True
    assert run("eval", "scalr", "--method", "tfidf", "--data-dir", data).exit_code == 0
    assert run_results("scalr", "tfidf")["meta"]["train_overlap"] == {"checked": True, "overlapping": 0,
                                                                      "train_items": 0}


def test_score_refuses_an_eval_runs_predictions_on_the_models_training_items(tmp_path):
    """Case 1 through `score`: predictions written by `eval` name their model; scored against the items that
    model was fit on, they are refused."""
    fitted = questions(tmp_path / "fitted.jsonl", "warrants")
    other = questions(tmp_path / "other.jsonl", "taxes")
    assert run("train", "scalr", "--method", "majority", "--train-file", fitted).exit_code == 0
    assert run("eval", "scalr", "--method", "majority", "--test-file", other).exit_code == 0
    predictions = next((tmp_path / "results" / "scalr" / "majority").glob("*/predictions.jsonl"))
    result = run("score", "scalr", predictions, "--test-file", fitted, "--name", "again")
    assert result.exit_code == 2 and "fit on 6 of the 6 scored items" in result.output
    assert run("score", "scalr", predictions, "--test-file", other, "--name", "again").exit_code == 0
    assert run_results("scalr", "again")["meta"]["train_overlap"]["overlapping"] == 0


def test_caselawqa_validation_items_count_as_fitted(tmp_path):
    """Case 1: a CaselawQA model gets the val split too, so scoring it there is refused; test is accepted."""
    from caselawqa_fixtures import write_normalized

    from baselines.runs import training

    root = write_normalized(tmp_path)
    training.train("caselawqa", "majority", root)
    with pytest.raises(BaselinesError, match="fit on 40 of the 40 scored items"):
        api.evaluate("caselawqa", "majority", root, split="val")
    result, _ = api.evaluate("caselawqa", "majority", root)
    assert result.meta["train_overlap"]["train_items"] == 160 and result.meta["train_overlap"]["overlapping"] == 0


def _score_same_name(barrier, outcomes, predictions: Path, test_file: Path, results_dir: Path) -> None:
    from baselines.api import score

    barrier.wait()
    try:
        score("scalr", predictions, test_file=test_file, name="same", results_dir=results_dir)
        outcomes.put("written")
    except BaselinesError:
        outcomes.put("refused")


def test_two_concurrent_scores_of_one_name_never_both_succeed(tmp_path, monkeypatch):
    """Case 11: 50 trials of two `score --name same` started together: exactly one writes, one is refused."""
    monkeypatch.setattr("baselines.core.provenance.git_commit", lambda: None)  # no git process per run
    test_file = questions(tmp_path / "tiny.jsonl", "warrants", ids=range(2))
    predictions = tmp_path / "llm.jsonl"
    predictions.write_text("".join(json.dumps({"id": str(i), "raw": "A"}) + "\n" for i in range(2)))
    context = multiprocessing.get_context("fork")
    for trial in range(50):
        barrier, outcomes = context.Barrier(2), context.Queue()
        workers = [context.Process(target=_score_same_name, args=(barrier, outcomes, predictions, test_file,
                                                                   tmp_path / f"results{trial}")) for _ in range(2)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(30)
        assert sorted(outcomes.get(timeout=5) for _ in workers) == ["refused", "written"], f"trial {trial}"


@pytest.mark.realdata
def test_real_rr_fit_on_dev_is_refused_on_dev_and_accepted_elsewhere(data_dir, tmp_path):
    """Case 1 on LegalEval: tfidf-logreg fit on dev.json is refused on dev, accepted on train (no overlap)."""
    dev = data_dir / "rr" / "legaleval2023" / "dev.json"
    assert run("train", "rr", "--method", "tfidf-logreg", "--train-file", dev, "--name", "x").exit_code == 0
    result = run("eval", "rr", "--name", "x", "--method", "tfidf-logreg", "--data-dir", data_dir)
    assert result.exit_code == 2 and "was fit on 30 of the 30 scored items" in result.output
    assert no_runs(tmp_path, "rr")
    result = run("eval", "rr", "--name", "x", "--method", "tfidf-logreg", "--data-dir", data_dir, "--split", "train")
    assert result.exit_code == 0, result.output
    overlap = run_results("rr", "x")["meta"]["train_overlap"]
    assert overlap["overlapping"] == 0 and overlap["train_items"] == 30


@pytest.mark.realdata
def test_real_scalr_model_is_accepted_on_other_questions(data_dir, tmp_path):
    """Case 1 on SCALR: fit on the 399 questions, refused on them, accepted on another `test` file."""
    assert run("train", "scalr", "--method", "majority", "--data-dir", data_dir).exit_code == 0
    result = run("eval", "scalr", "--method", "majority", "--data-dir", data_dir)
    assert result.exit_code == 2 and "was fit on 399 of the 399 scored items" in result.output
    other = tmp_path / "other"
    questions(other / "scalr" / "test.jsonl", "taxes")
    assert run("eval", "scalr", "--method", "majority", "--data-dir", other).exit_code == 0


@pytest.mark.realdata
def test_real_caselawqa_test_split_is_not_refused_for_shared_boilerplate_opinions(data_dir):
    """Case 1 on CaselawQA: distinct cases share one-line per curiam opinions across train and test; they are
    other items (other cases), so the official test split is accepted with no overlap."""
    from baselines.runs import training

    tasks = {"subtasks": ["sc_petitioner", "sc_respondentstate", "sc_authoritydecision"]}
    training.train("caselawqa", "majority", data_dir, load_options=tasks)
    result, _ = api.evaluate("caselawqa", "majority", data_dir, subtasks=tasks["subtasks"])
    assert result.meta["train_overlap"]["checked"] and result.meta["train_overlap"]["overlapping"] == 0


def test_an_ensembles_member_folders_carry_the_digests_of_the_items_it_was_fit_on(tmp_path):
    """A member folder evaluated alone (`--model .../member-1`) is checked as its own model, not as one saved
    without digests."""
    import dataclasses

    from baselines.methods.base import Method

    @dataclasses.dataclass
    class TwoMembers(Method):
        def save_state(self, folder):
            for k in range(2):
                (folder / f"member-{k}").mkdir()
                (folder / f"member-{k}" / "config.json").write_text('{"method": "one-member"}')
            (folder / "encoder").mkdir()  # a bundled encoder's folder: not a model folder of ours
            (folder / "encoder" / "config.json").write_text('{"model_type": "bert"}')

    TwoMembers().save(tmp_path / "model", records={"fit_items.json": {"digests": "ab"}})
    for folder in ("model", "model/member-0", "model/member-1"):
        assert json.loads((tmp_path / folder / "fit_items.json").read_text()) == {"digests": "ab"}
    assert not (tmp_path / "model" / "encoder" / "fit_items.json").exists()
