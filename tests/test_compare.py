"""`baselines compare`: paired differences, p-values, id-set handling, breakdowns, outputs, bad input."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from baselines.cli import app
from baselines.comparison.leaderboard import compare
from baselines.core.errors import BaselinesError
from baselines.evaluation.scoring import score_predictions
from baselines.comparison.markdown import to_markdown
from baselines.comparison.render import breakdowns
from baselines.comparison.report_files import write_files
from baselines.core.records import Reference
from baselines.core.paths import results_root
from baselines.runs.results_store import Variant, references_digest, write_run
from baselines.registry import get_task

LABELS = ("0", "1", "2", "3", "4")


def scalr_refs(n: int) -> list[Reference]:
    return [Reference(id=f"q{i}", gold=(LABELS[i % 5],), labels=LABELS) for i in range(n)]


def write_system(task_name: str, name: str, refs: list[Reference], right: set[int] | list[bool], *,
                 external: bool = False, missing: str = "error", keep=None) -> Path:
    """Score hand-made predictions (item k right iff k in `right`) and write them like `baselines eval`."""
    task = get_task(task_name)
    predictions = []
    for k, ref in enumerate(refs):
        if keep is not None and k not in keep:
            continue
        wrong = next(label for label in ref.labels if label not in ref.gold)
        predictions.append({"id": ref.id, "prediction": ref.gold[0] if k in right else wrong})
    result, samples = score_predictions(task, predictions, refs, system=name, split=task.eval_split, missing=missing)
    result.meta = {"method": "external" if external else name, "command": f"make {name}"}
    result.producer = "llm" if external else "ours"
    variant = Variant(split=task.eval_split, references=references_digest(refs))
    result.variant = variant.to_dict()
    folder = results_root() / task_name / name / variant.slug()
    write_run(folder, result.to_dict(), samples, None)
    return folder


def test_paired_difference_and_mcnemar_are_the_hand_computed_values():
    refs = scalr_refs(10)
    write_system("scalr", "a", refs, set(range(5)))  # 5/10 right
    write_system("scalr", "b", refs, set(range(8)), external=True)  # 8/10: items 5, 6, 7 only b gets
    report = compare("scalr", replicates=200)
    assert report.reference.name == "a"  # the best of ours, although b is better
    paired = report.paired["b"]
    assert paired.shared == 10
    assert paired.difference == pytest.approx(0.3, abs=1e-12)
    assert paired.p_mcnemar == pytest.approx(2 * 0.5 ** 3)  # 3 discordant items, all for b
    assert paired.interval[0] >= 0.0 and paired.interval[1] <= 0.6 + 1e-12


def test_identical_systems_have_p_exactly_one():
    refs = scalr_refs(50)
    right = {k for k in range(50) if k % 3}
    write_system("scalr", "a", refs, right)
    write_system("scalr", "copy", refs, right, external=True)
    paired = compare("scalr", against="a").paired["copy"]
    assert paired.difference == 0.0
    assert paired.interval == (0.0, 0.0)
    assert paired.p_bootstrap == 1.0
    assert paired.p_mcnemar == 1.0


def test_clearly_better_system_has_small_p():
    refs = scalr_refs(200)
    write_system("scalr", "weak", refs, {k for k in range(200) if k % 10 < 3})
    write_system("scalr", "strong", refs, {k for k in range(200) if k % 10 < 9}, external=True)
    paired = compare("scalr").paired["strong"]
    assert paired.difference == pytest.approx(0.6)
    assert paired.p_bootstrap < 0.01
    assert paired.p_mcnemar < 1e-10


def test_different_id_sets_are_compared_on_the_intersection_and_said_so():
    refs = scalr_refs(10)
    write_system("scalr", "a", refs, {0, 1, 2, 3, 4})
    # b answered only items 0..5 (right on 0..5); skipped items are not part of its id set
    write_system("scalr", "b", refs, set(range(6)), missing="skip", keep=set(range(6)), external=True)
    report = compare("scalr")
    paired = report.paired["b"]
    assert paired.shared == 6
    assert paired.difference == pytest.approx(1.0 - 5 / 6)  # on the 6 shared ids: a 5/6, b 6/6
    assert any("6 ids both were scored on" in note for note in report.notes)
    assert "on 6 shared" in to_markdown(report)


def test_disjoint_systems_are_not_compared():
    write_system("scalr", "a", scalr_refs(5), {0, 1})
    other = [Reference(id=f"x{i}", gold=("0",), labels=LABELS) for i in range(5)]
    write_system("scalr", "b", other, {0}, external=True)
    report = compare("scalr")
    assert "b" not in report.paired and [s.name for s in report.systems] == ["a"]
    assert any("left out b: scored on other references" in note for note in report.notes)


def test_results_files_of_earlier_releases_name_their_producer_kind():
    refs = scalr_refs(5)
    write_system("scalr", "a", refs, {0, 1})
    folder = write_system("scalr", "old", refs, {0}, external=True)
    result = json.loads((folder / "results.json").read_text())
    result["kind"] = result.pop("producer")  # as an earlier release wrote it (with no digest of the file)
    del result["meta"]["results_sha256"]
    (folder / "results.json").write_text(json.dumps(result))
    report = compare("scalr")
    assert {s.name: s.producer for s in report.systems} == {"a": "ours", "old": "llm"}


def test_caselawqa_breakdowns_and_charts(tmp_path):
    refs = [Reference(id=f"{task}/{k}", gold=("A",), labels=("A", "B"), group=task)
            for task in ("sc_x", "sc_y", "songer_z") for k in range(10)]
    write_system("caselawqa", "linear", refs, set(range(0, 30, 2)))
    write_system("caselawqa", "llm", refs, set(range(0, 30)) - {3, 13}, external=True)
    report = compare("caselawqa", replicates=200)
    # mean over tasks: linear 5/10 on each task; llm 9/10, 9/10, 10/10
    assert report.paired["llm"].difference == pytest.approx((0.9 + 0.9 + 1.0) / 3 - 0.5)
    written = write_files(report, tmp_path / "out")
    names = sorted(path.name for path in written)
    assert names == ["caselawqa.csv", "caselawqa.md", "caselawqa.png", "caselawqa_per_court.csv",
                     "caselawqa_per_task.csv", "caselawqa_scatter.png", "compare_manifest.json"]
    per_task = (tmp_path / "out" / "caselawqa_per_task.csv").read_text().splitlines()
    assert per_task[0] == "task,court,n,llm,linear"
    assert per_task[1].startswith("sc_x,sc,10,")
    assert (tmp_path / "out" / "caselawqa_scatter.png").read_bytes()[:4] == b"\x89PNG"


def test_rr_per_label_f1_and_document_resampling():
    labels = ("FAC", "ANALYSIS", "NONE")
    refs = [Reference(id=f"d{d}_{s}", gold=(labels[s % 3],), labels=labels, group=f"d{d}", unit=f"d{d}")
            for d in range(4) for s in range(6)]
    write_system("rr", "crf", refs, set(range(0, 24, 2)))
    write_system("rr", "llm", refs, set(range(24)), external=True)
    report = compare("rr", replicates=200)
    assert report.paired["llm"].p_mcnemar is None  # sentences are not independent items
    (table,) = breakdowns(report)
    assert table.columns == ["label", "support", "llm", "crf"]
    assert {row[0] for row in table.rows} == set(labels)
    assert all(row[2] == 1.0 for row in table.rows)


def test_cli_compare_writes_files_and_markdown(tmp_path):
    refs = scalr_refs(20)
    write_system("scalr", "tfidf", refs, set(range(8)))
    write_system("scalr", "gpt", refs, set(range(15)), external=True)
    out = tmp_path / "report"
    result = CliRunner().invoke(app, ["compare", "scalr", "--against", "tfidf", "--out", str(out), "--markdown-only"])
    assert result.exit_code == 0, result.output
    assert "| 1 | gpt (LLM) | 75.0" in result.stdout
    assert "`make gpt`" in result.stdout
    assert sorted(p.name for p in out.iterdir()) == ["compare_manifest.json", "scalr.csv", "scalr.md", "scalr.png"]


def test_unknown_results_schema_exits_2_without_outputs(tmp_path):
    refs = scalr_refs(5)
    folder = write_system("scalr", "old", refs, {0})
    results = folder / "results.json"
    data = json.loads(results.read_text())
    del data["main_metric"]
    results.write_text(json.dumps(data))
    with pytest.raises(BaselinesError, match="unknown results schema"):
        compare("scalr")
    out = tmp_path / "report"
    result = CliRunner().invoke(app, ["compare", "scalr", "--out", str(out)])
    assert result.exit_code == 2
    assert "unknown results schema" in result.output
    assert not out.exists()


def test_one_unreadable_run_is_named_and_the_others_are_shown(tmp_path):
    refs = scalr_refs(5)
    write_system("scalr", "good", refs, {0, 1})
    (write_system("scalr", "broken", refs, {0}) / "results.json").write_text("{not json")
    report = compare("scalr")
    assert [s.name for s in report.systems] == ["good"]
    assert any("broken" in note and "invalid JSON" in note for note in report.notes)


def test_runs_on_other_references_or_a_test_file_are_not_ranked_with_the_split():
    refs = scalr_refs(10)
    write_system("scalr", "tfidf", refs, set(range(4)))
    write_system("scalr", "subset", refs[:6], set(range(6)))  # scored on other references
    task = get_task("scalr")
    result, samples = score_predictions(task, [{"id": r.id, "prediction": r.gold[0]} for r in refs], refs, system="own")
    variant = Variant(split=None, references=references_digest(refs), test_file="train.jsonl")
    result.variant, result.meta = variant.to_dict(), {"method": "own"}
    write_run(results_root() / "scalr" / "own" / variant.slug(), result.to_dict(), samples, None)
    report = compare("scalr", against="tfidf")
    assert [s.name for s in report.systems] == ["tfidf"]
    assert any("left out subset" in note and "other references" in note for note in report.notes)
    assert [s.name for s in compare("scalr", test_file="train.jsonl").systems] == ["own"]


def test_missing_or_stale_samples_are_errors():
    refs = scalr_refs(5)
    folder = write_system("scalr", "a", refs, {0, 1})
    samples = folder / "samples.jsonl"
    lines = samples.read_text().splitlines()
    samples.write_text("\n".join(lines[:-1]) + "\n")
    with pytest.raises(BaselinesError, match="stale"):
        compare("scalr")
    samples.write_text("\n".join(lines).replace('"correct": true', '"correct": false') + "\n")
    with pytest.raises(BaselinesError, match="samples.jsonl:1: sample q0: correct is false"):
        compare("scalr")  # correct contradicts answer in gold
    samples.write_text("\n".join(lines) + "\n")
    results = json.loads((folder / "results.json").read_text())
    (folder / "results.json").write_text(json.dumps({**results, "metrics": {**results["metrics"], "accuracy": 0.6}}))
    with pytest.raises(BaselinesError, match="different runs"):
        compare("scalr")
    os.remove(samples)
    with pytest.raises(BaselinesError, match="no per-item file"):
        compare("scalr")


def test_no_results_and_unknown_reference_are_errors():
    with pytest.raises(BaselinesError, match="no results for scalr on split 'test'"):
        compare("scalr")
    write_system("scalr", "a", scalr_refs(5), {0})
    with pytest.raises(BaselinesError, match="unknown system"):
        compare("scalr", against="nope")


def test_cross_validated_runs_are_listed_with_their_folds():
    refs = scalr_refs(10)
    write_system("scalr", "tfidf", refs, set(range(4)))
    task = get_task("scalr")
    predictions = [{"id": ref.id, "prediction": ref.gold[0]} for ref in refs]
    result, samples = score_predictions(task, predictions, refs, system="tfidf", split="test-cv5")
    result.meta = {"method": "tfidf", "command": "cv"}
    variant = Variant(split="test", references=references_digest(refs), cv=5, seed=0)
    result.variant = variant.to_dict()
    write_run(results_root() / "scalr" / "tfidf" / variant.slug(), result.to_dict(), samples, None)
    report = compare("scalr", against="tfidf")
    assert [s.name for s in report.systems] == ["tfidf (cv5)", "tfidf"]
    assert report.paired["tfidf (cv5)"].difference == pytest.approx(0.6)


def test_systems_option_keeps_the_named_systems_only():
    refs = scalr_refs(10)
    for name, right in (("a", {0, 1}), ("b", {0}), ("c", set())):
        write_system("scalr", name, refs, right)
    assert [s.name for s in compare("scalr", only=["a", "c"]).systems] == ["a", "c"]
    with pytest.raises(BaselinesError, match="unknown system \\(--systems\\) 'z'"):
        compare("scalr", only=["z"])


def test_a_subset_run_of_ours_does_not_become_the_reference():
    refs = scalr_refs(10)
    write_system("scalr", "tfidf", refs, set(range(4)))
    write_system("scalr", "gpt", refs, set(range(8)), external=True)
    write_system("scalr", "subset", refs[:3], {0, 1, 2})  # 100% on three items: best of ours, other references
    report = compare("scalr")
    assert report.reference.name == "tfidf" and [s.name for s in report.systems] == ["gpt", "tfidf"]
    assert compare("scalr", against="subset").reference.name == "subset"


def test_chart_labels_of_close_points_do_not_overlap_and_stay_inside_the_axes():
    """Three points almost on top of each other (as close runs are on a cost chart), one at the right edge: each
    label is placed clear of the others and of the other points, inside the axes."""
    from matplotlib.text import Text

    from baselines.comparison.charts import _figure, _overlap_area, labels_apart

    figure = _figure(7.5, 5.0)
    axes = figure.add_subplot()
    points = [(8.0, 78.8), (8.3, 78.7), (8.1, 78.5), (20.0, 60.0)]
    axes.scatter(*zip(*points))
    axes.set_xscale("log")
    labels_apart(figure, axes, ["bilstm-crf-ft-top4", "bilstm-crf-ft-top6", "bilstm-crf-ft", "a-long-label-at-the-edge"],
                 points)
    renderer, frame = figure.canvas.get_renderer(), axes.get_window_extent()
    boxes = [Text.get_window_extent(label, renderer) for label in axes.texts]
    assert len(boxes) == 4
    assert all(_overlap_area(a, b) == 0 for i, a in enumerate(boxes) for b in boxes[i + 1:])
    assert all(_overlap_area(box, frame) == box.width * box.height for box in boxes)
