"""Probe: ids in the evaluator's errors are quoted and escaped ("0\\n" is not "0 ") and long ids are cut, so an
error stays one short line whatever the predictions file holds."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from baselines.cli import app
from baselines.core.errors import BaselinesError, DataError
from baselines.core.records import Reference
from baselines.evaluation.batch_files import check_failed_requests, rows_from_openai_batch
from baselines.evaluation.harness_logs import rows_from_lm_eval
from baselines.evaluation.formats import load_predictions
from baselines.evaluation.scoring import join

HUGE = "x" * 1_000_000
CUT_HUGE = "'" + "x" * 60 + "'... (1,000,000 characters)"


def test_shown_id_quotes_escapes_and_cuts():
    from baselines.evaluation.predictions import shown_id

    assert shown_id("0\n") == "'0\\n'" and shown_id("q 1") == "'q 1'" and shown_id(7) == "'7'"
    assert shown_id("a" * 60) == "'" + "a" * 60 + "'"
    assert shown_id(HUGE) == CUT_HUGE
    assert shown_id("\u2028" * 61) == repr("\u2028" * 60) + "... (61 characters)"  # a line separator, escaped


@pytest.mark.parametrize("ids, reference_ids, expected", [
    ([HUGE], ["0"], f"no prediction id matches a reference of this task/split (e.g. {CUT_HUGE})"),
    (["0", "0\n"], ["0"], "1 prediction ids match no reference: '0\\n'"),
    (["0", "0"], ["0"], "duplicate prediction ids: '0'"),
    (["0"], ["0", "1 "], "1 of 2 references have no prediction: '1 '"),
])
def test_join_errors_show_each_id_quoted_and_cut(ids, reference_ids, expected):
    references = [Reference(id=key, gold=("0",), labels=("0", "1")) for key in reference_ids]
    with pytest.raises(BaselinesError) as error:
        join([{"id": key, "prediction": "0"} for key in ids], references, "error")
    assert str(error.value).startswith(expected) and "\n" not in str(error.value)
    assert len(str(error.value)) < 300


def test_duplicate_ids_in_a_predictions_file_are_quoted_and_cut(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps({"id": key, "raw": "A"}) + "\n" for key in ["0\n", HUGE, "0\n"]))
    with pytest.raises(DataError, match=r"p.jsonl:3: duplicate id '0\\n' \(first on line 1\)$"):
        load_predictions(path)
    path.write_text("".join(json.dumps({"id": key, "raw": "A"}) + "\n" for key in [HUGE, HUGE]))
    with pytest.raises(DataError) as error:
        load_predictions(path)
    assert str(error.value).endswith(f"p.jsonl:2: duplicate id {CUT_HUGE} (first on line 1)")


def test_duplicate_ids_in_a_harness_log_are_quoted_and_cut():
    sample = {"doc": {"id": HUGE}, "filter": "none", "filtered_resps": ["A"]}
    with pytest.raises(DataError) as error:
        rows_from_lm_eval([(1, sample), (2, sample)], Path("samples_x.jsonl"))
    assert str(error.value) == f"samples_x.jsonl:2: duplicate id {CUT_HUGE} (first on line 1)"


def batch_line(custom_id: str, failed: bool = False) -> dict:
    body = {"choices": [{"message": {"content": "A"}}]}
    return {"custom_id": custom_id, "response": None if failed else {"status_code": 200, "body": body},
            "error": {"code": "server_error"} if failed else None}


def test_batch_file_errors_show_custom_ids_and_ids_quoted_and_cut():
    with pytest.raises(DataError) as error:
        rows_from_openai_batch([(1, batch_line(HUGE)), (2, batch_line(HUGE))], Path("b.jsonl"))
    assert str(error.value) == f"b.jsonl:2: duplicate custom_id {CUT_HUGE} (first on line 1)"
    rows = rows_from_openai_batch([(1, batch_line("7\n", failed=True)), (2, batch_line(HUGE, failed=True))],
                                  Path("b.jsonl"))
    with pytest.raises(BaselinesError) as error:
        check_failed_requests(rows, "error")
    assert f"(errored, expired or canceled: '7\\n', {CUT_HUGE})" in str(error.value)
    assert "\n" not in str(error.value) and len(str(error.value)) < 400


def test_a_1_mb_unknown_id_is_a_short_one_line_error_from_the_cli(tmp_path):
    questions = tmp_path / "tiny.jsonl"
    questions.write_text(json.dumps({"index": "q0", "question": "Q?", "answer": "0",
                                     **{f"choice_{c}": f"holding {c}" for c in range(5)}}) + "\n")
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(json.dumps({"id": HUGE, "prediction": "0"}) + "\n")
    outcome = CliRunner().invoke(app, ["score", "scalr", str(predictions), "--test-file", str(questions)])
    assert outcome.exit_code == 2 and outcome.output.count("\n") == 1, outcome.output[:500]
    assert CUT_HUGE in outcome.output and len(outcome.output) < 400
