"""Speed reports name the machine and its load, and say when the measurement was disturbed: other work on the
cores (the load average before or after), or an encoder that came out slower than the pipeline that includes it.
The load average and the clock are replaced, so no test depends on how busy the machine running it is."""
from __future__ import annotations

import json
import os
from types import SimpleNamespace

import numpy as np
import pytest
from typer.testing import CliRunner

import baselines.core.machine as machine
import baselines.encoders.speed as encoder_speed_module
import baselines.runs.corpus_speed as corpus_speed
from baselines.cli import app
from baselines.core.machine import QUIET_LOAD, load_disturbances, machine_record
from baselines.registry import SpeedTexts
from baselines.runs.corpus import Labeller

runner = CliRunner()


@pytest.fixture
def load_average(monkeypatch):
    """Set the 1-minute load averages the run reads, in order (before, after), on a 2-core test CPU."""
    def set_loads(*loads: float) -> None:
        readings = iter(loads)
        monkeypatch.setattr(os, "getloadavg", lambda: (next(readings), 0.0, 0.0))

    monkeypatch.setattr(machine, "cpu_model", lambda: "Test CPU 9000")
    monkeypatch.setattr(machine, "usable_cores", lambda: 2)
    return set_loads


def test_the_rule_names_other_work_before_or_after_and_nothing_else():
    def reasons(before, after):
        return load_disturbances({"load_average_1min": {"before": before, "after": after}, "cores_used": 2})

    assert reasons(0.2, 1.9) == []  # quiet before; after, at most this run's own 2 cores
    assert reasons(None, None) == []  # no load average on this system: nothing to say
    (busy,) = reasons(QUIET_LOAD + 0.3, 1.0)
    assert "0.80 before the run" in busy and "other work was running" in busy
    (joined,) = reasons(0.1, 2 + QUIET_LOAD + 0.1)
    assert "2.60 after the run" in joined and "2 cores it used" in joined
    assert len(reasons(1.2, 3.5)) == 2


def test_the_machine_record_names_the_cpu_and_the_loads(load_average):
    record = machine_record(0.25, 1.5)
    assert record["cpu"] == "Test CPU 9000" and record["cores_used"] == 2 and record["cores"] >= 1
    assert record["load_average_1min"] == {"before": 0.25, "after": 1.5}
    assert machine.load_1min() is None or isinstance(machine.load_1min(), float)


def test_the_real_cpu_model_is_named():
    assert machine.cpu_model().strip()


class Clock:
    """A perf_counter that moves only when the fake labeller works: labelling costs `label` s per document,
    encoding `encode` s per sentence."""

    def __init__(self, label: float, encode: float):
        self.now, self.label, self.encode = 0.0, label, encode

    def labeller(self) -> Labeller:
        def label(texts):
            self.now += self.label * len(texts)
            return [{"sentences": text.text.split(". ")} for text in texts]

        def encode(texts):
            self.now += self.encode * len(texts)

        return Labeller(label=label, unit="sentences", count=lambda fields: len(fields["sentences"]),
                        encode=encode, encoded_texts=lambda fields: fields["sentences"])


def speed_predict(tmp_path, monkeypatch, clock: Clock):
    """`baselines speed predict rr` on three small documents with the fake labeller and clock; (result, report)."""
    folder = tmp_path / "in"
    folder.mkdir()
    for k in range(3):
        (folder / f"j{k}.txt").write_text(f"First of {k}. Second of {k}. Third of {k}")
    monkeypatch.setattr(corpus_speed, "labeller_for", lambda task, options: clock.labeller())
    monkeypatch.setattr(corpus_speed, "time", SimpleNamespace(perf_counter=lambda: clock.now))
    out = tmp_path / "speed.json"
    result = runner.invoke(app, ["speed", "predict", "rr", str(folder), "--data-dir", str(tmp_path),
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    return result, json.loads(out.read_text())


def test_a_quiet_run_records_cpu_and_loads_and_warns_of_nothing(tmp_path, monkeypatch, load_average):
    load_average(0.1, 1.8)
    result, report = speed_predict(tmp_path, monkeypatch, Clock(label=1.0, encode=0.1))
    assert report["machine"]["cpu"] == "Test CPU 9000"
    assert report["machine"]["load_average_1min"] == {"before": 0.1, "after": 1.8}
    assert report["disturbed"] == [] and result.stderr == ""
    assert "CPU Test CPU 9000" in result.stdout and "load average 0.10 before, 1.80 after" in result.stdout
    assert report["units_per_s"] < report["encoder"]["texts_per_s"]


@pytest.mark.parametrize("before, after, said", [(1.4, 1.9, "1.40 before the run"), (0.2, 3.1, "3.10 after the run")])
def test_other_work_on_the_cores_is_one_warning_and_a_lower_bound(tmp_path, monkeypatch, load_average, before,
                                                                   after, said):
    load_average(before, after)
    result, report = speed_predict(tmp_path, monkeypatch, Clock(label=1.0, encode=0.1))
    (reason,) = report["disturbed"]
    assert said in reason
    (warning,) = result.stderr.splitlines()
    assert warning.startswith("warning: the measurement was disturbed") and said in warning
    assert "lower bound" in warning
    assert f"measurement disturbed: {reason}" in result.stdout and "lower bound" in result.stdout


def test_an_encoder_slower_than_the_pipeline_is_reported_as_disturbed(tmp_path, monkeypatch, load_average):
    load_average(0.1, 0.4)  # the load average saw nothing: the run was too short for it
    result, report = speed_predict(tmp_path, monkeypatch, Clock(label=0.1, encode=1.0))
    assert report["encoder"]["texts_per_s"] < report["units_per_s"]
    (reason,) = report["disturbed"]
    assert "slower than the whole pipeline" in reason
    assert "slower than the whole pipeline" in result.stdout and "lower bound" in result.stderr


def test_speed_encoders_records_the_machine_and_warns_under_load(tmp_path, monkeypatch, load_average):
    texts = SpeedTexts(read=lambda data_dir, n: [f"sentence {k}" for k in range(n)], label="test sentences",
                       help="test sentences")
    monkeypatch.setattr(encoder_speed_module, "speed_texts", lambda name: texts)
    unit = np.ones((1, 4), dtype=np.float32) / 2
    monkeypatch.setattr(encoder_speed_module, "backend_encoder",
                        lambda encoder, backend, max_seq_length, batch_size: lambda batch: unit.repeat(len(batch), 0))
    load_average(0.9, 1.0)
    out = tmp_path / "encoders.json"
    result = runner.invoke(app, ["speed", "encoders", "--data-dir", str(tmp_path), "--n", "6", "--repeats", "1",
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["machine"]["cpu"] == "Test CPU 9000"
    assert report["machine"]["load_average_1min"] == {"before": 0.9, "after": 1.0}
    assert "CPU Test CPU 9000" in result.stdout and "load average 0.90 before, 1.00 after" in result.stdout
    (reason,) = report["disturbed"]
    assert "0.90 before the run" in reason
    assert len(result.stderr.splitlines()) == 1 and "lower bound" in result.stderr
