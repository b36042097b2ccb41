"""Probes of Lawma's released responses and of `export lm-eval`: swapped task files, task names that climb out
of the export folder, --force over files no export wrote, and --out targets that are not folders."""
from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from baselines.cli import app
from baselines.core.errors import BaselinesError, DataError
from baselines.export.folder import MANIFEST, inside
from baselines.runs.run import load_split
from baselines.registry import get_task
from caselawqa_fixtures import toy_tasks, write_eightk, write_normalized

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(arg) for arg in args])


def refused(result, *words) -> str:
    """Exit 2 with one line that says each of `words`, and no traceback."""
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def files_under(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


# --- issue 22, item 5: Lawma files whose ground truth is not ours ------------------------------------------


def lawma_data(root: Path) -> Path:
    """The toy normalized data with a Caselaw Access Project id per case (its number), as Lawma's files use."""
    write_normalized(root)
    opinions = root / "caselawqa" / "opinions.jsonl.gz"
    with gzip.open(opinions, "rt") as handle:
        rows = [json.loads(line) for line in handle]
    with gzip.open(opinions, "wt") as handle:
        handle.writelines(json.dumps(row | {"cap_case_id": str(int(row["case_id"][5:]))}) + "\n" for row in rows)
    return root


def lawma_model(folder: Path, data: Path, swap: tuple[str, str] | None = None) -> Path:
    """One <task>.json per task answering a gold label, Lawma style (" A"); `swap` exchanges two files' names."""
    folder.mkdir(parents=True)
    for item_task in toy_tasks():
        rows = [{"model_response": f" {item.labels[item.answer[0]]}", "id": item.meta["cap_case_id"],
                 "ground_truth": [f" {item.labels[k]}" for k in item.answer], "prompt_len": 100}
                for item in load_split(get_task("caselawqa"), data, "test") if item.group == item_task]
        name = dict([swap, swap[::-1]]).get(item_task, item_task) if swap else item_task
        (folder / f"{name}.json").write_text(json.dumps(rows))
    return folder


def test_item5_swapped_task_files_are_refused_naming_both(tmp_path):
    """Item 5: two task files swapped disagree with our ground truth on 8 of 12 rows each: refused, not scored."""
    data = lawma_data(tmp_path / "data")
    model = lawma_model(tmp_path / "swapped", data, swap=("sc_direction", "sc_constant"))
    line = refused(invoke("score", "caselawqa", model, "--format", "lawma", "--data-dir", data, "--name", "x"),
                   "sc_direction.json (8 of 12, 66.7%)", "sc_constant.json (8 of 12, 66.7%)", "more than 2%")
    assert "sc_state.json" not in line and "sc_authority.json" not in line
    assert not (tmp_path / "results").exists() or not any(p.is_file() for p in (tmp_path / "results").rglob("*"))


def test_item5_agreeing_files_still_score(tmp_path):
    """Item 5: the same files in their places agree on every row and score 100%."""
    data = lawma_data(tmp_path / "data")
    outcome = invoke("score", "caselawqa", lawma_model(tmp_path / "m", data), "--format", "lawma", "--data-dir", data)
    assert outcome.exit_code == 0, outcome.output
    assert "ground truth agrees with ours on all 48 compared rows" in outcome.output


@pytest.mark.realdata
def test_item5_released_files_with_two_swapped_are_refused(tmp_path, data_dir):
    """Item 5 on the real data: LegalBERT's released files with sc_jurisdiction and sc_lcdisagreement swapped."""
    released = data_dir / "caselawqa" / "lawma-model-responses" / "legalbert"
    swap = {"sc_jurisdiction.json": "sc_lcdisagreement.json", "sc_lcdisagreement.json": "sc_jurisdiction.json"}
    model = tmp_path / "legalbert"
    model.mkdir()
    for file in released.glob("*.json"):
        os.symlink(file, model / swap.get(file.name, file.name))
    line = refused(invoke("score", "caselawqa", model, "--format", "lawma", "--data-dir", data_dir),
                   "sc_jurisdiction.json (23 of 63, 36.5%)", "sc_lcdisagreement.json (23 of 63, 36.5%)")
    assert line.count(".json (") == 2


# --- issue 22, item 10: task names from data that are not plain names --------------------------------------


@pytest.mark.parametrize("name", ["../../../x", "a/b", "..", ".hidden", "x y", "x" * 101, ""])
def test_item10_tasks_json_with_a_path_as_task_name_is_refused(tmp_path, name):
    """Item 10: a tasks.json task named like a path (or too long) is a DataError naming the file and the name,
    and `export lm-eval` writes nothing anywhere."""
    data = write_normalized(tmp_path / "data")
    tasks_file = data / "caselawqa" / "tasks.json"
    specs = json.loads(tasks_file.read_text())
    specs[name] = specs.pop("sc_direction")
    tasks_file.write_text(json.dumps(specs))
    before = files_under(tmp_path)
    line = refused(invoke("export", "lm-eval", "caselawqa", "--data-dir", data, "--out", tmp_path / "a" / "b" / "out"),
                   str(tasks_file), "is not a plain name")
    assert repr(name)[:60] in line
    assert files_under(tmp_path) == before


def test_item10_parquet_task_column_with_a_path_is_refused(tmp_path):
    """Item 10: the 'task' column of a caselawqa-8k parquet file is checked the same way, naming file and row."""
    import pyarrow.parquet as pq

    data = write_eightk(tmp_path / "data")
    path = data / "caselawqa" / "caselawqa-8k" / "sc" / "test-00000-of-00001.parquet"
    table = pq.read_table(path)
    tasks = table.column("task").to_pylist()
    tasks[3] = "../../escape"
    pq.write_table(table.set_column(table.schema.get_field_index("task"), "task", [tasks]), path)
    with pytest.raises(DataError, match=r"test-00000-of-00001.parquet \(row 4\): task name '../../escape'"):
        load_split(get_task("caselawqa"), data, "test")


def test_item10_the_exporter_never_writes_outside_its_folder(tmp_path):
    """Item 10, defence in depth: a relative path that resolves outside the export folder is refused."""
    folder = tmp_path / "out"
    folder.mkdir()
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", folder / "link")
    assert inside(folder, "documents/sc_x.jsonl") == folder / "documents" / "sc_x.jsonl"
    for relative in ("../x.jsonl", "documents/../../x.yaml", "/etc/x.yaml", "link/x.yaml"):
        with pytest.raises(BaselinesError, match="resolves outside"):
            inside(folder, relative)


# --- issue 22, item 12: --force over files that no export wrote ----------------------------------------------


def exported(tmp_path: Path) -> tuple[Path, Path]:
    data = write_normalized(tmp_path / "data")
    out = tmp_path / "export"
    assert invoke("export", "lm-eval", "caselawqa", "--data-dir", data, "--out", out).exit_code == 0
    return data, out


def test_item12_force_refuses_and_names_harness_output_inside_the_export(tmp_path):
    """Item 12: --force over an export holding harness output refuses, names what it would lose, deletes nothing."""
    data, out = exported(tmp_path)
    (out / "runs" / "model").mkdir(parents=True)
    (out / "runs" / "model" / "samples_caselawqa_sc_state.jsonl").write_text("{}\n")
    (out / "notes.txt").write_text("mine")
    (out / "documents" / "extra.jsonl").write_text("{}\n")
    before = files_under(out)
    refused(invoke("export", "lm-eval", "caselawqa", "--data-dir", data, "--out", out, "--force"),
            "documents/extra.jsonl", "notes.txt", "runs/", "no export wrote", "move these out")
    assert files_under(out) == before


def test_item12_force_replaces_an_export_of_only_its_own_files(tmp_path):
    """Item 12: an export holding only the files its manifest lists is replaced; the manifest lists them all."""
    data, out = exported(tmp_path)
    listed = json.loads((out / MANIFEST).read_text())["files"]
    assert sorted(listed + [MANIFEST]) == [p for p in files_under(out) if (out / p).is_file()]
    assert "README.md" in listed and "documents/sc_state.jsonl" in listed and "tasks/caselawqa_sc_state.yaml" in listed
    outcome = invoke("export", "lm-eval", "caselawqa", "--data-dir", data, "--out", out, "--force", "--subtasks",
                     "sc_direction")
    assert outcome.exit_code == 0, outcome.output
    assert not (out / "documents" / "sc_state.jsonl").exists() and (out / "documents" / "sc_direction.jsonl").is_file()


def test_item12_force_refuses_an_export_whose_file_was_edited_since(tmp_path):
    """A listed file whose bytes are no longer the ones the manifest records (edited since) is not replaced."""
    data, out = exported(tmp_path)
    (out / "documents" / "sc_state.jsonl").write_text("edited\n")
    before = files_under(out)
    refused(invoke("export", "lm-eval", "caselawqa", "--data-dir", data, "--out", out, "--force", "--subtasks",
                   "sc_direction"), "documents/sc_state.jsonl", "has changed since")
    assert files_under(out) == before and (out / "documents" / "sc_state.jsonl").read_text() == "edited\n"


def test_item12_force_refuses_a_folder_without_a_manifest(tmp_path):
    """Item 12: an export of an older release (no manifest) cannot be told from other files: refused, kept."""
    data, out = exported(tmp_path)
    (out / MANIFEST).unlink()
    refused(invoke("export", "lm-eval", "caselawqa", "--data-dir", data, "--out", out, "--force"),
            "not an earlier export", "older release")
    assert (out / "README.md").is_file()


# --- issue 22: --out that is not a folder ---------------------------------------------------------------------


def test_out_symlink_is_refused_and_its_target_untouched(tmp_path):
    """--out a symbolic link (to an earlier export, even with --force) is refused in one line; nothing changes."""
    data, out = exported(tmp_path)
    os.symlink(out, tmp_path / "link")
    before = files_under(out)
    refused(invoke("export", "lm-eval", "caselawqa", "--data-dir", data, "--out", tmp_path / "link", "--force"),
            "is a symbolic link")
    assert files_under(out) == before and (tmp_path / "link").is_symlink()


@pytest.mark.parametrize("kind", ["file", "device"])
def test_out_file_or_device_is_refused(tmp_path, kind):
    """--out a regular file or a device is refused in one line, and left as it was."""
    data = write_normalized(tmp_path / "data")
    target = Path(os.devnull) if kind == "device" else tmp_path / "out.txt"
    if kind == "file":
        target.write_text("keep")
    refused(invoke("export", "lm-eval", "caselawqa", "--data-dir", data, "--out", target), "is not a folder")
    assert target.is_char_device() if kind == "device" else target.read_text() == "keep"
