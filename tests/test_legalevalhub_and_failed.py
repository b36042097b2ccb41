"""`baselines export legalevalhub`: run files in LegalEvalHub's format whose metrics are our results; and failed batch
requests as their own count (`score --errors`, `--missing failed-wrong`, the summary and `compare`)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from baselines.cli import app
from baselines.core.errors import BaselinesError, DataError
from baselines.core.paths import results_root
from baselines.core.records import Reference
from baselines.evaluation.scoring import score_predictions
from baselines.export.legalevalhub import export_legalevalhub
from baselines.registry import get_task
from baselines.runs.results_store import Variant, references_digest, write_run

LABELS = ("0", "1", "2", "3", "4")

# The key structure of a run file of the hub (y-fn/LegalEvalHub@be14440, eval_runs/scalr/
# run_2025_08_04_104413_3a5555.json; each of its 1,271 run files has these keys, each SCALR one these metrics):
HUB_RUN = {
    "submission_id": str, "task_id": str, "model_name": str, "prompt_id": str, "submitter": str,
    "submission_time": str,
    "metrics": {"accuracy": float, "balanced_accuracy": float, "f1_macro": float, "f1_micro": float,
                "valid_predictions_ratio": float, "n_samples": int},
    "predictions_url": str,
}
SUBMISSION_ID = re.compile(r"run_\d{4}_\d{2}_\d{2}_\d{6}_[0-9a-f]{6}")  # CONTRIBUTING.md: run_YYYY_MM_DD_HHMMSS_RANDOM
ISO_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z")


def hub_problems(run: dict, shape: dict = HUB_RUN, where: str = "") -> list[str]:
    """What keeps `run` from having the key structure of the hub's run files (empty: nothing)."""
    problems = []
    for key, kind in shape.items():
        if key not in run:
            problems.append(f"no {where}{key}")
        elif isinstance(kind, dict):
            problems += hub_problems(run[key], kind, f"{where}{key}.") if isinstance(run[key], dict) else [
                f"{where}{key} is not an object"]
        elif not isinstance(run[key], kind) or isinstance(run[key], bool):
            problems.append(f"{where}{key} is {type(run[key]).__name__}, not {kind.__name__}")
    return problems


def refs(n: int) -> list[Reference]:
    return [Reference(id=f"q{i}", gold=(LABELS[i % 5],), labels=LABELS) for i in range(n)]


def write_scored(name: str, references: list[Reference], answers: dict[int, str], *, producer: str = "ours",
                 missing: str = "error", meta: dict | None = None) -> Path:
    """Score hand-made predictions (`answers`: item -> "right" | "wrong" | "none", an item not given has no
    prediction) and write them as `baselines eval` / `score` does; the results.json path."""
    task = get_task("scalr")
    predictions = []
    for k, ref in enumerate(references):
        if k in answers:
            wrong = next(label for label in ref.labels if label not in ref.gold)
            label = {"right": ref.gold[0], "wrong": wrong, "none": "no such label"}[answers[k]]
            predictions.append({"id": ref.id, "prediction": label})
    result, samples = score_predictions(task, predictions, references, system=name, split="test", missing=missing)
    result.meta = {"method": name if producer == "ours" else "external", "timestamp": "2026-12-07T05:00:00+00:00",
                   **(meta or {})}
    result.producer = producer
    variant = Variant(split="test", references=references_digest(references))
    result.variant = variant.to_dict()
    folder = results_root() / "scalr" / name / variant.slug()
    write_run(folder, result.to_dict(), samples, None)
    return folder / "results.json"


def exported(tmp_path: Path) -> dict[str, tuple[str, dict]]:
    """Every run file of an export into tmp_path/out: model_name -> (path relative to out, the file)."""
    done = export_legalevalhub("scalr", tmp_path / "out", submitter="Jane Doe")
    return {hub.run["model_name"]: (hub.path, json.loads((done.folder / hub.path).read_text())) for hub in done.runs}


def test_run_files_have_the_hubs_format_and_our_figures(tmp_path):
    references = refs(10)
    ours = write_scored("tfidf", references, {k: "right" if k < 7 else "wrong" for k in range(10)})
    llm = write_scored("gpt-x", references, {k: "right" if k < 4 else "wrong" if k < 8 else "none" for k in range(10)},
                       producer="llm")
    files = exported(tmp_path)
    assert set(files) == {"legal-baselines/tfidf", "gpt-x"}
    for model, results_path in (("legal-baselines/tfidf", ours), ("gpt-x", llm)):
        path, run = files[model]
        assert hub_problems(run) == []
        assert SUBMISSION_ID.fullmatch(run["submission_id"]) and ISO_TIME.fullmatch(run["submission_time"])
        assert path == f"eval_runs/scalr/{run['submission_id']}.json"  # where the hub keeps a task's runs
        assert run["task_id"] == "scalr" and run["submitter"] == "Jane Doe"
        assert (tmp_path / "out" / run["predictions_url"]).is_file()
        results = json.loads(results_path.read_text())
        metrics = run["metrics"]
        for hub_name, ours_name in (("accuracy", "accuracy"), ("balanced_accuracy", "balanced_accuracy")):
            assert metrics[hub_name] == pytest.approx(results["metrics"][ours_name], abs=1e-12)
        assert metrics["valid_predictions_ratio"] == pytest.approx(results["coverage"], abs=1e-12)
        assert metrics["n_samples"] == results["n"] == 10
    llm_metrics = files["gpt-x"][1]["metrics"]
    assert llm_metrics["accuracy"] == pytest.approx(0.4)  # an item without an answer is wrong
    assert llm_metrics["valid_predictions_ratio"] == pytest.approx(0.8)
    assert llm_metrics["f1_micro"] == pytest.approx(2 * 4 / (10 + 8))  # pooled: 4 right, 10 gold, 8 answered
    assert files["legal-baselines/tfidf"][1]["metrics"]["f1_micro"] == pytest.approx(0.7)  # = accuracy: all answered
    assert files["legal-baselines/tfidf"][1]["prompt_id"] == "none" and files["gpt-x"][1]["prompt_id"] == "base"


def test_a_subset_run_states_the_questions_it_covers(tmp_path):
    references = refs(10)
    write_scored("gpt-x", references, {k: "right" for k in range(6)}, producer="llm", missing="skip")
    _, run = exported(tmp_path)["gpt-x"]
    assert run["metrics"]["n_samples"] == 6
    assert run["items"]["scored"] == 6 and run["items"]["references"] == 10
    assert run["items"]["ids"] == [f"q{k}" for k in range(6)]


def test_runs_of_other_producers_and_in_sample_runs_are_left_out(tmp_path):
    references = refs(5)
    write_scored("tfidf", references, {k: "right" for k in range(5)})
    write_scored("labels", references, {k: "right" for k in range(5)}, producer="other")
    write_scored("learned", references, {k: "right" for k in range(5)},
                 meta={"train_overlap": {"checked": True, "overlapping": 5, "allowed": True}})
    done = export_legalevalhub("scalr", tmp_path / "out")
    assert [hub.run["model_name"] for hub in done.runs] == ["legal-baselines/tfidf"]
    assert len(done.left_out) == 2 and any("producer 'other'" in why for why in done.left_out)


def test_a_hand_edited_results_file_is_refused(tmp_path):
    path = write_scored("tfidf", refs(5), {k: "right" if k < 3 else "wrong" for k in range(5)})
    results = json.loads(path.read_text())
    results["metrics"]["accuracy"] = 0.9
    path.write_text(json.dumps(results))
    with pytest.raises(DataError, match="accuracy"):
        export_legalevalhub("scalr", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_no_runs_and_a_full_folder_are_refused(tmp_path):
    with pytest.raises(BaselinesError, match="no run"):
        export_legalevalhub("scalr", tmp_path / "out")
    write_scored("tfidf", refs(5), {k: "right" for k in range(5)})
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "mine.txt").write_text("x")
    with pytest.raises(BaselinesError, match="not empty"):
        export_legalevalhub("scalr", tmp_path / "taken")


def test_the_command_writes_and_names_each_run(tmp_path):
    write_scored("tfidf", refs(5), {k: "right" for k in range(5)})
    result = CliRunner().invoke(app, ["export", "legalevalhub", "scalr", "--out", str(tmp_path / "out"),
                                      "--predictions-url", "https://example.org/preds/"])
    assert result.exit_code == 0, result.output
    assert "legal-baselines/tfidf, accuracy 1.0000" in result.output and "pull request" in result.output
    (path,) = (tmp_path / "out" / "eval_runs" / "scalr").glob("*.json")
    run = json.loads(path.read_text())
    assert run["predictions_url"] == f"https://example.org/preds/scalr/{run['submission_id']}_predictions.json"
    again = CliRunner().invoke(app, ["export", "legalevalhub", "scalr", "--out", str(tmp_path / "out"), "--force"])
    assert again.exit_code == 0, again.output
    assert [p.name for p in (tmp_path / "out" / "eval_runs" / "scalr").glob("*.json")] == [path.name]  # same id


# --- failed requests: OpenAI's error file, their own count, and --missing failed-wrong --------------------------

GOLD = ["2", "1", "2", "4", "3", "0", "1", "3"]  # question k's gold label in LegalBench's numbering (0-4)


@pytest.fixture
def batch(tmp_path) -> dict[str, Path]:
    """A tiny SCALR file of 8 questions; OpenAI's output file answers 0-4 (0, 1, 2 right, 3, 4 wrong), its error
    file holds 5 (an error object) and 6 (a 500 response); question 7 was never sent."""
    questions = tmp_path / "tiny.jsonl"
    questions.write_text("".join(json.dumps({"index": str(k), "question": f"Question {k}?", "answer": gold,
                                             **{f"choice_{c}": f"holding {k}-{c}" for c in range(5)}}) + "\n"
                                 for k, gold in enumerate(GOLD)))
    answers = [GOLD[k] if k < 3 else str((int(GOLD[k]) + 1) % 5) for k in range(5)]
    output = tmp_path / "batch_output.jsonl"
    output.write_text("".join(json.dumps(openai_line(k, f"The final answer is {'ABCDE'[int(answer)]}")) + "\n"
                              for k, answer in enumerate(answers)))
    errors = tmp_path / "batch_errors.jsonl"
    errors.write_text(json.dumps({"id": "batch_req_5", "custom_id": "scalr-5", "response": None,
                                  "error": {"code": "server_error", "message": "The server had an error"}}) + "\n"
                      + json.dumps({"id": "batch_req_6", "custom_id": "scalr-6", "error": None,
                                    "response": {"status_code": 500, "request_id": "r6",
                                                 "body": {"error": {"message": "overloaded"}}}}) + "\n")
    return {"questions": questions, "output": output, "errors": errors}


def openai_line(k: int, text: str) -> dict:
    return {"id": f"batch_req_{k}", "custom_id": f"scalr-{k}", "error": None,
            "response": {"status_code": 200, "request_id": f"r{k}", "body": {"choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}}}


def score(batch: dict[str, Path], *options: str, name: str = "gpt-x"):
    return CliRunner().invoke(app, ["score", "scalr", str(batch["output"]), "--test-file", str(batch["questions"]),
                                    "--name", name, *options])


def saved(name: str = "gpt-x") -> dict:
    (path,) = (results_root() / "scalr" / name).glob("*/results.json")
    return json.loads(path.read_text())


def test_the_error_files_requests_are_failed_and_failed_wrong_counts_only_them(batch):
    result = score(batch, "--errors", str(batch["errors"]), "--missing", "failed-wrong")
    assert result.exit_code == 0, result.output
    run = saved()
    assert run["n"] == 7 and run["missing"] == 3 and run["failed"] == 2  # 5, 6 failed and scored; 7 skipped
    assert run["metrics"]["accuracy"] == pytest.approx(3 / 7)
    assert run["meta"]["batch"]["error_file"] == {"name": "batch_errors.jsonl", "lines": 2}
    assert re.search(r"failed requests \(wrong\)\s*│\s*2", result.output), result.output
    assert re.search(r"never sent \(skipped\)\s*│\s*1", result.output), result.output
    assert re.search(r"all items answered\s*│\s*0\.6250", result.output), result.output  # 5 of 8


def test_missing_wrong_counts_the_unsent_item_wrong_too(batch):
    result = score(batch, "--errors", str(batch["errors"]), "--missing", "wrong")
    assert result.exit_code == 0, result.output
    run = saved()
    assert run["n"] == 8 and run["missing"] == 3 and run["failed"] == 2
    assert run["metrics"]["accuracy"] == pytest.approx(3 / 8)
    assert re.search(r"failed requests \(wrong\)\s*│\s*2", result.output)
    assert re.search(r"never sent \(wrong\)\s*│\s*1", result.output)


def test_without_the_error_file_its_requests_look_unsent(batch):
    result = score(batch, "--missing", "failed-wrong")
    assert result.exit_code == 0, result.output
    run = saved()
    assert run["n"] == 5 and run["missing"] == 3 and run["failed"] == 0  # nothing failed: every absent item skipped


def test_failed_requests_are_refused_by_default_naming_the_policies(batch):
    result = score(batch, "--errors", str(batch["errors"]))
    assert result.exit_code == 2
    assert "2 requests of the batch file failed" in result.output and "--missing failed-wrong" in result.output


def test_an_error_file_that_answers_or_repeats_an_answered_request_is_refused(batch, tmp_path):
    answered = tmp_path / "answered.jsonl"
    answered.write_text(json.dumps({"custom_id": "scalr-2", "response": None, "error": {"code": "x"}}) + "\n")
    result = score(batch, "--errors", str(answered), "--missing", "failed-wrong")
    assert result.exit_code == 2 and "answered" in result.output and "answered.jsonl:1" in result.output
    succeeded = tmp_path / "succeeded.jsonl"
    succeeded.write_text(json.dumps(openai_line(5, "The final answer is A")) + "\n")
    result = score(batch, "--errors", str(succeeded), "--missing", "failed-wrong")
    assert result.exit_code == 2 and "succeeded" in result.output


def test_an_error_file_goes_with_an_openai_batch_file_only(batch, tmp_path):
    plain = tmp_path / "plain.jsonl"
    plain.write_text(json.dumps({"id": "0", "raw": "The final answer is C"}) + "\n")
    result = CliRunner().invoke(app, ["score", "scalr", str(plain), "--test-file", str(batch["questions"]),
                                      "--name", "plain", "--errors", str(batch["errors"]), "--only-present"])
    assert result.exit_code == 2 and "OpenAI Batch output file" in result.output


def test_compare_shows_failed_requests_apart_and_the_share_of_all_items(batch):
    from baselines.comparison.leaderboard import compare
    from baselines.comparison.render import ALL_ANSWERED, details_display, footer

    assert score(batch, "--errors", str(batch["errors"]), "--missing", "failed-wrong").exit_code == 0
    assert score(batch, "--errors", str(batch["errors"]), "--missing", "wrong", name="gpt-y").exit_code == 0
    comparison = compare("scalr", test_file=batch["questions"].name, replicates=200)
    columns, rows = details_display(comparison)
    cells = {row[0].split(" ")[0]: dict(zip(columns, row)) for row in rows}
    assert cells["gpt-x"]["missing"] == "2 failed, wrong; 1 skipped"
    assert cells["gpt-y"]["missing"] == "2 failed, wrong; 1 wrong"
    assert cells["gpt-x"][ALL_ANSWERED] == cells["gpt-y"][ALL_ANSWERED] == "62.5"  # 5 of all 8 answered
    assert any("N failed" in line for line in footer(comparison))


def test_the_readmes_own_llm_run_and_the_kept_one_have_different_names():
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    own = re.findall(r"baselines score scalr runs/\S+ --name (\S+)", readme)
    kept = re.findall(r"baselines score scalr docs/results/llm-runs/scalr/\S+ [^`]*?--name ([^\s`]+)", readme)
    assert own and kept and not set(own) & set(kept), (own, kept)


def test_the_folders_the_readme_writes_are_git_ignored():
    import subprocess

    repo = Path(__file__).parent.parent
    readme = (repo / "README.md").read_text(encoding="utf-8")
    written = set(re.findall(r"--(?:out|output_path) ((?:lmeval|runs)/\S*)", readme))
    assert {path.split("/")[0] for path in written} == {"lmeval", "runs"}
    for path in written:
        ignored = subprocess.run(["git", "check-ignore", "-q", path.rstrip("/") + "/x"], cwd=repo)
        assert ignored.returncode == 0, f"{path} is not git-ignored"


@pytest.mark.realdata
def test_a_real_scalr_run_exports_in_the_hubs_format_with_its_figures(data_dir, tmp_path):
    result = CliRunner().invoke(app, ["eval", "scalr", "--method", "tfidf", "--data-dir", str(data_dir), "--quiet"])
    assert result.exit_code == 0, result.output
    (_, run), = exported(tmp_path).values()
    results = saved("tfidf")
    assert hub_problems(run) == [] and run["model_name"] == "legal-baselines/tfidf"
    assert run["metrics"]["accuracy"] == results["metrics"]["accuracy"]
    assert run["metrics"]["balanced_accuracy"] == pytest.approx(results["metrics"]["balanced_accuracy"], abs=1e-12)
    assert run["metrics"]["valid_predictions_ratio"] == results["coverage"] == 1.0
    assert run["metrics"]["n_samples"] == run["items"]["references"] == results["n"]


def test_micro_f1_is_sklearns_over_the_labels_an_item_without_an_answer_adding_to_the_gold_counts_only():
    import numpy as np
    from sklearn.metrics import f1_score

    from baselines.evaluation import metrics as M

    gold = np.array([0, 1, 2, 0, 1, 2, 0])
    pred = np.array([0, 2, 2, M.NO_ANSWER, 1, 0, M.NO_ANSWER])
    out = M.Outcomes(gold, pred, gold == pred, np.zeros(7, dtype=np.int64), np.arange(7), ["a", "b", "c"], [""])
    assert M.point("micro_f1", out) == pytest.approx(f1_score(gold, pred, labels=[0, 1, 2], average="micro"))
    assert M.point("micro_f1", out) == pytest.approx(2 * 3 / (7 + 5))
