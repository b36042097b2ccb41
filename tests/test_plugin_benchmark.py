"""A benchmark from a package of its own (tests/plugins/toy_benchmark) is found through its entry point alone:
every command works on it as on a built-in benchmark, the built-in ones stay listed, nothing under baselines/ is
written, and once its package is gone no command knows it any more.

The package is made visible as `pip install` would make it, without installing it into the environment: a
<name>-<version>.dist-info folder (METADATA and entry_points.txt, read from the plugin's pyproject.toml) in a
temporary folder, and that folder and the plugin's source folder put on sys.path for the test only."""
from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import baselines.runs.corpus
from baselines.cli import app
from baselines.registry import DISCOVERED, ENTRY_POINT_GROUP, TASKS

from conftest import run_results

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the TOML reader pytest itself depends on there
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
PLUGIN = Path(__file__).resolve().parent / "plugins" / "toy_benchmark"
BUILT_IN = ("scalr", "caselawqa", "rr", "segmenter")
runner = CliRunner()


def write_dist_info(site: Path, plugin: Path) -> Path:
    """The metadata `pip install` writes for `plugin`, from its pyproject.toml: its name, version and entry points."""
    project = tomllib.loads((plugin / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n",
                                   encoding="utf-8")
    groups = [f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in points.items())
              for group, points in project["entry-points"].items()]
    (info / "entry_points.txt").write_text("\n".join(groups), encoding="utf-8")
    return info


def forget_discovered() -> None:
    """Drop what was found or imported while the plugin was visible: the discovered benchmarks (the classes a plain
    state may hold are read from them) and the plugin's modules."""
    DISCOVERED.reset()
    for name in [name for name in sys.modules if name == "toy_benchmark" or name.startswith("toy_benchmark.")]:
        del sys.modules[name]


def baselines_status() -> list[str]:
    """What git sees under baselines/, ignored files too (compiled bytecode aside); it does not touch the index."""
    out = subprocess.run(["git", "--no-optional-locks", "-C", str(REPO), "status", "--porcelain", "--ignored",
                          "--untracked-files=all", "--", "baselines"], capture_output=True, text=True, check=True)
    return [line for line in out.stdout.splitlines() if "__pycache__" not in line]


@contextlib.contextmanager
def toy_installed(site: Path):
    """The plugin visible to entry points and imports inside the block, and forgotten after it."""
    write_dist_info(site, PLUGIN)
    forget_discovered()
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(PLUGIN))
        patch.syspath_prepend(str(site))
        patch.setattr(baselines.runs.corpus, "_LABELLERS", {})  # the labellers `predict` loaded, per task
        try:
            yield
        finally:
            forget_discovered()


@pytest.fixture
def toy(tmp_path):
    """The plugin installed for one test, which must leave baselines/ as it found it."""
    before = baselines_status()
    with toy_installed(tmp_path / "site"):
        yield
    assert "toy" not in TASKS
    assert baselines_status() == before


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (args, result.output, result.exception)
    return result.output


def test_entry_points_find_the_plugin_only_while_its_dist_info_is_on_the_path(tmp_path):
    assert "toy" not in entry_points(group=ENTRY_POINT_GROUP).names
    with toy_installed(tmp_path / "site"):
        point = entry_points(group=ENTRY_POINT_GROUP)["toy"]
        assert point.value == "toy_benchmark:BENCHMARK" and point.dist.name == "legal-baselines-toy"
        assert list(TASKS)[-1] == "toy" and set(BUILT_IN) < set(TASKS)
    assert "toy" not in entry_points(group=ENTRY_POINT_GROUP).names and "toy" not in TASKS


def test_ls_lists_the_plugin_after_the_built_in_benchmarks(toy):
    lines = invoke("ls").splitlines()
    tasks = [line.split()[0] for line in lines if not line.startswith(" ")]
    assert tasks[-1] == "toy" and set(BUILT_IN) <= set(tasks)
    toy_lines = lines[lines.index(next(line for line in lines if line.startswith("toy "))):]
    assert "(classification; main metric accuracy; eval split test)" in toy_lines[0]
    assert any("- tfidf-logreg" in line and "config: toy_benchmark:configs/tfidf-logreg.yaml" in line
               and "[default]" in line for line in toy_lines)
    assert any("variants (--config NAME): tfidf-logreg-unigram" in line for line in toy_lines)
    assert any("- majority" in line and "config: defaults" in line for line in toy_lines)
    docs = next(line for line in toy_lines if line.strip().startswith("docs: "))
    assert Path(docs.split("docs: ", 1)[1]).read_text(encoding="utf-8").startswith("# Toy:")


def test_a_config_the_plugin_ships_is_resolved_and_saved_with_the_model(toy, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    invoke("train", "toy", "--config", "tfidf-logreg-unigram", "--data-dir", str(data), "--download")
    config = json.loads((tmp_path / "models" / "toy" / "tfidf-logreg-unigram" / "config.json").read_text())
    assert config["params"]["ngram_max"] == 1 and config["method"] == "tfidf-logreg"


def train_both(data: Path) -> None:
    """Both methods trained on the toy data, fetched into the empty folder `data` by the first run (--download)."""
    data.mkdir()
    assert "saved" in invoke("train", "toy", "--data-dir", str(data), "--download")
    assert (data / "toy" / "toy.jsonl").is_file()
    invoke("train", "toy", "--method", "majority", "--data-dir", str(data))


def test_train_eval_score_and_compare_the_plugin(toy, tmp_path):
    data = tmp_path / "data"
    train_both(data)
    saved = sorted(path.name for path in (tmp_path / "models" / "toy" / "tfidf-logreg").iterdir())
    assert {"config.json", "state.json", "state.npz"} <= set(saved) and not any(".joblib" in name for name in saved)
    invoke("eval", "toy", "--data-dir", str(data))
    invoke("eval", "toy", "--method", "majority", "--data-dir", str(data))
    trained, floor = run_results("toy", "tfidf-logreg"), run_results("toy", "majority")
    assert floor["metrics"]["accuracy"] == 0.25  # "facts", the most frequent training role: 2 of the 8 test items
    assert trained["metrics"]["accuracy"] >= 0.75 > floor["metrics"]["accuracy"] and trained["n"] == 8
    llm = tmp_path / "my-llm.jsonl"
    answers = ["A", "A", "B", "B", "B", "C", "A", None]  # 6 right, test-07 wrong, test-08 gives no letter
    llm.write_text("".join(json.dumps({"id": f"test-{k:02d}", "raw": f"The sentence ... The final answer is {a}"
                                       if a else "I cannot tell from one sentence."}) + "\n"
                           for k, a in enumerate(answers, 1)), encoding="utf-8")
    invoke("score", "toy", str(llm), "--data-dir", str(data))
    scored = run_results("toy", "my-llm")
    assert scored["metrics"]["accuracy"] == 0.75 and scored["coverage"] == 0.875 and scored["producer"] == "llm"
    table = invoke("compare", "toy", "--markdown-only", "--replicates", "200")
    leaderboard = table.split("\n\n")[1]  # the first table: the one ranking the systems
    rows = [line.split("|")[2].strip() for line in leaderboard.splitlines() if "---" not in line]
    assert rows == ["system", "tfidf-logreg", "my-llm (LLM)", "majority"] and "Reference: **tfidf-logreg**" in table


def test_export_and_predict_the_plugin(toy, tmp_path):
    data, out = tmp_path / "data", tmp_path / "export"
    train_both(data)
    shown = invoke("export", "lm-eval", "toy", "--data-dir", str(data), "--out", str(out))
    assert "wrote 8 documents" in shown and "baselines score toy runs/toy_generate/" in shown
    documents = [json.loads(line) for line in (out / "toy_documents.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [d["id"] for d in documents] == [f"test-{k:02d}" for k in range(1, 9)]
    assert documents[2]["targets"] == ["B"] and "Sentence: Learned counsel" in documents[2]["prompt_generate"]
    config = yaml.safe_load((out / "toy_generate.yaml").read_text(encoding="utf-8"))
    assert config["dataset_kwargs"]["data_files"]["test"] == str(out / "toy_documents.jsonl")
    texts, labels = tmp_path / "texts.jsonl", tmp_path / "labels.jsonl"
    texts.write_text(json.dumps({"id": "a", "text": "Counsel for the appellant contended that the search was illegal."})
                     + "\n" + json.dumps({"id": "b", "text": "Accordingly, the appeal is dismissed."}) + "\n",
                     encoding="utf-8")
    invoke("predict", "toy", str(texts), "--out", str(labels), "--quiet")
    records = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines()]
    assert [(r["id"], r["answers"]["role"]["choice"]) for r in records] == [("a", "argument"), ("b", "ruling")]
    assert all(0.33 < r["answers"]["role"]["probability"] <= 1 for r in records)
    one = tmp_path / "one.txt"
    one.write_text("The police seized the car of the accused on 4 May 2018.", encoding="utf-8")
    role = next(line for line in invoke("predict", "toy", str(one)).splitlines() if line.startswith("role"))
    assert role.split()[1] == "A" and role.endswith("facts")


def test_the_plugin_keeps_the_public_contract_with_its_own_record_type(toy, tmp_path):
    """What a plugin's own test does (baselines.testing), with no help from this package's tests."""
    from baselines.testing import check_benchmark, check_method
    from toy_benchmark import BENCHMARK
    from toy_benchmark.data import RoleSentence

    check_benchmark(BENCHMARK)
    assert type(BENCHMARK.fixture()[0]) is RoleSentence
    for name in BENCHMARK.methods:
        check_method(BENCHMARK, name, tmp_path / name)


def test_a_benchmark_folder_on_the_include_path_is_found_without_packaging(tmp_path, monkeypatch):
    """$BASELINES_INCLUDE names a folder of benchmark packages: no dist-info, no pip install."""
    from baselines.registry.discovery import INCLUDE_ENV

    before, included = baselines_status(), os.environ.get(INCLUDE_ENV)  # a folder the session itself includes
    monkeypatch.setenv(INCLUDE_ENV, os.pathsep.join([str(PLUGIN), *([included] if included else [])]))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the include folder is put on it for this test only
    forget_discovered()
    try:
        assert list(TASKS)[-1] == "toy"
        train_both(tmp_path / "data")
        invoke("eval", "toy", "--data-dir", str(tmp_path / "data"))
        assert run_results("toy", "tfidf-logreg")["metrics"]["accuracy"] >= 0.75
    finally:
        if included is None:
            monkeypatch.delenv(INCLUDE_ENV)
        else:
            monkeypatch.setenv(INCLUDE_ENV, included)
        forget_discovered()
    assert "toy" not in TASKS and baselines_status() == before
