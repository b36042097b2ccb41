"""Progress on standard error: named stages and bars, shown on a terminal or when forced, silenced by --quiet,
never on standard output."""
from __future__ import annotations

import io
import re

import pytest
from caselawqa_fixtures import write_normalized
from typer.testing import CliRunner

from baselines.cli import app
from baselines.core import progress
from baselines.registry import TASKS

SMALL = ["--set", "n_jobs=1", "--set", "min_train=10", "--set", "k_features=500", "--set", "n_features=4096",
         "--set", "min_df=1"]  # a few seconds on the fixture


class Terminal(io.StringIO):
    """A standard error that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def forced(monkeypatch):
    """Progress forced on, as BASELINES_PROGRESS=1 does."""
    monkeypatch.setenv(progress.ENV, "1")


def test_progress_shows_on_a_terminal_or_as_log_lines_and_never_when_silenced(monkeypatch):
    monkeypatch.delenv(progress.ENV, raising=False)
    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert progress.shown() and not progress.drawn()  # a log file or a pipe gets lines, no bars redrawn
    monkeypatch.setenv(progress.ENV, "1")
    assert progress.shown() and progress.drawn()
    with progress.silenced():
        with progress.silenced(False):  # quiet=False changes nothing
            assert not progress.shown()
        assert not progress.shown()
    assert progress.shown()
    monkeypatch.setattr("sys.stderr", Terminal())
    monkeypatch.setenv(progress.ENV, "0")
    assert not progress.shown()
    monkeypatch.delenv(progress.ENV)
    assert progress.shown()
    with progress.silenced(True):
        assert not progress.shown()


def test_a_stage_names_itself_and_its_duration_on_stderr_only(forced, capsys):
    with progress.stage("loading data (toy, test split)") as step:
        step.note = "3 items"
    with pytest.raises(ValueError), progress.stage("fitting toy"):
        raise ValueError("no data")
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert lines[0] == "loading data (toy, test split) ..."
    assert re.fullmatch(r"loading data \(toy, test split\): done in \d+\.\d s \(3 items\)", lines[1])
    assert lines[2:] == ["fitting toy ..."]  # a failed stage says nothing more: its error follows


def test_a_bar_counts_and_shows_the_time_left_when_the_total_is_known(forced, capsys):
    assert list(progress.bar(range(3), desc="fitting heads", unit="task")) == [0, 1, 2]
    known = capsys.readouterr().err
    assert "fitting heads" in known and "3/3" in known and "00:00<00:00" in known  # elapsed<left
    assert list(progress.bar(iter("ab"), desc="encoding", unit="batch")) == ["a", "b"]
    unknown = capsys.readouterr().err
    assert "encoding: 2 done [" in unknown and "batch/s" in unknown and "<" not in unknown  # no total: no time left


def test_the_time_left_waits_for_a_measured_rate_not_the_first_item(forced, capsys, monkeypatch):
    """No time left before SETTLE_SECONDS and SETTLE_SHARE of the work; then from the mean rate since the start."""
    assert not progress.measured(60.0, 1, 1000) and not progress.measured(1.0, 500, 1000)
    assert progress.measured(5.0, 20, 1000) and not progress.measured(100.0, 0, None)
    clock = {"now": 0.0}
    bar = progress.bar(total=100, desc="fitting", unit="task")
    monkeypatch.setattr(bar, "_time", lambda: bar.start_t + clock["now"])
    clock["now"] = 30.0  # a slow first item (loading, warm-up)
    bar.update(1)
    assert "<?," in str(bar)  # one item: no estimate from it
    clock["now"] = 40.0
    bar.update(19)  # 20 items in 40 s: 0.5 item/s since the start, 80 to go
    assert "<02:40," in str(bar), str(bar)
    bar.close()


def test_nothing_shows_when_silenced_or_switched_off_by_the_caller(forced, capsys):
    with progress.silenced():
        with progress.stage("scoring"):
            assert list(progress.bar(range(2), desc="folds")) == [0, 1]
        progress.say("hello")
    with progress.bar(total=4, desc="encoding", enabled=False) as bar:
        bar.update(4)  # a caller's own progress=False
    assert capsys.readouterr() == ("", "")


def test_durations_read_as_seconds_minutes_or_hours():
    assert [progress.duration(s) for s in (0.04, 12.34, 185, 3720)] == ["0.0 s", "12.3 s", "3 min 05 s", "1 h 02 min"]


def test_commands_name_their_stages_on_stderr_and_quiet_removes_them(forced, tmp_path):
    root = write_normalized(tmp_path / "data")
    runner = CliRunner()

    def run(*args):
        result = runner.invoke(app, [*args, "--data-dir", str(root)] if args[0] != "compare" else list(args))
        assert result.exit_code == 0, result.output
        return result

    trained = run("train", "caselawqa", "--method", "linear", *SMALL)
    assert trained.stdout == (f"saved {tmp_path / 'models' / 'caselawqa' / 'linear'}\n"  # progress stays off stdout
                              "codebook path: 0 task(s); generic path: 4 task(s) (sc_authority, sc_constant, "
                              "sc_direction, sc_state)\n")  # toy tasks: names of Supreme Court ones, not contents
    for stage in ("loading data (caselawqa, train split) ...", "fitting linear on 120 items ...",
                  "saving the model into"):
        assert stage in trained.stderr, stage
    assert re.search(r"fitting per-task heads: .*\b120/120 \[", trained.stderr)  # the 120 examples of its 4 tasks
    assert re.search(r"fitting linear on 120 items: done in \d", trained.stderr)

    evaluated = run("eval", "caselawqa", "--method", "linear")
    for stage in ("loading linear", "loading data (caselawqa, test split): done in", "predicting 48 items with linear",
                  "scoring 48 predictions", "writing the run into"):
        assert stage in evaluated.stderr, stage
    pages = run("compare", "--all", "--out", str(tmp_path / "pages"))
    pages_of = len(TASKS)  # one page per discovered benchmark: a plugin installed adds its own
    assert "results pages" in pages.stderr and f"{pages_of}/{pages_of}" in pages.stderr
    exported = run("export", "lm-eval", "caselawqa", "--out", str(tmp_path / "export"))
    assert "writing lm-eval documents into" in exported.stderr and "(48 documents)" in exported.stderr

    quiet = [run("train", "caselawqa", "--method", "linear", *SMALL, "--name", "again", "--quiet"),
             run("eval", "caselawqa", "--method", "linear", "--force", "--quiet"),
             run("compare", "--all", "--out", str(tmp_path / "pages"), "--quiet"),
             run("export", "lm-eval", "caselawqa", "--out", str(tmp_path / "export"), "--force", "--quiet")]
    assert [result.stderr for result in quiet] == ["", "", "", ""]
    assert (tmp_path / "models" / "caselawqa" / "again" / "config.json").is_file()  # the work itself is done
    assert "wrote" in quiet[1].stdout and "wrote 48 documents" in quiet[3].stdout


def test_outside_a_terminal_every_stage_writes_lines_and_nothing_is_redrawn(monkeypatch, tmp_path):
    monkeypatch.delenv(progress.ENV, raising=False)
    root = write_normalized(tmp_path / "data")
    result = CliRunner().invoke(app, ["export", "lm-eval", "caselawqa", "--out", str(tmp_path / "export"),
                                      "--data-dir", str(root)])
    assert result.exit_code == 0 and "\r" not in result.stderr
    lines = result.stderr.splitlines()
    assert lines[:2] == ["loading data (caselawqa, test split) ...",
                         "loading data (caselawqa, test split): done in 0.0 s (48 items)"]
    assert re.search(r"done in [0-9.]+ s \(48 documents\)$", lines[-1])  # its prompts' tokens counted for the record


def test_a_log_bar_and_a_silent_stage_speak_at_least_every_interval(monkeypatch, capsys):
    import time

    monkeypatch.delenv(progress.ENV, raising=False)
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.2)
    with progress.stage("fitting heads"):
        time.sleep(0.7)
    with progress.bar(range(4), desc="encoding sentences", unit="sentence") as bar:
        for _ in bar:
            time.sleep(0.25)
    lines = capsys.readouterr().err.splitlines()
    started = lines.index("encoding sentences ...")
    assert lines[0] == "fitting heads ..." and re.fullmatch(r"fitting heads: done in 0\.\d s", lines[started - 1])
    beats = [line for line in lines if line.startswith("fitting heads: still running (")]
    assert 2 <= len(beats) <= 4, lines
    counts = [line for line in lines if re.fullmatch(r"encoding sentences: \d of 4 sentences \(\d+%\), 0\.\d s"
                                                     r"(, about 0\.\d s left)?", line)]
    assert len(counts) >= 2 and re.fullmatch(r"encoding sentences: 4 sentences in 1\.\d s", lines[-1]), lines


def test_training_caselawqa_with_stderr_a_file_leaves_stage_lines_in_the_log(monkeypatch, tmp_path):
    """`baselines train caselawqa --method linear 2>log`: the log names every stage as it starts and ends."""
    import subprocess
    import sys
    from pathlib import Path

    root = write_normalized(tmp_path / "data")
    log = tmp_path / "log"
    environment = {key: value for key, value in __import__("os").environ.items() if key != progress.ENV}
    with open(log, "w") as handle:
        done = subprocess.run([str(Path(sys.executable).parent / "baselines"), "train", "caselawqa", "--method",
                               "linear", "--data-dir", str(root), *SMALL], stderr=handle, stdout=subprocess.PIPE,
                              env=environment, cwd=tmp_path)
    text = log.read_text()
    assert done.returncode == 0, text
    assert "loading data (caselawqa, train split) ..." in text and ": done in " in text and "\r" not in text
    starts = [line[:-4] for line in text.splitlines() if line.endswith(" ...")]
    assert all(any(line.startswith(f"{start}: ") for line in text.splitlines()) for start in starts), text


def test_the_pass_through_the_tuned_layers_counts_its_sentences(monkeypatch, capsys):
    """With every encoder layer tuned, stage one's features are a whole encoder pass: a bar over the sentences,
    so an hour-long RR fine-tuning is not minutes of heartbeats alone."""
    import numpy as np
    import torch

    from baselines.tasks.rr.joint_training import EncodedDocuments

    class Encoder:
        dimension = 3

        def eval(self):
            return self

        def pooled(self, states):
            return torch.ones(len(states), self.dimension)

    monkeypatch.delenv(progress.ENV, raising=False)
    documents = EncodedDocuments([[torch.zeros(2, 3)] * 4, [], [torch.zeros(5, 3)] * 3],
                                 [np.zeros((4, 2), np.float32), np.zeros((0, 2), np.float32),
                                  np.zeros((3, 2), np.float32)], [np.zeros(4), np.zeros(0), np.zeros(3)])
    arrays = documents.all_features(Encoder())
    assert [a.shape for a in arrays] == [(4, 5), (0, 5), (3, 5)]
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "sentences through the tuned layers ..." and \
        re.fullmatch(r"sentences through the tuned layers: 7 sentences in 0\.\d s", lines[-1]), lines
    documents.all_features(Encoder(), progress=False)
    assert capsys.readouterr().err == ""
