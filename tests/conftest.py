"""Shared fixtures: the real benchmark data when present, and isolated output/cache folders."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _real_data_dir() -> Path | None:
    for candidate in (os.environ.get("BASELINES_DATA"), REPO.parent / "shared" / "data"):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


REAL_DATA = _real_data_dir()


@pytest.fixture
def data_dir() -> Path:
    """The real benchmark data folder; tests using it are skipped where it does not exist."""
    if REAL_DATA is None:
        pytest.skip("benchmark data not found (set BASELINES_DATA)")
    return REAL_DATA


@pytest.fixture(scope="session")
def session_cache(tmp_path_factory) -> Path:
    """The encoding cache of this test session: $BASELINES_CACHE when set, else a fresh temporary folder
    (never the user's own cache; encodings are slow to recompute, so all tests share it)."""
    return Path(os.environ.get("BASELINES_CACHE") or tmp_path_factory.mktemp("encoding-cache"))


@pytest.fixture(autouse=True)
def isolated_outputs(tmp_path, monkeypatch, session_cache):
    """Every test writes models and results under its own tmp folder; encodings share the session cache."""
    monkeypatch.setenv("BASELINES_MODELS", str(tmp_path / "models"))
    monkeypatch.setenv("BASELINES_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("BASELINES_CACHE", str(session_cache))
    monkeypatch.setenv("BASELINES_PROGRESS", "0")  # quiet output to assert on; tests of progress switch it on
    yield


def run_results(task: str, system: str) -> dict:
    """The results.json of the only run of `system` (results/<task>/<system>/<run>/results.json)."""
    import json

    from baselines.core.paths import results_root

    found = sorted((results_root() / task / system).glob("*/results.json"))
    assert len(found) == 1, found
    return json.loads(found[0].read_text())


def refused(result, *words, stream: str = "output") -> str:
    """A CLI result refused as the CLI refuses bad input: exit 2, one line "error: ..." on `stream` (output, or
    stderr alone) that says each of `words`, and no traceback; the line."""
    lines = [line for line in getattr(result, stream).splitlines() if line.strip()]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


SCALR_GOLD = ["2", "1", "3", "0", "4"]  # question k of the tiny SCALR file; letters C, B, D, A, E


@pytest.fixture
def scalr_file(tmp_path) -> Path:
    """A tiny SCALR test file of five questions, the answer of question k being SCALR_GOLD[k]."""
    import json

    path = tmp_path / "tiny.jsonl"
    path.write_text("".join(json.dumps({"index": str(k), "question": f"Whether rule {k} applies?", "answer": gold,
                                        **{f"choice_{c}": f"holding that rule {k} binds party {c}" for c in range(5)}})
                            + "\n" for k, gold in enumerate(SCALR_GOLD)))
    return path


@pytest.fixture
def fake_lm_eval(tmp_path, monkeypatch):
    """Puts a stand-in `lm_eval` on PATH: call it with the script's text (a Python script, its first line
    `#!{python}` filled with this interpreter); it returns the script's path."""
    import stat
    import sys

    def install(text: str) -> Path:
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir(exist_ok=True)
        script = bin_dir / "lm_eval"
        script.write_text(text.format(python=sys.executable), encoding="utf-8")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
        return script

    return install


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config, items):
    """Run across workers (`pytest -n 2`, scheduled by xdist group): the tests of a module that builds a
    module-scoped fixture (a trained model, an LLM run) form one group, so one worker builds it once; every other
    test is scheduled alone. The tests marked slow come first, so the longest work starts at once instead of last.

    xdist tells the scheduler a test's group by a suffix "@<group>" on its node id, written to an attribute that
    pytest 9 no longer reads the id from: without copying it to the id, every worker that gets one of a module's
    tests builds the module's fixture again (the LLM run twice)."""
    for item in items:
        definitions = getattr(item, "_fixtureinfo", None)
        scopes = {d.scope for defs in (definitions.name2fixturedefs.values() if definitions else ()) for d in defs}
        if "module" in scopes or "class" in scopes:
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
    result = yield  # xdist's hook (on a worker) adds the group suffix
    for item in items:
        grouped = item.__dict__.get("_nodeid")
        if grouped and grouped != item.nodeid and hasattr(type(getattr(item, "_id", None)), "parse"):
            item._id = type(item._id).parse(grouped)
    return result
