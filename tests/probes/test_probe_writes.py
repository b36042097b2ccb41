"""Probes of items 8, 10 and 11: never a lost file. Nothing is deleted or written through a symbolic link,
nothing is replaced that this program did not write, every target is checked before the first write, and
`compare --all` never blanks a page. A refused command changes no byte anywhere (checked on every file around
it); a command that succeeds changes only the files it reports."""
from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from baselines.cli import app
from baselines.comparison.headline_page import HEADLINE_END, HEADLINE_START
from baselines.core.errors import DataError
from baselines.core.paths import results_root
from baselines.core.records import Reference
from baselines.evaluation.scoring import score_predictions
from baselines.registry import get_task
from baselines.runs.results_store import Variant, references_digest, write_run

SENTENCES = ["IN THE HIGH COURT OF KARNATAKA", "The appellant was charged with theft.", "The appeal is dismissed."]
LABELS = ["PREAMBLE", "FAC", "RPC"]


def invoke(*args):
    return CliRunner().invoke(app, [str(arg) for arg in args])


def refused(result, *words: str) -> str:
    """Exit 2 with one line saying each of `words`, and no traceback."""
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert all(word in lines[0] for word in words), lines[0]
    return lines[0]


def snapshot(root: Path) -> dict[str, tuple]:
    """Every entry under `root`, links not followed: a file's sha256, a link's target, a FIFO or a folder."""
    found = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            mode = os.lstat(path).st_mode
            found[str(path.relative_to(root))] = (
                ("link", os.readlink(path)) if stat.S_ISLNK(mode) else ("fifo",) if stat.S_ISFIFO(mode)
                else ("dir",) if stat.S_ISDIR(mode) else ("file", hashlib.sha256(path.read_bytes()).hexdigest()))
    return found


def changed(before: dict, after: dict) -> set[str]:
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


def elsewhere(tmp_path: Path) -> Path:
    """A folder of someone else's, with files that must keep every byte."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    folder.joinpath("precious.txt").write_text("not yours\n")
    folder.joinpath("results.json").write_text('{"mine": true}\n')
    return folder


def scalr_data(tmp_path: Path) -> Path:
    folder = tmp_path / "data" / "scalr"
    folder.mkdir(parents=True, exist_ok=True)
    folder.joinpath("test.jsonl").write_text("".join(json.dumps(
        {"index": str(k), "question": f"question {k}", "answer": str(k % 5),
         **{f"choice_{c}": f"holding {c}" for c in range(5)}}) + "\n" for k in range(6)))
    return tmp_path / "data"


def score_e2(tmp_path: Path):
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps({"id": str(k), "prediction": str(k % 5)}) + "\n" for k in range(6)))
    return invoke("score", "scalr", predictions, "--data-dir", scalr_data(tmp_path), "--name", "e2", "--force")


def train_majority(tmp_path: Path):
    train = tmp_path / "train.jsonl"
    train.write_text(json.dumps({"id": "d", "sentences": SENTENCES, "labels": LABELS}) + "\n")
    return invoke("train", "rr", "--method", "majority", "--train-file", train)


# 8. a symlinked (or someone else's) run or model folder keeps every byte

@pytest.mark.parametrize("write, folder", [(score_e2, "results/scalr/e2/test"), (train_majority, "models/rr/majority")])
def test_a_symlinked_run_or_model_folder_is_refused_and_its_target_kept(tmp_path, write, folder):
    target = elsewhere(tmp_path)
    link = tmp_path / folder
    link.parent.mkdir(parents=True)
    link.symlink_to(target, target_is_directory=True)
    before = snapshot(tmp_path)
    refused(write(tmp_path), "symbolic link")
    inputs = {"data", "data/scalr", "data/scalr/test.jsonl", "p.jsonl", "train.jsonl"}  # what the test wrote
    assert changed(before, snapshot(tmp_path)) <= inputs
    assert link.is_symlink() and (target / "precious.txt").read_text() == "not yours\n"


@pytest.mark.parametrize("write, folder", [(score_e2, "results/scalr/e2/test"), (train_majority, "models/rr/majority")])
def test_a_folder_this_program_did_not_write_is_never_replaced(tmp_path, write, folder):
    """A folder where a run or model goes that holds no results.json / config.json is someone else's."""
    theirs = tmp_path / folder
    theirs.mkdir(parents=True)
    theirs.joinpath("notes.txt").write_text("mine\n")
    refused(write(tmp_path), "this program did not write it")
    assert sorted(os.listdir(theirs)) == ["notes.txt"] and theirs.joinpath("notes.txt").read_text() == "mine\n"


def test_a_run_folder_that_became_a_link_after_the_checks_is_refused_at_the_swap(tmp_path):
    """write_run checks again under its lock: a link that appeared after the checks is not followed either."""
    target = elsewhere(tmp_path)
    before = snapshot(target)
    folder = tmp_path / "results" / "scalr" / "e2" / "test"
    folder.parent.mkdir(parents=True)
    folder.symlink_to(target, target_is_directory=True)
    with pytest.raises(DataError, match="symbolic link"):
        write_run(folder, {"n": 0}, [], None)
    assert folder.is_symlink() and snapshot(target) == before and os.listdir(folder.parent) == ["test"]


def test_our_own_run_and_model_folders_are_still_replaced(tmp_path):
    for write in (score_e2, train_majority):
        assert write(tmp_path).exit_code == 0
        result = write(tmp_path)
        assert result.exit_code == 0, result.output


# 10 and 11. compare --all --out DIR: every target checked first; never through a link; never a blank page

def write_run_of(task_name: str, name: str, refs: list[Reference], right: set[int], results_dir: Path) -> None:
    """A run as `eval` writes it: item k right iff k in `right`."""
    task = get_task(task_name)
    predictions = [{"id": ref.id, "prediction": ref.gold[0] if k in right else
                    next(label for label in ref.labels if label not in ref.gold)} for k, ref in enumerate(refs)]
    result, samples = score_predictions(task, predictions, refs, system=name, split=task.eval_split)
    result.meta = {"method": name, "command": f"baselines eval {task_name} --method {name} --data-dir DATA"}
    variant = Variant(split=task.eval_split, references=references_digest(refs))
    result.variant = variant.to_dict()
    write_run(results_root(results_dir) / task_name / name / variant.slug(), result.to_dict(), samples, None)


def runs(results_dir: Path, caselawqa: bool = True) -> Path:
    """A results folder with a run of SCALR and, unless told otherwise, one of CaselawQA (2 tasks, 5 items each)."""
    scalr = [Reference(id=str(k), gold=(str(k % 5),), labels=tuple("01234")) for k in range(20)]
    write_run_of("scalr", "tfidf", scalr, set(range(0, 20, 2)), results_dir)
    if caselawqa:
        cases = [Reference(id=f"{t}/{k}", gold=("A",), labels=("A", "B"), group=t)
                 for t in ("a", "b") for k in range(5)]
        write_run_of("caselawqa", "majority", cases, set(range(0, 10, 2)), results_dir)
    return results_dir


def compare_all(out: Path, results_dir: Path, *more):
    return invoke("compare", "--all", "--out", out, "--results-dir", results_dir, "--replicates", "200", *more)


@pytest.fixture
def generated(tmp_path) -> Path:
    """docs/results generated once from runs of SCALR and CaselawQA, and a README with a headline block."""
    tmp_path.joinpath("README.md").write_text(f"# title\n{HEADLINE_START}\nOLD FIGURES\n{HEADLINE_END}\n")
    result = compare_all(tmp_path / "docs" / "results", runs(tmp_path / "runs"), "--readme", tmp_path / "README.md")
    assert result.exit_code == 0, result.output
    return tmp_path / "docs" / "results"


@pytest.mark.parametrize("page", ["scalr.md", "index.md", "scalr-test.png", "compare_manifest.json"])
def test_a_link_inside_out_is_refused_before_any_write_and_its_target_kept(generated, tmp_path, page):
    outside = tmp_path / "outside.txt"
    outside.write_text("someone's file\n")
    (generated / page).unlink()
    (generated / page).symlink_to(outside)
    before = snapshot(tmp_path)
    refused(compare_all(generated, tmp_path / "runs", "--readme", tmp_path / "README.md"), page, "symbolic link")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("page", ["caselawqa.md", "index.md"])
def test_a_fifo_inside_out_is_refused_before_any_page_is_written(generated, tmp_path, page):
    for other in generated.glob("*.md"):  # stale pages: any page rewritten would change
        other.write_text(other.read_text() + "stale\n")
    (generated / page).unlink()
    os.mkfifo(generated / page)
    before = snapshot(tmp_path)
    refused(compare_all(generated, tmp_path / "runs"), page, "FIFO")
    assert snapshot(tmp_path) == before


def test_a_page_someone_else_wrote_is_never_replaced(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    out.joinpath("scalr.md").write_text("# my own notes on SCALR\n")
    results = runs(tmp_path / "runs")
    before = snapshot(tmp_path)
    refused(compare_all(out, results), "scalr.md", "not written by this program")
    assert changed(before, snapshot(tmp_path)) == set()


def test_pages_of_an_earlier_release_are_regenerated_and_other_files_kept(generated, tmp_path):
    """A folder without a manifest (docs/results before it had one): its generated pages and their charts are
    known as compare's own; a file of the user's beside them keeps every byte; only reported files change."""
    (generated / "compare_manifest.json").unlink()
    (generated / "notes.md").write_text("mine\n")
    (generated / "scalr.md").write_text((generated / "scalr.md").read_text() + "stale line\n")
    before = snapshot(tmp_path)
    result = compare_all(generated, tmp_path / "runs")
    assert result.exit_code == 0, result.output
    reported = {str(Path(line.split("wrote ", 1)[1]).relative_to(tmp_path)) for line in result.output.splitlines()
                if line.startswith("wrote ")}
    assert changed(before, snapshot(tmp_path)) <= reported
    assert "stale line" not in (generated / "scalr.md").read_text() and (generated / "notes.md").read_text() == "mine\n"
    assert "docs/results/compare_manifest.json" in reported and "docs/results/notes.md" not in reported


def test_an_out_folder_named_through_a_link_receives_the_pages(tmp_path):
    """--out itself may be a link to a folder (a path the user names): the pages go into that folder."""
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    result = compare_all(tmp_path / "link", runs(tmp_path / "runs"))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "link").is_symlink() and "tfidf" in (tmp_path / "real" / "scalr.md").read_text()


@pytest.mark.parametrize("results", ["empty", "mistyped"])
def test_compare_all_with_no_runs_is_an_error_that_changes_nothing(generated, tmp_path, results):
    (tmp_path / "empty").mkdir()
    before = snapshot(tmp_path)
    refused(compare_all(generated, tmp_path / results, "--readme", tmp_path / "README.md"), "no runs under",
            "nothing written")
    assert snapshot(tmp_path) == before
    assert "OLD FIGURES" not in (tmp_path / "README.md").read_text()  # the headline the first run wrote is still there


def test_a_task_whose_runs_are_missing_keeps_its_page(generated, tmp_path):
    """Runs of SCALR only: the CaselawQA page, which shows runs, is not blanked; nothing is written."""
    before = snapshot(tmp_path)
    refused(compare_all(generated, runs(tmp_path / "only-scalr", caselawqa=False)), "caselawqa.md",
            "refusing to blank", "nothing written")
    assert changed(before, snapshot(tmp_path)) <= {name for name in snapshot(tmp_path) if name.startswith("only-scalr")}
    assert "majority" in (generated / "caselawqa.md").read_text()


def compare_scalr(out: Path, results_dir: Path):
    return invoke("compare", "scalr", "--out", out, "--results-dir", results_dir, "--replicates", "200")


def test_compare_out_never_writes_through_a_link_inside_out(tmp_path):
    """`compare TASK --out DIR` with DIR/scalr.md a link to a file elsewhere: that file keeps every byte."""
    results, out, outside = runs(tmp_path / "runs"), tmp_path / "out", tmp_path / "outside.md"
    out.mkdir()
    outside.write_text("someone's file\n")
    (out / "scalr.md").symlink_to(outside)
    before = snapshot(tmp_path)
    refused(compare_scalr(out, results), "scalr.md", "symbolic link")
    assert snapshot(tmp_path) == before


def test_compare_out_checks_every_target_before_the_first_write(tmp_path):
    """A FIFO where the last file of `compare TASK --out DIR` goes: refused before the first file is written."""
    results, out = runs(tmp_path / "runs"), tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "scalr.png")
    before = snapshot(tmp_path)
    refused(compare_scalr(out, results), "scalr.png", "FIFO")
    assert snapshot(tmp_path) == before


def test_compare_all_of_one_task_keeps_the_other_tasks_pages_and_headline_sections(generated, tmp_path):
    """--task scalr regenerates SCALR's page and headline section from a results folder holding only SCALR runs;
    CaselawQA's page, charts and headline section keep every byte."""
    from baselines.comparison.headline_page import sections

    before = snapshot(generated)
    old = sections((generated / "headline.md").read_text())
    scalr_only = runs(tmp_path / "scalr-runs", caselawqa=False)
    refused(compare_all(generated, scalr_only), "caselawqa.md shows runs")  # without --task: never blanked
    result = compare_all(generated, scalr_only, "--task", "scalr", "--readme", tmp_path / "README.md")
    assert result.exit_code == 0, result.output
    after = snapshot(generated)
    kept = {name for name in before if name.startswith("caselawqa")}
    assert kept and all(after[name] == before[name] for name in kept)
    new = sections((generated / "headline.md").read_text())
    assert new["caselawqa"] == old["caselawqa"] and new["scalr"] == old["scalr"]  # the same runs: the same lines
    assert after == before  # every page, chart, the headline and the manifest: byte for byte
    readme = (tmp_path / "README.md").read_text()
    assert "### caselawqa (test)" in readme and "### scalr (test)" in readme
    refused(compare_all(generated, scalr_only, "--task", "nosuch"), "--task nosuch: no such task")
    refused(invoke("compare", "scalr", "--task", "scalr"), "--task goes with --all")
