"""Round six: a result is what its file says, a killed swap is put back before any write, errors are one line.
Each test fails on the previous release and passes now."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from caselawqa_fixtures import write_normalized
from test_round_five import scalr_file  # the same ten tiny questions
from conftest import refused
from typer.testing import CliRunner

from baselines.cli import app
from baselines.core.paths import results_root

RUNNER = CliRunner()
SMALL = ["--set", "n_features=4096", "--set", "min_df=1", "--set", "k_features=500", "--set", "n_jobs=1",
         "--set", "min_train=10"]


def answers(folder: Path, letter: str) -> Path:
    """Answers all `letter` (right on 2 of the 10 questions), or each question's gold letter ("gold")."""
    path = folder / f"answers-{letter}.jsonl"
    path.write_text("".join(json.dumps({"id": f"q{k}", "raw": "The final answer is "
                                        + ("ABCDE"[k % 5] if letter == "gold" else letter)}) + "\n"
                            for k in range(10)), encoding="utf-8")
    return path


def scored(tmp_path: Path, name: str, letter: str, *options: str) -> Path:
    """`baselines score` of answers all `letter` on the tiny SCALR file as system `name`; its run folder."""
    done = RUNNER.invoke(app, ["score", "scalr", str(answers(tmp_path, letter)), "--test-file",
                               str(scalr_file(tmp_path)), "--name", name, *options])
    assert done.exit_code == 0, done.output
    (folder,) = [path for path in (results_root() / "scalr" / name).iterdir() if not path.name.startswith(".")]
    return folder


def edit(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))


def compared(*options: str):
    return RUNNER.invoke(app, ["compare", "scalr", "--test-file", "tiny.jsonl", "--markdown-only",
                               "--replicates", "200", *options])


# 1. A result is what its file says, or it is named


@pytest.mark.parametrize("change", [
    lambda d: d["meta"]["cost"].update(prompt_tokens_per_item=1.0),  # the cost
    lambda d: d.update(producer="ours"),  # an LLM run passed off as one of ours: the reference
    lambda d: d["meta"].update(command="baselines eval scalr --method tfidf"),  # how to reproduce it
], ids=["cost", "producer", "command"])
def test_a_run_whose_results_file_was_edited_anywhere_is_left_out_and_named(tmp_path, change):
    scored(tmp_path, "plain", "B", "--producer", "other")
    edited = scored(tmp_path, "llm", "A")
    edit(edited / "results.json", change)
    shown = compared()
    assert shown.exit_code == 0, shown.output
    assert "| llm" not in shown.stdout and "| 1 | plain (other) |" in shown.stdout
    assert f"left out {edited}: results.json has been edited since this tool wrote it" in shown.stdout


def test_a_lone_edited_run_is_refused_in_one_line(tmp_path):
    edited = scored(tmp_path, "llm", "A")
    edit(edited / "results.json", lambda d: d["meta"]["cost"].update(items=1))
    refused(compared(), str(edited), "results.json has been edited since this tool wrote it")


def test_a_run_without_a_digest_is_shown_named_and_not_the_default_reference(tmp_path):
    """A run of an earlier release (no results_sha256) cannot be checked beyond its figures: it is named, and a
    checked run of ours is the reference before it."""
    scored(tmp_path, "checked", "B", "--producer", "ours")
    old = scored(tmp_path, "old", "gold", "--producer", "ours")
    edit(old / "results.json", lambda d: d["meta"].pop("results_sha256"))
    shown = compared()
    assert shown.exit_code == 0, shown.output
    assert f"{old / 'results.json'}: written without a results_sha256" in shown.stdout
    rows = {line.split("|")[2].strip(): line for line in shown.stdout.splitlines() if line.startswith("| ")
            and line.split("|")[1].strip().isdigit()}
    assert "| 100.0 |" in rows["old"] and "reference" in rows["checked"] and "reference" not in rows["old"]


def test_a_model_is_evaluated_as_the_method_that_saved_it(tmp_path):
    """`eval --method stacked --model <a linear model>` is refused naming the saved method; without --method the
    run is filed under the saved method, whatever the task's default."""
    root = write_normalized(tmp_path)
    trained = RUNNER.invoke(app, ["train", "caselawqa", "--method", "majority", "--data-dir", str(root)])
    assert trained.exit_code == 0, trained.output
    model = Path(os.environ["BASELINES_MODELS"]) / "caselawqa" / "majority"
    no = RUNNER.invoke(app, ["eval", "caselawqa", "--method", "stacked", "--model", str(model), "--data-dir",
                             str(root)])
    refused(no, str(model), "saved by the method 'majority'", "not 'stacked'")
    assert not (results_root() / "caselawqa" / "stacked").exists()
    done = RUNNER.invoke(app, ["eval", "caselawqa", "--model", str(model), "--data-dir", str(root)])
    assert done.exit_code == 0, done.output
    (run,) = (results_root() / "caselawqa" / "majority").glob("*/results.json")
    assert json.loads(run.read_text())["meta"]["method"] == "majority"
    assert not (results_root() / "caselawqa" / "linear").exists()


# 5. A killed swap is put back before any write


def killed_between_renames(tmp_path: Path, base: list[str], redo: list[str]) -> Path:
    """Kill `baselines BASE --force` at each of its renames until one leaves the run only as its hidden backup
    (killed between the two renames of the folder swap), `REDO --force` writing the run again after each other
    kill; that backup."""
    from test_round_five import killed_at

    system = results_root() / "scalr" / "llm"
    for at in range(1, 9):
        killed_at(at, [*base, "--force"], tmp_path)
        shown = [path for path in system.iterdir() if not path.name.startswith(".")]
        backups = list(system.glob(".*.old"))
        if not shown and backups:
            return backups[0]
        assert RUNNER.invoke(app, [*redo, "--force"]).exit_code == 0
    pytest.fail("no kill left the run as its backup alone")


def test_a_swap_killed_between_its_renames_is_put_back_at_once_and_refuses_a_write(tmp_path):
    """At once (no minute to wait), the next `compare` shows the earlier run, and `score` without --force refuses
    to write over it instead of writing the name anew beside a hidden backup."""
    folder = scored(tmp_path, "llm", "A")
    earlier = (folder / "results.json").read_text()
    base = ["score", "scalr", str(answers(tmp_path, "gold")), "--test-file", str(scalr_file(tmp_path)), "--name", "llm"]
    redo = ["score", "scalr", str(answers(tmp_path, "A")), *base[3:]]
    killed_between_renames(tmp_path, base, redo)
    shown = compared()
    assert shown.exit_code == 0 and "| llm (LLM) | 20.0 |" in shown.stdout, shown.output
    earlier = json.loads(earlier)["metrics"]
    assert json.loads((folder / "results.json").read_text())["metrics"] == earlier
    killed_between_renames(tmp_path, base, redo)
    refused(RUNNER.invoke(app, base), "already holds a scored run")
    assert json.loads((folder / "results.json").read_text())["metrics"] == earlier
    assert not list(folder.parent.glob(".*.old"))


@pytest.mark.parametrize("host", ["this", "elsewhere"])
def test_a_backup_whose_writer_may_still_run_refuses_every_write_and_compare_names_it(tmp_path, host):
    """A run moved aside by a writer that runs (this very process) or that this host cannot check (another host)
    is neither written over, with or without --force, nor silently missing from `compare`."""
    from baselines.core.leftovers import WRITER_MARK, _host

    scored(tmp_path, "plain", "B", "--producer", "other")
    folder = scored(tmp_path, "llm", "A")
    backup = folder.with_name(f".{folder.name}.{WRITER_MARK}.{_host() if host == 'this' else host}.{os.getpid()}."
                              f"{'0' * 16}.old")
    os.rename(folder, backup)
    base = ["score", "scalr", str(answers(tmp_path, "gold")), "--test-file", str(scalr_file(tmp_path)), "--name", "llm"]
    for options in ([], ["--force"]):
        refused(RUNNER.invoke(app, [*base, *options]), str(folder), backup.name, "may still be writing it")
    assert not folder.exists() and (backup / "results.json").is_file()
    shown = compared()
    assert shown.exit_code == 0 and "| 1 | plain (other) |" in shown.stdout, shown.output
    assert f"left out {folder}: its last complete copy is the hidden backup {backup.name}" in shown.stdout


def test_a_backup_whose_process_id_now_names_a_later_process_is_put_back(tmp_path, monkeypatch):
    """The writer's id taken by a process started after the backup was made (this one, said to start later): the
    writer is gone, and the run is put back."""
    import time

    from baselines.core import leftovers

    folder = scored(tmp_path, "llm", "A")
    backup = folder.with_name(f".{folder.name}.{leftovers.WRITER_MARK}.{leftovers._host()}.{os.getpid()}."
                              f"{'0' * 16}.old")
    os.rename(folder, backup)
    assert "may still be running" in compared().output
    monkeypatch.setattr(leftovers, "_started", lambda pid: time.time() + 60 if pid == os.getpid() else None)
    shown = compared()
    assert shown.exit_code == 0 and "| llm (LLM) | 20.0 |" in shown.stdout, shown.output
    assert (folder / "results.json").is_file() and not backup.exists()


# 6. Errors are one line


@pytest.mark.parametrize("text, words", [
    (b"Cs: [1.0]\nmin_df: 1\nCs: [3.0]\n", [":3:", "the key 'Cs' is named twice"]),
    (b"class_weights: [{0: 1, 0: 2}]\n", [":1:", "the key 0 is named twice"]),
    (b"# caf\xe9 au lait\nmin_df: 1\n", [":1:", "not UTF-8", "0xe9", "byte 6"]),
    ("min_df: 1\n".encode("utf-16"), ["UTF-16", "ff fe"]),
    ("min_df: 1\n".encode("utf-16-le"), ["NUL byte", "byte 2"]),
], ids=["key-twice", "nested-key-twice", "latin-1", "utf-16", "utf-16-no-mark"])
@pytest.mark.parametrize("command", ["train", "eval"])
def test_a_config_not_utf8_or_naming_a_key_twice_is_refused_naming_it(tmp_path, text, words, command):
    root = write_normalized(tmp_path)
    config = tmp_path / "mine.yaml"
    config.write_bytes(text)
    done = RUNNER.invoke(app, [command, "caselawqa", "--method", "linear", "--config", str(config), "--data-dir",
                               str(root)])
    refused(done, str(config), *words)


@pytest.mark.parametrize("folds", ["0", "1", "101"])
def test_stack_folds_is_checked_when_the_config_is_read(tmp_path, folds):
    root = write_normalized(tmp_path)
    config = tmp_path / "folds.yaml"
    config.write_text(f"stack_folds: {folds}\n")
    for given in (["--set", f"stack_folds={folds}"], ["--config", str(config)]):
        done = RUNNER.invoke(app, ["train", "caselawqa", "--method", "stacked", *given, "--data-dir", str(root)])
        refused(done, "stack_folds must be at least 2 and at most 100", f"got {folds}")
    assert not (Path(os.environ["BASELINES_MODELS"]) / "caselawqa").exists()


def compressed(kind: str, data: bytes) -> bytes:
    import bz2
    import gzip
    import io
    import lzma
    import zipfile

    if kind == "zip":
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("answers.jsonl", data)
        return buffer.getvalue()
    if kind == "zstd":
        return b"\x28\xb5\x2f\xfd" + data  # the frame magic is all the check reads
    return {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}[kind](data)


@pytest.mark.parametrize("kind", ["gzip", "bzip2", "xz", "zstd", "zip"])
def test_a_compressed_input_is_named_as_compressed(tmp_path, kind):
    plain = answers(tmp_path, "A")
    packed = tmp_path / "packed.jsonl"
    packed.write_bytes(compressed(kind, plain.read_bytes()))
    done = RUNNER.invoke(app, ["score", "scalr", str(packed), "--test-file", str(scalr_file(tmp_path))])
    line = refused(done, str(packed), f"is a {kind}-compressed file")
    assert ("name it packed.jsonl.gz" in line) == (kind == "gzip"), line
    assert "not UTF-8" not in line


def test_an_out_that_cannot_be_written_is_refused_before_the_comparison(tmp_path):
    scored(tmp_path, "llm", "A")
    dangling = tmp_path / "pages"
    dangling.symlink_to(tmp_path / "nowhere" / "pages")
    for args in (["compare", "scalr", "--test-file", "tiny.jsonl"], ["compare", "--all"]):
        done = RUNNER.invoke(app, [*args, "--out", str(dangling), "--replicates", "200"])
        refused(done, str(dangling), "is a symbolic link to", "which does not exist")
    plain = tmp_path / "plain.txt"
    plain.write_text("mine\n")
    refused(RUNNER.invoke(app, ["compare", "--all", "--out", str(plain), "--replicates", "200"]), str(plain),
            "is not a folder")
    kept = tmp_path / "kept"
    kept.mkdir(mode=0o555)
    try:  # refused as a read-only file is, whoever runs it
        refused(RUNNER.invoke(app, ["compare", "scalr", "--test-file", "tiny.jsonl", "--out", str(kept),
                                    "--replicates", "200"]), str(kept), "is read-only")
    finally:
        kept.chmod(0o755)


def test_export_batch_onto_a_folder_names_the_folder_never_a_temporary(tmp_path, data_dir):
    out = tmp_path / "requests"
    out.mkdir()
    done = RUNNER.invoke(app, ["export", "batch", "scalr", "--api", "openai", "--model", "gpt-4o-mini", "--out",
                               str(out), "--force", "--sample", "2", "--data-dir", str(data_dir)])
    line = refused(done, str(out), "is a folder", "requests.jsonl")
    assert "legal-baselines" not in line and list(out.iterdir()) == []


def test_an_operating_system_error_names_the_users_path_never_a_temporary():
    from baselines.cli.errors import os_error_line
    from baselines.core.leftovers import sibling

    target = Path("/somewhere/requests.jsonl")
    error = IsADirectoryError(21, "Is a directory", str(sibling(target, "tmp")), None, str(target))
    assert os_error_line(error) == f"{target}: Is a directory"


@pytest.mark.parametrize("what", ["folder", "results.json"])
def test_a_read_only_run_folder_is_not_replaced_whoever_runs_it(tmp_path, what):
    folder = scored(tmp_path, "llm", "A")
    earlier = (folder / "results.json").read_text()
    made_read_only = folder if what == "folder" else folder / "results.json"
    made_read_only.chmod(0o555 if what == "folder" else 0o444)
    try:
        done = RUNNER.invoke(app, ["score", "scalr", str(answers(tmp_path, "gold")), "--test-file",
                                   str(scalr_file(tmp_path)), "--name", "llm", "--force"])
        refused(done, str(made_read_only), "is read-only")
        assert (folder / "results.json").read_text() == earlier and not list(folder.parent.glob(".*"))
    finally:
        made_read_only.chmod(0o755 if what == "folder" else 0o644)



def dead_pid() -> int:
    """The id of a process of this host that has ended."""
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_model_folder_whose_retraining_was_killed_is_put_back_when_it_is_read(tmp_path):
    """`eval --name` of a model whose retraining was killed between its renames (its writer gone a moment ago)
    evaluates the model it replaced, as the method that saved it."""
    from baselines.core.leftovers import WRITER_MARK, _host

    root = write_normalized(tmp_path)
    trained = RUNNER.invoke(app, ["train", "caselawqa", "--method", "majority", "--name", "mine", "--data-dir",
                                  str(root)])
    assert trained.exit_code == 0, trained.output
    model = Path(os.environ["BASELINES_MODELS"]) / "caselawqa" / "mine"
    os.rename(model, model.with_name(f".mine.{WRITER_MARK}.{_host()}.{dead_pid()}.{'0' * 16}.old"))
    done = RUNNER.invoke(app, ["eval", "caselawqa", "--name", "mine", "--data-dir", str(root)])
    assert done.exit_code == 0, done.output
    (run,) = (results_root() / "caselawqa" / "mine").glob("*/results.json")
    assert json.loads(run.read_text())["meta"]["method"] == "majority" and (model / "config.json").is_file()


def test_a_config_value_set_twice_on_the_command_line_is_refused(tmp_path):
    root = write_normalized(tmp_path)
    done = RUNNER.invoke(app, ["train", "caselawqa", "--method", "linear", "--set", "min_df=1", "--set", "min_df=3",
                               "--data-dir", str(root)])
    refused(done, "--set min_df is given twice")


def test_a_compressed_document_to_label_is_named_as_compressed(tmp_path):
    import gzip

    from baselines.runs.corpus_input import file_text

    document = tmp_path / "opinion.txt"
    document.write_bytes(gzip.compress(b"The appeal is dismissed.\n"))
    assert file_text(document).problem.startswith("binary: a gzip-compressed file")
