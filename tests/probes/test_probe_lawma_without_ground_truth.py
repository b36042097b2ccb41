"""Probe: Lawma's released responses with their ground truth stripped are checked by their labels and cases, not
scored silently: as released they score as with ground truth and the join report says what was not checked; two
task files under each other's names are refused."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from baselines import api
from baselines.cli import app

SYSTEM = "lawma-70b"


def stripped_copy(data_dir: Path, folder: Path, swapped: tuple[str, str] | None = None) -> Path:
    """The system's response files without `ground_truth` in `folder`, two of them under each other's names."""
    folder.mkdir()
    names = dict(zip(swapped, reversed(swapped))) if swapped else {}
    for file in sorted((data_dir / "caselawqa" / "lawma-model-responses" / SYSTEM).glob("*.json")):
        rows = [{key: value for key, value in row.items() if key != "ground_truth"}
                for row in json.loads(file.read_text(encoding="utf-8"))]
        (folder / f"{names.get(file.stem, file.stem)}.json").write_text(json.dumps(rows), encoding="utf-8")
    return folder


@pytest.mark.realdata
def test_released_files_without_ground_truth_score_as_with_it_and_the_join_says_so(data_dir, tmp_path):
    released = data_dir / "caselawqa" / "lawma-model-responses" / SYSTEM
    checked, _ = api.score("caselawqa", released, data_dir, format="lawma", missing="skip")
    bare, _ = api.score("caselawqa", stripped_copy(data_dir, tmp_path / SYSTEM), data_dir, format="lawma",
                        missing="skip", name=f"{SYSTEM}-bare")
    assert bare.metrics == checked.metrics and bare.per_group == checked.per_group
    assert checked.meta["join"]["without_ground_truth"] == {}
    unchecked = bare.meta["join"]["without_ground_truth"]
    assert len(unchecked) == 33 and unchecked["sc_issuearea"] == len(json.loads((released / "sc_issuearea.json")
                                                                                .read_text(encoding="utf-8")))
    assert bare.meta["join"]["ground_truth_compared"] == 0 and bare.meta["join"]["joined"] == 3870


@pytest.mark.realdata
@pytest.mark.parametrize("swapped", [
    ("sc_decisiondirection", "sc_lcdispositiondirection"),  # the same labels (A-C): told by their cases
    ("sc_jurisdiction", "sc_petitionerstate"),  # letters and CJK characters: told by their labels too
])
def test_two_released_files_swapped_without_ground_truth_are_refused_in_one_line(data_dir, tmp_path, swapped):
    folder = stripped_copy(data_dir, tmp_path / SYSTEM, swapped)
    outcome = CliRunner().invoke(app, ["score", "caselawqa", str(folder), "--format", "lawma", "--only-present",
                                       "--data-dir", str(data_dir)])
    assert outcome.exit_code == 2 and outcome.output.count("\n") == 1, outcome.output
    assert "not a file of the task it is named after" in outcome.output
    assert all(f"{name}.json (" in outcome.output for name in swapped), outcome.output
    assert "of its rows on our cases are no example of the task" in outcome.output
