"""Probes of the near-duplicate check under dense edits, both ways: training opinions under new case ids with every
sixth word deleted, filler words inserted, neighbours swapped or common words replaced are refused; new opinions
beside one-line orders that training opinions also are ("Dismissed as improvidently granted.") are accepted, the
orders judged as boilerplate."""
from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest
from conftest import run_results
from overlap_calibration import EDITS, common_word_synonyms, edited
from typer.testing import CliRunner

from baselines.cli import app

ORDERS = ["Dismissed as improvidently granted.", "Affirmed by an equally divided Court.",
          "The judgment is affirmed by an equally divided Court.", "Appeal dismissed for want of a substantial "
          "federal question."]
TASK = {"sc_direction": {"instruction": "Decide.", "question": "Which outcome?", "choices": ["affirmed", "reversed"],
                         "labels": ["A", "B"], "court": "sc", "multi_label": False}}


def run(*args):
    return CliRunner().invoke(app, [str(arg) for arg in args])


def opinions(seed: int, count: int) -> list[str]:
    """`count` opinions of some 300 words, drawn from a vocabulary of a real opinion's size."""
    from caselawqa_fixtures import FILLER

    rng = random.Random(seed)
    return [f"JUSTICE {k} delivered the opinion of the Court. " + " ".join(rng.choice(FILLER) for _ in range(300))
            for k in range(count)]


def write_data(root: Path, train: list[str], test: list[str]) -> Path:
    """A one-task CaselawQA data folder: `train` opinions in train, `test` opinions in test (other case ids), and
    four opinions of their own in val."""
    folder = root / "caselawqa"
    folder.mkdir(parents=True)
    cases = [(f"train-{k}", "train", text) for k, text in enumerate(train)] + \
        [(f"test-{k}", "test", text) for k, text in enumerate(test)] + \
        [(f"val-{k}", "val", text) for k, text in enumerate(opinions(2, 4))]
    (folder / "tasks.json").write_text(json.dumps(TASK))
    with gzip.open(folder / "examples.jsonl.gz", "wt") as handle:
        handle.writelines(json.dumps({"id": f"sc_direction/{case}", "task": "sc_direction", "case_id": case,
                                      "answer": [k % 2], "split": split}) + "\n"
                          for k, (case, split, _) in enumerate(cases))
    with gzip.open(folder / "opinions.jsonl.gz", "wt") as handle:
        handle.writelines(json.dumps({"case_id": case, "text": text}) + "\n" for case, _, text in cases)
    return root


def measured(tmp_path: Path, train: list[str], test: list[str]):
    """(the eval's result, the model's measured overlap when a run was written, else None)."""
    data = write_data(tmp_path / "data", train, test)
    assert run("train", "caselawqa", "--method", "majority", "--data-dir", data).exit_code == 0
    result = run("eval", "caselawqa", "--method", "majority", "--data-dir", data)
    return result, (run_results("caselawqa", "majority")["meta"]["train_overlap"] if result.exit_code == 0 else None)


@pytest.mark.parametrize("kind", EDITS[2:])
def test_training_opinions_densely_edited_are_refused(tmp_path, kind):
    train = opinions(0, 30)
    copies = [edited(text, kind, random.Random(1), common_word_synonyms(text)) for text in train]
    assert all(copy != text for copy, text in zip(copies, train))
    result, _ = measured(tmp_path, train, copies)
    line = " ".join(result.output.split())
    assert result.exit_code == 2 and "--allow-overlap" in line, (kind, result.output)
    if kind != "all four edits at once":  # that one is caught on part of the copies only, enough to refuse
        assert "30 of the 30 opinions near-duplicates" in line, (kind, result.output)


def test_new_opinions_beside_one_line_orders_also_in_training_are_accepted(tmp_path):
    train = opinions(0, 26) + ORDERS
    result, overlap = measured(tmp_path, train, opinions(1, 26) + ORDERS)
    assert result.exit_code == 0, result.output
    assert overlap["near_duplicates"] == 0 and overlap["overlap"] < 0.01, overlap
    assert overlap["exact_words"] == overlap["overlapping_words"] == sum(
        len(order.split()) for order in ORDERS if len(order.split()) >= overlap["min_words"])


def test_a_one_line_order_counts_only_when_the_whole_text_matches(tmp_path):
    """An order of a few words inside a longer text of another case is not a copy of the order."""
    train = opinions(0, 26) + ORDERS
    test = [f"{ORDERS[1]} {text}" for text in opinions(1, 4)]
    result, overlap = measured(tmp_path, train, test)
    assert result.exit_code == 0 and overlap["exact_words"] == 0 and overlap["near_duplicates"] == 0, overlap


@pytest.mark.realdata
def test_real_rr_edits_are_caught_and_dev_stays_under_the_limit(data_dir):
    """The calibration on LegalEval (tests/overlap_calibration.py): every single edit of 30 training judgments is
    caught nearly whole; the dev split's natural overlap stays under the limit."""
    from baselines.runs.overlap import OVERLAP_LIMIT
    from overlap_calibration import calibrate

    table = calibrate(data_dir, tasks=("rr",))["rr"]
    assert table["dev (natural)"]["overlap"] < OVERLAP_LIMIT / 2, table["dev (natural)"]
    for kind in EDITS[:6]:
        assert table[kind]["overlap"] > 0.9 and table[kind]["near_duplicates"] >= 28, (kind, table[kind])
