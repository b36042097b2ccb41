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


def test_progress_shows_on_a_terminal_or_when_forced_and_never_when_silenced(monkeypatch):
    monkeypatch.delenv(progress.ENV, raising=False)
    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert not progress.shown()  # a log file or a pipe stays clean
    monkeypatch.setenv(progress.ENV, "1")
    assert progress.shown()
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
    assert trained.stdout == f"saved {tmp_path / 'models' / 'caselawqa' / 'linear'}\n"  # progress stays off stdout
    for stage in ("loading data (caselawqa, train split) ...", "fitting linear on 120 items ...",
                  "saving the model into"):
        assert stage in trained.stderr, stage
    assert re.search(r"fitting per-task heads: .*\b4(/4| done) \[", trained.stderr)  # the 4 tasks done
    assert re.search(r"fitting linear on 120 items: done in \d", trained.stderr)

    evaluated = run("eval", "caselawqa", "--method", "linear")
    for stage in ("loading linear", "loading data (caselawqa, test split): done in", "predicting 48 items with linear",
                  "scoring 48 predictions", "writing the run into"):
        assert stage in evaluated.stderr, stage
    pages = run("compare", "--all", "--out", str(tmp_path / "pages"))
    assert "results pages" in pages.stderr and "4/4" in pages.stderr
    exported = run("export", "lm-eval", "caselawqa", "--out", str(tmp_path / "export"))
    assert "writing lm-eval documents into" in exported.stderr and "(48 documents)" in exported.stderr

    quiet = [run("train", "caselawqa", "--method", "linear", *SMALL, "--name", "again", "--quiet"),
             run("eval", "caselawqa", "--method", "linear", "--force", "--quiet"),
             run("compare", "--all", "--out", str(tmp_path / "pages"), "--quiet"),
             run("export", "lm-eval", "caselawqa", "--out", str(tmp_path / "export"), "--force", "--quiet")]
    assert [result.stderr for result in quiet] == ["", "", "", ""]
    assert (tmp_path / "models" / "caselawqa" / "again" / "config.json").is_file()  # the work itself is done
    assert "wrote" in quiet[1].stdout and "wrote 48 documents" in quiet[3].stdout


def test_no_progress_outside_a_terminal_unless_forced(monkeypatch, tmp_path):
    monkeypatch.delenv(progress.ENV, raising=False)
    root = write_normalized(tmp_path / "data")
    result = CliRunner().invoke(app, ["export", "lm-eval", "caselawqa", "--out", str(tmp_path / "export"),
                                      "--data-dir", str(root)])
    assert result.exit_code == 0 and result.stderr == ""
