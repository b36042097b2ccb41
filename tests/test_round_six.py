"""Round six: a result is what its file says, a killed swap is put back before any write, errors are one line.
Each test fails on the previous release and passes now."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from caselawqa_fixtures import write_normalized
from conftest import refused
from typer.testing import CliRunner

from baselines.cli import app
from baselines.core.paths import results_root

RUNNER = CliRunner()
SMALL = ["--set", "n_features=4096", "--set", "min_df=1", "--set", "k_features=500", "--set", "n_jobs=1",
         "--set", "min_train=10"]


def scalr_file(folder: Path) -> Path:
    path = folder / "tiny.jsonl"
    path.write_text("".join(json.dumps({"index": f"q{k}", "question": f"Question {k}?", "answer": str(k % 5),
                                        **{f"choice_{c}": f"holding {k}-{c}" for c in range(5)}}) + "\n"
                            for k in range(10)), encoding="utf-8")
    return path


def answers(folder: Path, letter: str) -> Path:
    """Answers all `letter` (right on 2 of the 10 questions), or each question's gold letter ("gold")."""
    path = folder / f"answers-{letter}.jsonl"
    path.write_text("".join(json.dumps({"id": f"q{k}", "raw": "The final answer is "
                                        + ("ABCDE"[k % 5] if letter == "gold" else letter)}) + "\n"
                            for k in range(10)), encoding="utf-8")
    return path


def scored(tmp_path: Path, name: str, letter: str, *options: str) -> Path:
    """`baselines score` of answers all `letter` on the tiny SCALR file as system `name`; its run folder."""
    done = RUNNER.invoke(app, ["score", "scalr", str(answers(tmp_path, letter)), "--test-file",
                               str(scalr_file(tmp_path)), "--name", name, *options])
    assert done.exit_code == 0, done.output
    (folder,) = [path for path in (results_root() / "scalr" / name).iterdir() if not path.name.startswith(".")]
    return folder


def edit(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))


def compared(*options: str):
    return RUNNER.invoke(app, ["compare", "scalr", "--test-file", "tiny.jsonl", "--markdown-only",
                               "--replicates", "200", *options])


# 1. A result is what its file says, or it is named


@pytest.mark.parametrize("change", [
    lambda d: d["meta"]["cost"].update(prompt_tokens_per_item=1.0),  # the cost
    lambda d: d.update(producer="ours"),  # an LLM run passed off as one of ours: the reference
    lambda d: d["meta"].update(command="baselines eval scalr --method tfidf"),  # how to reproduce it
])
def test_a_run_whose_results_file_was_edited_anywhere_is_left_out_and_named(tmp_path, change):
    scored(tmp_path, "plain", "B", "--producer", "other")
    edited = scored(tmp_path, "llm", "A")
    edit(edited / "results.json", change)
    shown = compared()
    assert shown.exit_code == 0, shown.output
    assert "| llm" not in shown.stdout and "| 1 | plain (other) |" in shown.stdout
    assert f"left out {edited}: results.json has been edited since this tool wrote it" in shown.stdout


def test_a_lone_edited_run_is_refused_in_one_line(tmp_path):
    edited = scored(tmp_path, "llm", "A")
    edit(edited / "results.json", lambda d: d["meta"]["cost"].update(items=1))
    refused(compared(), str(edited), "results.json has been edited since this tool wrote it")


def test_a_run_without_a_digest_is_shown_named_and_not_the_default_reference(tmp_path):
    """A run of an earlier release (no results_sha256) cannot be checked beyond its figures: it is named, and a
    checked run of ours is the reference before it."""
    scored(tmp_path, "checked", "B", "--producer", "ours")
    old = scored(tmp_path, "old", "gold", "--producer", "ours")
    edit(old / "results.json", lambda d: d["meta"].pop("results_sha256"))
    shown = compared()
    assert shown.exit_code == 0, shown.output
    assert f"{old / 'results.json'}: written without a results_sha256" in shown.stdout
    rows = {line.split("|")[2].strip(): line for line in shown.stdout.splitlines() if line.startswith("| ")
            and line.split("|")[1].strip().isdigit()}
    assert "| 100.0 |" in rows["old"] and "reference" in rows["checked"] and "reference" not in rows["old"]


def test_a_model_is_evaluated_as_the_method_that_saved_it(tmp_path):
    """`eval --method stacked --model <a linear model>` is refused naming the saved method; without --method the
    run is filed under the saved method, whatever the task's default."""
    root = write_normalized(tmp_path)
    trained = RUNNER.invoke(app, ["train", "caselawqa", "--method", "majority", "--data-dir", str(root)])
    assert trained.exit_code == 0, trained.output
    model = Path(os.environ["BASELINES_MODELS"]) / "caselawqa" / "majority"
    no = RUNNER.invoke(app, ["eval", "caselawqa", "--method", "stacked", "--model", str(model), "--data-dir",
                             str(root)])
    refused(no, str(model), "saved by the method 'majority'", "not 'stacked'")
    assert not (results_root() / "caselawqa" / "stacked").exists()
    done = RUNNER.invoke(app, ["eval", "caselawqa", "--model", str(model), "--data-dir", str(root)])
    assert done.exit_code == 0, done.output
    (run,) = (results_root() / "caselawqa" / "majority").glob("*/results.json")
    assert json.loads(run.read_text())["meta"]["method"] == "majority"
    assert not (results_root() / "caselawqa" / "linear").exists()
