"""The command line: exit code 2 and a one-line message for bad input; nothing half-written."""
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from baselines.cli import app
from conftest import run_results

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def test_ls_lists_tasks_and_methods():
    result = run("ls")
    assert result.exit_code == 0
    for word in ("scalr", "rr", "caselawqa", "tfidf", "embed"):
        assert word in result.output


@pytest.mark.parametrize("args, message", [
    (("eval", "nosuch"), "unknown task 'nosuch'; valid: caselawqa, "),
    (("eval", "scalr", "--method", "nosuch", "--data-dir", "."), "unknown method for task 'scalr' 'nosuch'; valid:"),
    (("eval", "scalr", "--data-dir", "/nonexistent/dir"), "data folder /nonexistent/dir does not exist"),
    (("eval", "scalr", "--set", "bogus=1", "--data-dir", "."), "unknown key(s) bogus"),
])
def test_bad_names_exit_2_with_one_line(args, message, monkeypatch):
    monkeypatch.delenv("BASELINES_DATA", raising=False)
    result = run(*args)
    assert result.exit_code == 2
    assert message in result.output
    assert result.output.count("\n") == 1


def test_missing_data_dir_says_how_to_set_it(monkeypatch, tmp_path):
    monkeypatch.delenv("BASELINES_DATA", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))  # the per-user default, empty
    result = run("eval", "scalr")
    assert result.exit_code == 2 and "--data-dir" in result.output and "BASELINES_DATA" in result.output


def test_download_fails_fast_offline(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    result = run("data", "download", "scalr", "--dest", str(tmp_path / "d"))
    assert result.exit_code == 2 and "unreachable" in result.output and "--data-dir" in result.output
    assert not (tmp_path / "d" / "scalr").exists()


def test_download_reports_unreachable_host(monkeypatch, tmp_path):
    import socket

    def refuse(*args, **kwargs):
        raise OSError(101, "Network is unreachable")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    result = run("data", "download", "rr", "--dest", str(tmp_path / "d"))
    assert result.exit_code == 2 and "storage.googleapis.com is unreachable" in result.output


def scalr_dir(tmp_path):
    folder = tmp_path / "data" / "scalr"
    folder.mkdir(parents=True)
    rows = [{"index": str(i), "question": f"question {i} about warrants", "answer": str(i % 5),
             **{f"choice_{k}": f"holding {k} about {'warrants' if k == i % 5 else 'taxes'}" for k in range(5)}}
            for i in range(6)]
    (folder / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return tmp_path / "data"


def test_score_raw_llm_file_and_bad_predictions(tmp_path):
    data = scalr_dir(tmp_path)
    preds = tmp_path / "llm.jsonl"
    preds.write_text("".join(json.dumps({"id": str(i), "raw": f"The final answer is {'ABCDE'[i % 5]}"}) + "\n"
                             for i in range(6)))
    result = run("score", "scalr", str(preds), "--data-dir", str(data), "--name", "my-llm")
    assert result.exit_code == 0, result.output
    saved = json.loads((tmp_path / "results" / "scalr" / "my-llm" / "test" / "results.json").read_text())
    assert saved["metrics"]["accuracy"] == 1.0 and saved["coverage"] == 1.0
    assert saved["meta"]["method"] == "external" and "peak_memory_mib" in saved["meta"]
    assert saved["producer"] == "llm" and saved["variant"]["split"] == "test" and len(saved["variant"]["references"]) == 16
    assert not (tmp_path / "models").exists()  # results never go into model folders

    result = run("score", "scalr", str(preds), "--data-dir", str(data), "--name", "my-llm")
    assert result.exit_code == 2 and "already holds a scored run" in result.output and "--force" in result.output
    result = run("score", "scalr", str(preds), "--data-dir", str(data), "--name", "my-llm", "--force", "--producer", "other")
    assert result.exit_code == 0, result.output
    assert run_results("scalr", "my-llm")["producer"] == "other"
    result = run("score", "scalr", str(preds), "--data-dir", str(data), "--name", "my-llm", "--force", "--kind", "ours")
    assert result.exit_code == 0 and run_results("scalr", "my-llm")["producer"] == "ours"  # --kind: its old name
    assert "--kind is an earlier name of --producer, kept until 2027-06-30" in result.output
    for bad in ("../../x", "a/b", ".."):
        result = run("score", "scalr", str(preds), "--data-dir", str(data), "--name", bad)
        assert result.exit_code == 2 and "not a plain name" in result.output, bad

    preds.write_text('{"id": "0", "raw": "A"}\n{"id": "1", "prediction": "1"}\n')
    result = run("score", "scalr", str(preds), "--data-dir", str(data), "--name", "mixed")
    assert result.exit_code == 2 and "llm.jsonl:2: mixed formats" in result.output
    assert not (tmp_path / "results" / "scalr" / "mixed").exists()

    preds.write_text("")
    result = run("score", "scalr", str(preds), "--data-dir", str(data))
    assert result.exit_code == 2 and "empty" in result.output


def test_eval_writes_results_predictions_and_config(tmp_path):
    data = scalr_dir(tmp_path)
    result = run("eval", "scalr", "--method", "tfidf", "--data-dir", str(data))
    assert result.exit_code == 0, result.output
    folder = tmp_path / "results" / "scalr" / "tfidf" / "test"
    saved = json.loads((folder / "results.json").read_text())
    assert saved["n"] == 6 and saved["meta"]["config"]["ngram_max"] == 1 and saved["producer"] == "ours"
    assert saved["meta"]["wall_seconds"] >= 0 and saved["meta"]["versions"]["scikit-learn"]
    assert len((folder / "predictions.jsonl").read_text().splitlines()) == 6
    assert not list(folder.parent.glob("*.tmp")) and not list(folder.parent.glob(".*"))


def test_a_test_file_run_is_recorded_as_such_and_never_replaces_the_split_run(tmp_path):
    data = scalr_dir(tmp_path)
    assert run("eval", "scalr", "--method", "tfidf", "--data-dir", str(data)).exit_code == 0
    result = run("eval", "scalr", "--method", "tfidf", "--test-file", str(data / "scalr" / "test.jsonl"))
    assert result.exit_code == 0, result.output
    runs = sorted(p.parent.name for p in (tmp_path / "results" / "scalr" / "tfidf").glob("*/results.json"))
    assert runs[1] == "test" and runs[0].startswith("file-test-")
    saved = json.loads((tmp_path / "results" / "scalr" / "tfidf" / runs[0] / "results.json").read_text())
    assert saved["variant"]["split"] is None and saved["variant"]["test_file"] == "test.jsonl"


def test_eval_refuses_to_replace_a_scored_run_and_checks_writability_first(tmp_path):
    data = scalr_dir(tmp_path)
    preds = tmp_path / "tfidf.jsonl"
    preds.write_text("".join(json.dumps({"id": str(i), "raw": "A"}) + "\n" for i in range(6)))
    assert run("score", "scalr", str(preds), "--data-dir", str(data)).exit_code == 0
    result = run("eval", "scalr", "--method", "tfidf", "--data-dir", str(data))
    assert result.exit_code == 2 and "already holds a scored run" in result.output


def test_an_unwritable_models_folder_fails_before_training(tmp_path, monkeypatch):
    import baselines.runs.results_store as store
    from baselines.methods.floors import MajorityChooser

    data = scalr_dir(tmp_path)
    locked = (tmp_path / "locked").resolve()
    locked.mkdir()
    real_access = os.access
    monkeypatch.setattr(store.os, "access", lambda path, mode: False if Path(path) == locked else real_access(path, mode))
    fitted = []
    monkeypatch.setattr(MajorityChooser, "fit", lambda self, *a, **k: fitted.append(1) or self)
    result = run("train", "scalr", "--method", "majority", "--data-dir", str(data), "--models-dir", str(locked / "m"))
    assert result.exit_code == 2 and "is not writable" in result.output and not fitted


def test_majority_needs_training_or_cv(tmp_path):
    data = scalr_dir(tmp_path)
    result = run("eval", "scalr", "--method", "majority", "--data-dir", str(data))
    assert result.exit_code == 2 and "baselines train scalr --method majority" in result.output
    result = run("eval", "scalr", "--method", "majority", "--name", "m2", "--data-dir", str(data))
    assert result.exit_code == 2 and "baselines train scalr --method majority --name m2` first" in result.output
    assert run("eval", "scalr", "--method", "majority", "--cv", "3", "--data-dir", str(data)).exit_code == 0
    assert run("train", "scalr", "--method", "majority", "--data-dir", str(data)).exit_code == 0
    result = run("eval", "scalr", "--method", "majority", "--data-dir", str(data))
    assert result.exit_code == 2 and "in-sample" in result.output  # fit on these very questions
    result = run("eval", "scalr", "--method", "majority", "--test-file", str(data / "scalr" / "test.jsonl"))
    assert result.exit_code == 2 and "in-sample" in result.output  # the same questions, whatever the file is named


def test_options_that_do_not_apply_are_errors(tmp_path):
    data = scalr_dir(tmp_path)
    result = run("eval", "scalr", "--tasks", "x", "--data-dir", str(data))
    assert result.exit_code == 2 and "scalr takes no --subtasks option" in result.output  # --tasks: its old name
    result = run("eval", "scalr", "--segmenter", "rule", "--data-dir", str(data))
    assert result.exit_code == 2 and "--segmenter applies to tasks scored end to end from raw text (rr), not scalr" \
        in result.output
    assert run("train", "scalr", "--method", "majority", "--data-dir", str(data)).exit_code == 0
    result = run("eval", "scalr", "--method", "majority", "--set", "x=1", "--data-dir", str(data))
    assert result.exit_code == 2 and "unknown key(s) x; valid: none (this method takes no parameters)" in result.output
    result = run("eval", "scalr", "--method", "random", "--missing", "bogus", "--name", "r2", "--data-dir", str(data))
    assert result.exit_code == 2 and not (tmp_path / "results" / "scalr" / "r2").exists()


def test_retraining_keeps_cross_validated_results_and_names_keep_dots(tmp_path):
    data = scalr_dir(tmp_path)
    assert run("eval", "scalr", "--method", "majority", "--cv", "3", "--data-dir", str(data)).exit_code == 0
    assert run("train", "scalr", "--method", "majority", "--data-dir", str(data)).exit_code == 0
    saved = json.loads((tmp_path / "results" / "scalr" / "majority" / "test-cv3" / "results.json").read_text())
    assert saved["variant"]["cv"] == 3 and saved["variant"]["seed"] == 0
    preds = tmp_path / "gpt-4.5.jsonl"
    preds.write_text("".join(json.dumps({"id": str(i), "raw": "A"}) + "\n" for i in range(6)))
    assert run("score", "scalr", str(preds), "--data-dir", str(data)).exit_code == 0
    assert (tmp_path / "results" / "scalr" / "gpt-4.5" / "test" / "results.json").is_file()


def test_the_encoder_a_saved_model_was_trained_with_is_not_an_override(tmp_path, monkeypatch):
    from baselines.runs import run as run_module
    from baselines.core.errors import BaselinesError
    from baselines.methods.base import Method
    from baselines.registry import get_task

    folder = tmp_path / "rr" / "bilstm_crf-enc"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"task": "rr", "method": "bilstm-crf", "params": {"encoder": "ENC"},
                                                    "class": "baselines.tasks.rr.bilstm_crf:BiLstmCrfTagger"}))
    monkeypatch.setattr(Method, "load", classmethod(lambda cls, path: path))
    where = dict(model=None, models_dir=tmp_path, name="bilstm_crf-enc", config=None)
    assert run_module.fitted_method(get_task("rr"), "bilstm_crf", overrides={"encoder": "ENC"}, **where) == folder
    with pytest.raises(BaselinesError, match="holds a saved model"):
        run_module.fitted_method(get_task("rr"), "bilstm_crf", overrides={"encoder": "OTHER"}, **where)


def test_a_named_config_names_the_system(tmp_path):
    data = scalr_dir(tmp_path)
    result = run("eval", "scalr", "--method", "tfidf", "--config", "tfidf-least", "--data-dir", str(data))
    assert result.exit_code == 0, result.output
    saved = run_results("scalr", "tfidf-least")
    assert saved["meta"]["config"]["pick"] == "least" and saved["system"] == "tfidf-least"



@pytest.mark.parametrize("pair, message", [("pick: least", "--set expects key=value"),
                                           ("features=[lexical", "the value is not valid YAML")])
def test_bad_set_values_exit_2_with_one_line(pair, message, tmp_path):
    result = run("eval", "scalr", "--set", pair, "--data-dir", str(scalr_dir(tmp_path)))
    assert result.exit_code == 2 and message in result.output


def test_a_named_config_brings_its_method():
    from baselines.methods.configs import method_of_config

    assert method_of_config("scalr", "learned-lexical") == "learned"
    assert method_of_config("scalr", "tfidf-least") == "tfidf"
    assert method_of_config("rr", "bilstm-crf-single-small") == "bilstm-crf"
    assert method_of_config("caselawqa", "linear-wideC") == "linear"
    assert method_of_config("scalr", "configs/scalr/learned-lexical.yaml") is None


def test_eval_with_a_named_config_alone(tmp_path):
    result = run("eval", "scalr", "--config", "tfidf-least", "--data-dir", str(scalr_dir(tmp_path)))
    assert result.exit_code == 0, result.output
    assert run_results("scalr", "tfidf-least")["meta"]["method"] == "tfidf"
