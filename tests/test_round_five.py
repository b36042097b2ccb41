"""Round five: a kill between two renames, what the user set on a file, numbers that cannot be right. Each test
fails on the previous release and passes now."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from baselines.cli import app
from baselines.core.errors import BaselinesError
from baselines.core.paths import results_root

RUNNER = CliRunner()
KILLING = """
import os, signal, sys
real, calls = os.replace, [0]
def replace(*args, **kwargs):
    calls[0] += 1
    if calls[0] == {at}:
        os.kill(os.getpid(), signal.SIGKILL)
    return real(*args, **kwargs)
os.replace = replace
from baselines.cli import app
sys.argv = ["baselines", *{args!r}]
app()
"""


def killed_at(at: int, args: list[str], cwd: Path) -> int:
    """Run `baselines ARGS`, killed at its `at`-th rename; its exit status (-9 when the kill came)."""
    done = subprocess.run([sys.executable, "-c", KILLING.format(at=at, args=args)], cwd=cwd, env=os.environ.copy(),
                          capture_output=True, text=True)
    return done.returncode


def age_leftovers(root: Path) -> None:
    """Make this tool's hidden temporaries under `root` look older than the stale limit (their writer is dead)."""
    past = time.time() - 3600
    for path in root.rglob(".*legal-baselines*"):
        os.utime(path, (past, past), follow_symlinks=False)


def scalr_file(folder: Path) -> Path:
    path = folder / "tiny.jsonl"
    path.write_text("".join(json.dumps({"index": f"q{k}", "question": f"Question {k}?", "answer": str(k % 5),
                                        **{f"choice_{c}": f"holding {k}-{c}" for c in range(5)}}) + "\n"
                            for k in range(10)), encoding="utf-8")
    return path


def answers(folder: Path, letter: str) -> Path:
    path = folder / f"answers-{letter}.jsonl"
    path.write_text("".join(json.dumps({"id": f"q{k}", "raw": f"The final answer is {letter}"}) + "\n"
                            for k in range(10)), encoding="utf-8")
    return path


def test_a_run_rewrite_killed_at_any_rename_comes_back_whole(tmp_path):
    """A `score --force` killed at each of its renames: the next command finds the run whole, the earlier one
    or the new one, never neither; `compare` lists it."""
    tests = scalr_file(tmp_path)
    base = ["score", "scalr", "--test-file", str(tests), "--name", "llm"]
    assert RUNNER.invoke(app, [base[0], base[1], str(answers(tmp_path, "A")), *base[2:]]).exit_code == 0
    for at in range(1, 8):
        status = killed_at(at, [base[0], base[1], str(answers(tmp_path, "B")), *base[2:], "--force"], tmp_path)
        age_leftovers(results_root())
        listed = RUNNER.invoke(app, ["compare", "scalr", "--test-file", str(tests), "--markdown-only",
                                     "--replicates", "200"])
        assert listed.exit_code == 0 and "| llm " in listed.output, (at, status, listed.output)
        shown = [path for path in (results_root() / "scalr" / "llm").glob("*/results.json")
                 if not path.parent.name.startswith(".")]
        assert len(shown) == 1 and json.loads(shown[0].read_text())["n"] == 10, at
        redone = RUNNER.invoke(app, [base[0], base[1], str(answers(tmp_path, "A")), *base[2:], "--force"])
        assert redone.exit_code == 0, (at, redone.output)
        if status == 0:
            break
    else:
        pytest.fail("the write never completed")


WRITING = """
import os, signal, sys
real, calls = os.replace, [0]
def replace(*args, **kwargs):
    calls[0] += 1
    if calls[0] == {at}:
        os.kill(os.getpid(), signal.SIGKILL)
    return real(*args, **kwargs)
os.replace = replace
from pathlib import Path
from baselines.core.safe_write import write_output_folder
write_output_folder(Path({folder!r}), {{"index.md": b"{text}", "scalr.md": b"{text}", "scalr.png": b"{text}"}},
                    "compare_manifest.json", "test", also={{Path({readme!r}): b"{text}"}})
"""


def test_an_output_folder_write_killed_at_any_rename_is_accepted_by_the_next(tmp_path):
    """The pages' write path (write_output_folder: the manifest, the pages, the README) killed at each of its
    renames while the bytes differ from those there: the next write is accepted, never refused for good."""
    from baselines.core.safe_write import write_output_folder

    folder, readme = tmp_path / "pages", tmp_path / "README.md"
    for at in range(1, 12):
        for text, kill in ((f"version {at}", 0), (f"version {at} again", at)):
            done = subprocess.run([sys.executable, "-c", WRITING.format(at=kill, folder=str(folder), text=text,
                                                                        readme=str(readme))], capture_output=True)
            assert done.returncode in (0, -9), done.stderr
        age_leftovers(tmp_path)
        write_output_folder(folder, {"index.md": b"next", "scalr.md": b"next", "scalr.png": b"next"},
                            "compare_manifest.json", "test", also={readme: b"next"})
        if done.returncode == 0:
            break


def test_a_regenerated_file_keeps_its_mode_and_refuses_links_and_read_only(tmp_path):
    from baselines.core.safe_write import write_json, write_staged

    private = tmp_path / "README.md"
    private.write_text("old\n")
    private.chmod(0o600)
    write_staged({private: b"new\n"})
    assert stat.S_IMODE(private.stat().st_mode) == 0o600 and private.read_text() == "new\n"
    write_json(private, {"a": 1}, follow_link=True)
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    linked = tmp_path / "linked.md"
    os.link(private, linked)
    with pytest.raises(BaselinesError, match="has 2 hard links"):
        write_staged({private: b"newer\n"})
    assert linked.read_text() == private.read_text()
    os.unlink(linked)
    private.chmod(0o444)
    with pytest.raises(BaselinesError, match="is read-only"):
        write_staged({private: b"newer\n"})
    assert private.read_text() != "newer\n"


def test_the_readme_regenerated_keeps_its_mode(tmp_path):
    tests = scalr_file(tmp_path)
    assert RUNNER.invoke(app, ["score", "scalr", str(answers(tmp_path, "A")), "--test-file", str(tests),
                               "--name", "llm"]).exit_code == 0
    readme = tmp_path / "README.md"
    readme.write_text("# x\n\n<!-- headline:start -->\nold\n<!-- headline:end -->\n")
    readme.chmod(0o600)
    done = RUNNER.invoke(app, ["compare", "--all", "--out", str(tmp_path / "p"), "--readme", str(readme),
                               "--replicates", "200"])
    assert done.exit_code == 0, done.output
    assert stat.S_IMODE(readme.stat().st_mode) == 0o600 and "\nold\n" not in readme.read_text()
    readme.chmod(0o444)
    refused = RUNNER.invoke(app, ["compare", "--all", "--out", str(tmp_path / "p"), "--readme", str(readme),
                                  "--replicates", "200"])
    assert refused.exit_code == 2 and "read-only" in refused.output and refused.output.count("\n") == 1


def test_force_names_a_hand_edited_results_file_and_keeps_it(tmp_path):
    tests = scalr_file(tmp_path)
    base = ["score", "scalr", str(answers(tmp_path, "A")), "--test-file", str(tests), "--name", "llm"]
    assert RUNNER.invoke(app, base).exit_code == 0
    path = next((results_root() / "scalr" / "llm").rglob("results.json"))
    edited = json.loads(path.read_text())
    edited["metrics"]["accuracy"] = 0.99
    path.write_text(json.dumps(edited, indent=2))
    refused = RUNNER.invoke(app, [*base, "--force"])
    assert refused.exit_code == 2 and "results.json" in refused.output and "edited" in refused.output
    assert json.loads(path.read_text())["metrics"]["accuracy"] == 0.99


@pytest.mark.parametrize("replicates", ["1", "2", "199"])
def test_an_interval_needs_enough_replicates(tmp_path, replicates):
    refused = RUNNER.invoke(app, ["compare", "scalr", "--replicates", replicates])
    assert refused.exit_code == 2 and "--replicates" in refused.output and "200" in refused.output


@pytest.mark.parametrize("given, message", [("70", "give the unit"), ("70K", "give the unit"),
                                            ("70M", "check the unit")])
def test_a_parameter_count_must_be_one_an_llm_has(tmp_path, given, message):
    tests = scalr_file(tmp_path)
    refused = RUNNER.invoke(app, ["score", "scalr", str(answers(tmp_path, "A")), "--test-file", str(tests),
                                  "--name", "llama-3.1-70b", "--params", given])
    assert refused.exit_code == 2 and message in refused.output, refused.output
    assert RUNNER.invoke(app, ["score", "scalr", str(answers(tmp_path, "A")), "--test-file", str(tests),
                               "--name", "small-llm", "--params", "135M"]).exit_code == 0


MISBEHAVING = {  # module -> source: plugins that do not fail alone unless discovery guards them
    "exiting_plugin": "import sys\nsys.exit('exiting plugin: goodbye')\n",
    "argv_plugin": "import argparse\nparser = argparse.ArgumentParser(prog='argv-plugin')\n"
                   "parser.add_argument('--only-mine', required=True)\nparser.parse_args()\n",
    "interrupting_plugin": "raise KeyboardInterrupt\n",
    "slow_plugin": "import time\nopen('slow-plugin-imported', 'w').close()\ntime.sleep(8)\n"
                   "from baselines.tasks.scalr import BENCHMARK as B\nBENCHMARK = B\n",
}


def misbehaving_site(root: Path) -> dict:
    """The plugins above as pip installs them; the environment that sees them."""
    (root / "pkg").mkdir(parents=True)
    for k, (module, source) in enumerate(MISBEHAVING.items()):
        (root / "pkg" / f"{module}.py").write_text(source)
        info = root / "site" / f"misbehaving_{k}-0.1.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: misbehaving-{k}\nVersion: 0.1\n")
        (info / "entry_points.txt").write_text(f"[legal_baselines.benchmarks]\n{module.split('_')[0]} = "
                                                f"{module}:BENCHMARK\n")
    return {"PYTHONPATH": f"{root / 'site'}:{root / 'pkg'}", "PATH": "/usr/bin:/bin",
            "BASELINES_RESULTS": str(root / "results")}


def test_plugins_that_exit_parse_argv_or_are_interrupted_fail_alone_and_help_never_imports_one(tmp_path):
    environment = misbehaving_site(tmp_path)
    command = str(Path(sys.executable).parent / "baselines")
    tests = scalr_file(tmp_path)
    for args in (["--help"], ["score", "scalr", str(answers(tmp_path, "A")), "--test-file", str(tests),
                              "--name", "llm"], ["eval", "scalr", "--method", "random", "--test-file", str(tests)]):
        done = subprocess.run([command, *args], capture_output=True, text=True, env=environment, cwd=tmp_path)
        assert done.returncode == 0, (args, done.stdout[-500:], done.stderr[-500:])
        assert "goodbye" not in done.stderr + done.stdout and "argv-plugin" not in done.stderr + done.stdout
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "slow-plugin-imported").exists()  # the 8-second plugin was imported by none of them
    listing = subprocess.run([command, "ls"], capture_output=True, text=True, env=environment, cwd=tmp_path)
    assert listing.returncode == 0 and "Traceback" not in listing.stderr, listing.stderr
    assert "skipped benchmark 'exiting': exiting_plugin:BENCHMARK failed to load: it exits while importing" \
        in listing.stdout
    assert "skipped benchmark 'argv':" in listing.stdout and "skipped benchmark 'interrupting':" in listing.stdout
    assert "it was interrupted while importing" in listing.stdout and (tmp_path / "slow-plugin-imported").exists()


def test_one_package_in_two_include_folders_is_skipped_in_both(tmp_path, monkeypatch):
    from baselines.core.errors import BaselinesError
    from baselines.registry import DISCOVERED, get_task

    for folder in ("first", "second"):
        package = tmp_path / folder / "twin_pkg"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("from baselines.tasks.scalr import BENCHMARK as B\nBENCHMARK = B\n")
    monkeypatch.setenv("BASELINES_INCLUDE", f"{tmp_path / 'first'}{os.pathsep}{tmp_path / 'second'}")
    DISCOVERED.reset()
    try:
        problems = DISCOVERED.problems
        assert "both skipped" in problems["twin_pkg"] and str(tmp_path / "second") in problems["twin_pkg"]
        with pytest.raises(BaselinesError, match="twin_pkg.*both skipped"):
            get_task("twin_pkg")
    finally:
        monkeypatch.undo()
        DISCOVERED.reset()
