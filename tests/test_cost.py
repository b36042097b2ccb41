"""Cost beside accuracy: what a run of ours measures and records, what an LLM run's estimate records, and the
Pareto front of the cost chart."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from baselines.cli import app
from baselines.comparison.cost import pareto_front
from baselines.core.errors import BaselinesError
from baselines.runs.cost import Stopwatch
from baselines.runs.llm_cost import ACCELERATOR, model_parameters, parse_parameters
from conftest import run_results
from test_cli import scalr_dir
from test_rr_cli import UNSEEN, train_file

runner = CliRunner()


def test_an_eval_records_its_steps_apart_and_the_training_cost_of_its_model(tmp_path):
    assert runner.invoke(app, ["train", "rr", "--method", "majority", "--train-file",
                               str(train_file(tmp_path))]).exit_code == 0
    model = json.loads((tmp_path / "models" / "rr" / "majority" / "config.json").read_text())
    assert model["train_seconds"] >= 0 and model["train_cpu_seconds"] >= 0 and model["cpu"]
    assert set(model["train_load_1min"]) == {"before", "after"}
    test = tmp_path / "test.jsonl"
    test.write_text(json.dumps({"id": "t", "sentences": UNSEEN, "labels": ["PREAMBLE", "FAC", "ANALYSIS"]}) + "\n")
    result = runner.invoke(app, ["eval", "rr", "--method", "majority", "--test-file", str(test)])
    assert result.exit_code == 0, result.output
    cost = run_results("rr", "majority")["meta"]["cost"]
    assert cost["items"] == 3 and not cost["predict"]["includes_fitting"]
    predict = cost["predict"]
    rounding = 0.0005 * 1000 / 3 + 0.001  # seconds are recorded to the millisecond, per 1,000 from the unrounded
    assert predict["wall_seconds_per_1000"] == pytest.approx(predict["wall_seconds"] * 1000 / 3, abs=rounding)
    assert predict["cpu_seconds_per_1000"] == pytest.approx(predict["cpu_seconds"] * 1000 / 3, abs=rounding)
    assert cost["startup_seconds"] > 0 and cost["model_load_seconds"] >= 0 and cost["data_load_seconds"] >= 0
    assert cost["machine"]["cpu"] and set(cost["machine"]["load_average_1min"]) == {"before", "after"}
    others = cost["machine"]["others_cores"]  # the cores other work kept busy while it predicted; None: no /proc/stat
    assert others is None or others >= 0
    assert cost["train"]["wall_seconds"] == model["train_seconds"] and cost["train"]["cpu"] == model["cpu"]


def test_a_cross_validated_run_says_its_prediction_includes_fitting(tmp_path):
    scalr_dir(tmp_path)
    result = runner.invoke(app, ["eval", "scalr", "--method", "majority", "--cv", "2", "--data-dir",
                                 str(tmp_path / "data")])
    assert result.exit_code == 0, result.output
    cost = run_results("scalr", "majority")["meta"]["cost"]
    assert cost["predict"]["includes_fitting"] and cost["train"] is None


def test_an_llm_run_records_an_estimate_from_its_tokens_and_parameters(tmp_path):
    data = scalr_dir(tmp_path)
    preds = tmp_path / "llama-3.1-70b.jsonl"
    preds.write_text("".join(json.dumps({"id": str(i), "raw": "The final answer is " + "ABCDE"[i % 5]}) + "\n"
                             for i in range(6)))
    assert runner.invoke(app, ["score", "scalr", str(preds), "--data-dir", str(data)]).exit_code == 0
    cost = run_results("scalr", "llama-3.1-70b")["meta"]["cost"]
    assert cost["estimate"] and cost["items"] == 6 and cost["parameters"] == 70.6e9
    assert cost["prompt_tokens_per_item"] > 50 and 4 <= cost["output_tokens_per_item"] <= 8
    tokens = cost["prompt_tokens_per_item"] + cost["output_tokens_per_item"]
    assert cost["flops_per_item"] == pytest.approx(2 * 70.6e9 * tokens, rel=1e-3)
    rate = ACCELERATOR["peak_flops_per_second"] * ACCELERATOR["utilisation"]
    assert cost["gpu_seconds_per_1000"] == pytest.approx(1000 * 2 * 70.6e9 * tokens / rate, rel=1e-3)

    result = runner.invoke(app, ["score", "scalr", str(preds), "--data-dir", str(data), "--name", "mine",
                                 "--params", "7B"])
    assert result.exit_code == 0 and run_results("scalr", "mine")["meta"]["cost"]["parameters"] == 7e9
    result = runner.invoke(app, ["score", "scalr", str(preds), "--data-dir", str(data), "--name", "unknown"])
    unknown = run_results("scalr", "unknown")["meta"]["cost"]
    assert unknown["parameters"] is None and "gpu_seconds_per_1000" not in unknown  # no count, no estimate
    result = runner.invoke(app, ["score", "scalr", str(preds), "--data-dir", str(data), "--name", "bad",
                                 "--params", "seventy"])
    assert result.exit_code == 2 and "--params 'seventy' is not a parameter count" in result.output
    assert not (tmp_path / "results" / "scalr" / "bad").exists()


def test_parameter_counts_come_from_the_documented_table_or_the_option():
    assert model_parameters("lawma-70b")[0] == 70.6e9 and model_parameters("llama-3-8b-instruct")[0] == 8.03e9
    assert model_parameters("Llama-3.1-405B")[0] == 405.9e9  # the longest key wins over llama-3.1-...
    assert model_parameters("gpt-4o-mini") == (None, "not published by OpenAI")
    assert parse_parameters("110M") == 110e6 and parse_parameters("8.03b") == 8.03e9 and parse_parameters("7e9") == 7e9
    with pytest.raises(BaselinesError):
        parse_parameters("0")


def test_the_pareto_front_keeps_the_runs_nothing_beats_on_both():
    points = [(1.0, 50.0), (2.0, 40.0), (3.0, 70.0), (100.0, 65.0), (1000.0, 85.0), (1.0, 45.0)]
    assert pareto_front(points) == [0, 2, 4]


def test_a_stopwatch_adds_up_its_blocks():
    watch = Stopwatch()
    for _ in range(2):
        with watch:
            sum(range(200_000))
    assert watch.wall > 0 and watch.cpu > 0


def test_a_published_figure_with_tokens_gets_an_estimate_when_its_parameter_count_is_known():
    from baselines.comparison.cost import published_cost_cell

    rate = ACCELERATOR["peak_flops_per_second"] * ACCELERATOR["utilisation"]
    assert published_cost_cell("Gemma-2-27B", 569) == f"≈{1000 * 2 * 27.2e9 * 569 / rate:,.0f} A100-s (est.)"
    assert published_cost_cell("gpt-4o-mini", 569) == "–"  # no published parameter count
    assert published_cost_cell("Gemma-2-27B", None) == "–"  # no tokens stated
