"""lm-evaluation-harness logs checked against our references and one model per scored folder; `baselines llm run`
recording one model run per samples folder, counting documents, never leaving a stale record, refusing a run that
logged nothing, and measuring with one thread on a machine whose load it records; `compare` noting measured costs
that cannot be read side by side. The harness is a stand-in script here."""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import run_results
from typer.testing import CliRunner

from baselines.cli import app
from baselines.comparison.measured_costs import measurement_notes
from baselines.core.errors import BaselinesError
from baselines.core.machine import THREAD_VARIABLES
from baselines.core import machine
from baselines.core.machine import busy_load
from baselines.llm import measured_run
from baselines.llm.measured_run import load_warning, run_measured

FAKE_HARNESS = '''#!{python}
import json, os, sys
from pathlib import Path
args = sys.argv
output = Path(args[args.index("--output_path") + 1])
model = args[args.index("--model_args") + 1].split("pretrained=")[1].split(",")[0]
docs, filters = int(os.environ.get("FAKE_DOCS", "3")), os.environ.get("FAKE_FILTERS", "none").split(",")
sys.stderr.write("Running generate_until requests\\n"); sys.stderr.flush()
folder = output / model
folder.mkdir(parents=True, exist_ok=True)
(output / "seen_threads").write_text(os.environ.get("OMP_NUM_THREADS", "unset"))
if os.environ.get("FAKE_SAMPLES", "1") == "1":
    rows = [{{"doc_id": k, "doc": {{"id": "q{{}}".format(k), "labels": list("ABCDE")}}, "filter": name,
             "resps": [["The final answer is A"]], "filtered_resps": ["The final answer is A"]}}
            for k in range(docs) for name in filters]
    stamp = os.environ.get("FAKE_STAMP", "2026")
    (folder / "samples_scalr_generate_{{}}.jsonl".format(stamp)).write_text("".join(json.dumps(r) + "\\n" for r in rows))
sys.exit(int(os.environ.get("FAKE_STATUS", "0")))
'''


@pytest.fixture
def harness(tmp_path, monkeypatch, fake_lm_eval):
    """`lm_eval` on PATH writing FAKE_DOCS documents per FAKE_FILTERS filter into <output>/<pretrained>/."""
    fake_lm_eval(FAKE_HARNESS)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    return tmp_path / "runs"


def lm_eval(output: Path, model: str = "model-a") -> list[str]:
    return ["lm_eval", "--model", "hf", "--model_args", f"pretrained={model}", "--tasks", "scalr_generate",
            "--log_samples", "--output_path", str(output)]


@pytest.fixture
def scalr_file(tmp_path) -> Path:
    path = tmp_path / "scalr.jsonl"
    path.write_text("".join(json.dumps({"index": f"q{k}", "question": "Q?", "answer": "0",
                                        **{f"choice_{c}": f"holding {k}-{c}" for c in range(5)}}) + "\n"
                            for k in range(5)), encoding="utf-8")
    return path


def score(path: Path, scalr_file: Path, name: str):
    return CliRunner().invoke(app, ["score", "scalr", str(path), "--name", name, "--test-file", str(scalr_file),
                                    "--only-present"])


def test_llm_run_counts_documents_not_a_line_per_filter(harness, monkeypatch):
    monkeypatch.setenv("FAKE_FILTERS", "strict-match,flexible-extract")
    record = run_measured(lm_eval(harness))
    assert record["items"] == 3  # 6 lines: 3 documents under two filters


def test_two_models_in_one_output_path_keep_a_record_each(harness, monkeypatch, scalr_file):
    run_measured(lm_eval(harness, "model-a"))
    monkeypatch.setenv("FAKE_DOCS", "5")
    run_measured(lm_eval(harness, "model-b"))
    first = json.loads((harness / "model-a" / "llm_run.json").read_text())
    second = json.loads((harness / "model-b" / "llm_run.json").read_text())
    assert (first["items"], second["items"]) == (3, 5)
    assert list(first["samples"]) == ["samples_scalr_generate_2026.jsonl"]
    assert not (harness / "llm_run.json").exists()
    outcome = score(harness / "model-a", scalr_file, "a")
    assert outcome.exit_code == 0, outcome.output
    assert run_results("scalr", "a")["meta"]["cost"]["items"] == 3


def test_a_failed_run_leaves_no_record_behind(harness, monkeypatch, scalr_file):
    run_measured(lm_eval(harness, "model-a"))
    monkeypatch.setenv("FAKE_STATUS", "1")  # each logs its samples, then fails
    with pytest.raises(BaselinesError, match="exited with status 1"):
        run_measured(lm_eval(harness, "model-b"))
    outcome = score(harness / "model-b" / "samples_scalr_generate_2026.jsonl", scalr_file, "failed")
    assert outcome.exit_code == 0, outcome.output
    assert not run_results("scalr", "failed")["meta"]["cost"].get("llm")  # not model-a's cost
    assert (harness / "model-a" / "llm_run.json").is_file()
    monkeypatch.setenv("FAKE_STAMP", "2027")
    with pytest.raises(BaselinesError, match="exited with status 1"):
        run_measured(lm_eval(harness, "model-a"))
    assert not (harness / "model-a" / "llm_run.json").exists()


def test_a_record_is_used_only_for_the_logs_it_describes(harness, monkeypatch, scalr_file):
    run_measured(lm_eval(harness))
    log = harness / "model-a" / "samples_scalr_generate_2026.jsonl"
    log.write_text(log.read_text().replace("The final answer is A", "The final answer is B"))  # another run's log
    outcome = score(harness / "model-a", scalr_file, "changed")
    assert outcome.exit_code == 0, outcome.output
    assert "has changed since" in outcome.output and "estimated, not measured" in outcome.output
    assert not run_results("scalr", "changed")["meta"]["cost"].get("llm")


def test_a_run_that_logged_no_samples_is_refused(harness, monkeypatch):
    monkeypatch.setenv("FAKE_SAMPLES", "0")
    with pytest.raises(BaselinesError, match="logged no samples.*--log_samples"):
        run_measured(lm_eval(harness))
    assert not list(harness.rglob("llm_run.json"))


def test_llm_run_sets_one_thread_unless_the_user_set_it(harness, monkeypatch):
    record = run_measured(lm_eval(harness))
    assert (harness / "seen_threads").read_text() == "1"
    assert record["threads"]["OMP_NUM_THREADS"] == "1" and record["threads_default"]
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    record = run_measured(lm_eval(harness, "model-b"))
    assert (harness / "seen_threads").read_text() == "2"
    assert record["threads"]["OMP_NUM_THREADS"] == "2" and not record["threads_default"]
    assert "2 thread(s)" in measured_run.summary(record)


def no_proc_stat(monkeypatch) -> None:
    """The machine's busy time unreadable, as on a system without /proc/stat."""
    monkeypatch.setattr(machine, "busy_cpu_seconds", lambda: None)
    monkeypatch.setattr(measured_run, "busy_cpu_seconds", lambda: None)


def test_llm_run_warns_when_other_work_keeps_the_machine_busy(harness, monkeypatch):
    readings = iter(range(0, 10**6, 100))  # the machine's busy CPU-seconds, 100 more at each reading: other work

    def busy() -> float:
        return float(next(readings))

    monkeypatch.setattr(machine, "busy_cpu_seconds", busy)
    monkeypatch.setattr(measured_run, "busy_cpu_seconds", busy)
    monkeypatch.setattr(measured_run, "load_1min", lambda: 0.0)  # the load average says quiet: not what is read
    told = []
    record = run_measured(lm_eval(harness), warn=told.append)
    assert told and "other work kept" in told[0]
    assert record["machine"]["others_cores"] > machine.OTHERS_BUSY
    assert "other work kept" in load_warning(record)


def test_llm_run_without_proc_stat_warns_by_the_load_average(harness, monkeypatch):
    no_proc_stat(monkeypatch)
    monkeypatch.setattr(measured_run, "load_1min", lambda: 64.0)
    told = []
    record = run_measured(lm_eval(harness), warn=told.append)
    assert told and "the machine is loaded" in told[0]
    assert record["machine"]["load_average_1min"] == {"before": 64.0, "after": 64.0}
    assert record["machine"]["others_cores"] is None
    assert "loaded" in load_warning(record)
    quiet = {"cores": 2, "load_average_1min": {"before": 0.4, "after": 1.3}}
    assert busy_load(quiet, threads=1) is None and busy_load(quiet, threads=0)


def measured_system(name: str, cpu: str = "AMD EPYC", threads: dict | None = None, load=(0.2, 1.0),
                    llm: bool = False) -> SimpleNamespace:
    cost = {"predict": {"cpu_seconds_per_1000": 10.0}, "llm": llm, "threads": threads if threads is not None else {},
            "machine": {"cpu": cpu, "cores": 2, "cores_used": 2,
                        "load_average_1min": {"before": load[0], "after": load[1]}}}
    return SimpleNamespace(name=name, result={"meta": {"cost": cost}})


def test_compare_notes_measured_costs_from_other_cpus_threads_or_loaded_machines():
    same = [measured_system("ours", load=(0.2, 2.1)), measured_system("llm", threads={"OMP_NUM_THREADS": "2"},
                                                                        llm=True)]
    assert measurement_notes(same) == []
    notes = measurement_notes([measured_system("ours", load=(0.2, 2.1)),
                               measured_system("llm", cpu="Intel Xeon", threads={"OMP_NUM_THREADS": "1"},
                                               load=(3.1, 4.5), llm=True)])
    assert len(notes) == 3
    assert "different CPUs" in notes[0] and "Intel Xeon (llm)" in notes[0]
    assert "different thread counts" in notes[1] and "1 (llm)" in notes[1] and "2 (ours)" in notes[1]
    assert "beyond the run's own threads): llm (load 3.10 before, 4.50 after, 2 cores);" in notes[2]
    assert "ours" not in notes[2]


def harness_output(root: Path, models: dict[str, str]) -> Path:
    """An --output_path as the harness writes it: per model folder, a results file naming it and a sample log."""
    for start, (folder, model) in enumerate(models.items()):  # other ids per model: no id is read twice
        (root / folder).mkdir(parents=True)
        (root / folder / "results_2026-01-01T00-00-00.json").write_text(json.dumps(
            {"results": {}, "config": {"model": "hf", "model_args": f"pretrained={model},dtype=float32"}}))
        rows = [{"doc_id": k, "doc": {"id": f"q{k}", "labels": list("ABCDE")}, "filtered_resps": ["A"],
                 "resps": [["A"]], "filter": "none"} for k in range(2 * start, 2 * start + 2)]
        (root / folder / "samples_scalr_generate_2026-01-01T00-00-00.jsonl").write_text(
            "".join(json.dumps(row) + "\n" for row in rows))
    return root


def test_a_folder_with_two_models_runs_is_refused_naming_both(tmp_path, scalr_file):
    output = harness_output(tmp_path / "out", {"org__small": "org/small", "org__large": "org/large"})
    outcome = score(output, scalr_file, "two")
    assert outcome.exit_code == 2, outcome.output
    assert "2 models: org/large (in org__large); org/small (in org__small)" in outcome.output
    assert "score one model's folder" in outcome.output
    picked = score(output / "org__small", scalr_file, "small")
    assert picked.exit_code == 0, picked.output
    same = harness_output(tmp_path / "same", {"a": "org/small"})
    assert score(same, scalr_file, "same").exit_code == 0


def questions(n: int) -> list[dict]:
    """LegalBench SCALR rows: index, question, choice_0..4, answer."""
    return [{"index": f"q{k}", "question": f"Question {k}?", "answer": str(k % 5),
             **{f"choice_{c}": f"holding {k}.{c}" for c in range(5)}} for k in range(n)]


def mc_sample(k: int, doc: dict, rotate: int = 0) -> dict:
    """A multiple-choice sample answering the gold choice; `rotate` shifts the document's choices (and its target
    with them) by that many places."""
    choices = [doc[f"choice_{c}"] for c in range(5)]
    choices = choices[rotate:] + choices[:rotate]
    gold = choices.index(doc[f"choice_{doc['answer']}"])
    logprobs = [-1.0 if c == gold else -3.0 for c in range(5)]
    return {"doc_id": k, "doc": {**doc, **{f"choice_{c}": text for c, text in enumerate(choices)}}, "target": gold,
            "arguments": {f"gen_args_{c}": {"arg_0": "Q", "arg_1": f" {text}"} for c, text in enumerate(choices)},
            "resps": [[[str(v), "False"]] for v in logprobs], "filtered_resps": [[str(v), "False"] for v in logprobs],
            "filter": "none"}


def write_log(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def write_questions(path: Path, rows: list[dict]) -> Path:
    return write_log(path, rows)


def test_a_log_whose_choices_are_rotated_is_refused_naming_the_ids(tmp_path):
    docs = questions(4)
    tests = write_questions(tmp_path / "scalr.jsonl", docs)
    log = write_log(tmp_path / "samples_scalr_mc.jsonl", [mc_sample(k, doc, rotate=1) for k, doc in enumerate(docs)])
    outcome = score(log, tests, "rotated")
    assert outcome.exit_code == 2, outcome.output
    assert "differ from our references on 4 of 4 compared documents" in outcome.output
    assert "first ids 'q0', 'q1', 'q2', 'q3'" in outcome.output
    kept = write_log(tmp_path / "samples_scalr_kept.jsonl", [mc_sample(k, doc) for k, doc in enumerate(docs)])
    assert score(kept, tests, "kept").exit_code == 0
    assert run_results("scalr", "kept")["metrics"]["accuracy"] == 1.0


def test_a_log_with_other_targets_is_refused_past_the_tolerance(tmp_path):
    docs = questions(60)
    tests = write_questions(tmp_path / "scalr.jsonl", docs)
    rows = [{"doc_id": k, "doc": doc, "target": doc["answer"], "resps": [["0"]], "filtered_resps": ["0"],
             "filter": "none"} for k, doc in enumerate(docs)]
    rows[7]["target"] = "4"  # 1 of 60 differs (1.7%): within the tolerance
    assert score(write_log(tmp_path / "one" / "samples_scalr.jsonl", rows), tests, "one").exit_code == 0
    rows[8]["target"] = "4"  # 2 of 60 (3.3%): refused
    outcome = score(write_log(tmp_path / "two" / "samples_scalr.jsonl", rows), tests, "two")
    assert outcome.exit_code == 2 and "2 of 60 compared documents" in outcome.output and "'q7', 'q8'" in outcome.output


def test_our_exports_documents_agree_with_our_references(tmp_path):
    """Our SCALR export numbers the choices A-E while our labels are 0-4: its targets are read by position."""
    docs = questions(3)
    tests = write_questions(tmp_path / "scalr.jsonl", docs)
    rows = [{"doc_id": k, "doc": {"id": doc["index"], "choices": [doc[f"choice_{c}"] for c in range(5)],
                                  "labels": list("ABCDE"), "targets": ["ABCDE"[int(doc["answer"])]],
                                  "gold_indexes": [int(doc["answer"])]},
             "target": ["ABCDE"[int(doc["answer"])]], "resps": [["A"]], "filtered_resps": ["A"], "filter": "none"}
            for k, doc in enumerate(docs)]
    assert score(write_log(tmp_path / "samples_scalr_generate.jsonl", rows), tests, "export").exit_code == 0
    rows[1]["doc"]["gold_indexes"] = [4]
    rows[2]["doc"]["choices"].reverse()
    outcome = score(write_log(tmp_path / "samples_scalr_generate.jsonl", rows), tests, "export2")
    assert outcome.exit_code == 2 and "first ids 'q1', 'q2'" in outcome.output


def test_llm_run_on_the_command_line_refuses_a_run_without_samples_in_one_line(harness, monkeypatch):
    monkeypatch.setenv("FAKE_SAMPLES", "0")
    outcome = CliRunner().invoke(app, ["llm", "run", "--", *lm_eval(harness)])
    assert outcome.exit_code == 2
    lines = [line for line in outcome.output.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1 and "logged no samples" in lines[0] and "--log_samples" in lines[0]


def test_compare_says_under_its_table_when_measured_costs_ran_on_other_thread_counts(harness, monkeypatch,
                                                                                     scalr_file):
    monkeypatch.setenv("FAKE_DOCS", "5")
    for variable in THREAD_VARIABLES:  # only what this test sets (a library may have set others in this process)
        monkeypatch.delenv(variable, raising=False)
    run_measured(lm_eval(harness))  # one thread, as llm run sets it
    assert score(harness, scalr_file, "llm").exit_code == 0
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    ours = CliRunner().invoke(app, ["eval", "scalr", "--method", "random", "--test-file", str(scalr_file)])
    assert ours.exit_code == 0, ours.output
    assert run_results("scalr", "random")["meta"]["cost"]["threads"] == {"OMP_NUM_THREADS": "3"}
    shown = CliRunner().invoke(app, ["compare", "scalr", "--test-file", str(scalr_file)])
    assert shown.exit_code == 0, shown.output
    assert "note: measured costs here come from different thread counts: 1 (llm); 3 (random)" in shown.output
