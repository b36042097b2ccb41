"""The segmenter as a task of the common evaluator: boundary P/R/F1, paired comparison, the CLI."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from baselines.tasks.segmenter.boundaries import SpanReference
from baselines.cli import app
from baselines.comparison.leaderboard import compare
from baselines.evaluation.scoring import score_predictions
from baselines.core.paths import results_root
from baselines.runs.results_store import Variant, references_digest, write_run
from baselines.registry import get_task
from segmentation.spans import boundary_counts, prf

TEXT = "One. Two here. Three now. Four. Five."
GOLD = ((0, 4), (5, 14), (15, 25), (26, 31), (32, 37))  # boundaries at 5, 15, 26, 32
REFS = [SpanReference("d1", TEXT, GOLD), SpanReference("d2", TEXT, GOLD[:3] + ((26, 37),))]


def rows(spans_by_doc):
    return [{"id": doc, "spans": [list(s) for s in spans]} for doc, spans in spans_by_doc.items()]


def test_boundary_scores_equal_the_segmentation_counts():
    predicted = {"d1": [(0, 14), (15, 25), (26, 31), (32, 37)],  # misses 5
                 "d2": [(0, 4), (5, 10), (11, 14), (15, 37)]}  # gold 5, 15, 26: finds 5 and 15, adds 11
    result, samples = score_predictions(get_task("segmenter"), rows(predicted), REFS)
    tp = n_pred = n_gold = 0
    for ref in REFS:
        a, b, c = boundary_counts(TEXT, list(ref.spans), predicted[ref.id])
        tp, n_pred, n_gold = tp + a, n_pred + b, n_gold + c
    expected = prf(tp, n_pred, n_gold)
    assert result.metrics["boundary_precision"] == pytest.approx(expected["precision"])
    assert result.metrics["boundary_recall"] == pytest.approx(expected["recall"])
    assert result.metrics["boundary_f1"] == pytest.approx(expected["f1"])
    assert {s["id"] for s in samples} == {"d1@5", "d1@15", "d1@26", "d1@32", "d2@5", "d2@11", "d2@15", "d2@26"}


def test_bad_spans_name_the_document():
    with pytest.raises(Exception, match="document d1: bad span"):
        score_predictions(get_task("segmenter"), rows({"d1": [(0, 999)], "d2": [(0, 37)]}), REFS)


def write(name, predicted):
    task = get_task("segmenter")
    result, samples = score_predictions(task, rows(predicted), REFS, system=name)
    variant = Variant(split="dev", references=references_digest(REFS))
    result.variant, result.meta = variant.to_dict(), {"method": name}
    write_run(results_root() / "segmenter" / name / "dev", result.to_dict(), samples, None)
    return result


def test_segmenters_are_paired_on_the_union_of_their_boundary_items():
    perfect = write("perfect", {ref.id: list(ref.spans) for ref in REFS})
    noisy = write("noisy", {"d1": [(0, 4), (5, 9), (10, 14), (15, 37)], "d2": list(REFS[1].spans)})
    report = compare("segmenter", against="perfect")
    paired = report.paired["noisy"]
    assert paired.difference == pytest.approx(noisy.metrics["boundary_f1"] - perfect.metrics["boundary_f1"])
    assert paired.shared == 8  # 7 gold boundaries plus the extra one at 10


def test_eval_segmenter_through_the_common_path(tmp_path):
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"id": "a", "sentences": ["The appeal is dismissed.", "No costs."],
                                "labels": ["RPC", "RPC"]}) + "\n")
    result = CliRunner().invoke(app, ["eval", "segmenter", "--method", "rule", "--test-file", str(docs)])
    assert result.exit_code == 0, result.output
    saved = json.loads(next((tmp_path / "results" / "segmenter" / "rule").glob("*/results.json")).read_text())
    assert saved["metrics"]["boundary_f1"] == 1.0
    assert saved["meta"]["diagnostics"]["gold_boundaries_after_cue"]["gold"] == 1
    assert "gold boundaries after cue" in result.output


def test_the_references_digest_covers_the_gold_spans():
    moved = [SpanReference("d1", TEXT, GOLD[:2] + ((15, 31), (32, 37))), REFS[1]]
    assert references_digest(moved) != references_digest(REFS)


def test_score_reads_a_segmenters_spans_file(tmp_path):
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"id": "a", "sentences": ["The appeal is dismissed.", "No costs."],
                                "labels": ["RPC", "RPC"]}) + "\n")
    spans = tmp_path / "other-segmenter.jsonl"
    spans.write_text(json.dumps({"id": "a", "spans": [[0, 34]]}) + "\n")  # one sentence: the break is missed
    result = CliRunner().invoke(app, ["score", "segmenter", str(spans), "--test-file", str(docs)])
    assert result.exit_code == 0, result.output
    saved = json.loads(next((tmp_path / "results" / "segmenter" / "other-segmenter").glob("*/results.json")).read_text())
    assert saved["metrics"]["boundary_recall"] == 0.0 and saved["producer"] == "other"
