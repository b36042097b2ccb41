"""Probes of issue 22, case 7: `compare` recomputes every figure from the samples and trusts none written."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from baselines.cli import app
from baselines.comparison.leaderboard import compare
from baselines.evaluation.scoring import score_predictions
from baselines.core.paths import results_root
from baselines.core.records import Reference
from baselines.runs.results_store import Variant, references_digest, write_run
from baselines.registry import get_task

N = 10  # questions of the tiny SCALR file; gold of question k is k % 5


@pytest.fixture
def scalr_file(tmp_path) -> Path:
    path = tmp_path / "tiny.jsonl"
    path.write_text("".join(json.dumps({"index": f"q{k}", "question": f"Question {k}?", "answer": str(k % 5),
                                        **{f"choice_{c}": f"holding {k}-{c}" for c in range(5)}}) + "\n"
                            for k in range(N)))
    return path


def scored(scalr_file: Path, name: str, right: set[int], *options: str, only: set[int] | None = None) -> Path:
    """`baselines score` of predictions right on `right` (wrong elsewhere), for the ids in `only` (default all)."""
    rows = [{"id": f"q{k}", "prediction": str(k % 5 if k in right else (k + 1) % 5)}
            for k in range(N) if only is None or k in only]
    predictions = scalr_file.parent / f"{name}.jsonl"
    predictions.write_text("".join(json.dumps(row) + "\n" for row in rows))
    result = CliRunner().invoke(app, ["score", "scalr", str(predictions), "--test-file", str(scalr_file),
                                      "--name", name, *options])
    assert result.exit_code == 0, result.output
    (folder,) = (results_root() / "scalr" / name).iterdir()
    return folder


def edit(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def written_so(path: Path, change) -> None:
    """`change` the results file as another release or numpy would have written it: its digest matches it."""
    from baselines.runs.results_store import RESULTS_DIGEST, results_digest

    edit(path, change)
    edit(path, lambda d: d["meta"].update({RESULTS_DIGEST: results_digest(d)}))


def cli_compare(*options: str):
    return CliRunner().invoke(app, ["compare", "scalr", "--test-file", "tiny.jsonl", "--markdown-only", *options])


def refused(result, *parts: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and all(part in result.output for part in parts), result.output


def test_a_hand_edited_balanced_accuracy_is_refused_naming_the_file_and_figure(scalr_file):
    """Case 7: a hand-edited balanced accuracy is not shown as written."""
    folder = scored(scalr_file, "x", {0, 1, 2, 3})
    edit(folder / "results.json", lambda d: d["metrics"].update(balanced_accuracy=0.9))
    refused(cli_compare(), f"{folder / 'results.json'}: the samples give metrics.balanced_accuracy=0.400000",
            "says 0.900000")


def test_a_hand_edited_coverage_or_per_label_figure_is_refused(scalr_file):
    """Case 7: a hand-edited coverage, or a per-label F1, is refused like the main metric."""
    folder = scored(scalr_file, "x", {0, 1, 2, 3})
    original = (folder / "results.json").read_text()
    edit(folder / "results.json", lambda d: d.update(coverage=0.5))
    refused(cli_compare(), "results.json: the samples give coverage=1.000000 but the results file says 0.500000")
    (folder / "results.json").write_text(original)
    edit(folder / "results.json", lambda d: d["per_label"]["0"].update(f1=1.0))
    refused(cli_compare(), "the samples give per_label.0.f1=")


def test_a_run_with_a_bad_figure_is_left_out_and_named_beside_good_runs(scalr_file):
    """Case 7: with other runs present, the refused run is left out with a note naming its results file."""
    scored(scalr_file, "good", {0, 1})
    bad = scored(scalr_file, "bad", {0})
    edit(bad / "results.json", lambda d: d["metrics"].update(accuracy=0.95))
    result = cli_compare()
    assert result.exit_code == 0, result.output
    assert "| 1 | good (other) |" in result.stdout and "| bad" not in result.stdout
    assert f"left out {bad}: {bad / 'results.json'}: the samples give metrics.accuracy=0.100000" in result.stdout


def test_a_hand_edited_interval_is_replaced_by_the_recomputed_one_and_flagged(scalr_file):
    """Case 7: a hand-edited interval is never shown; the stored one is flagged, the recomputed one shown."""
    folder = scored(scalr_file, "x", {0, 1, 2, 3})
    stored = json.loads((folder / "results.json").read_text())["interval"]
    assert compare("scalr", test_file="tiny.jsonl").systems[0].notes == []  # same replicates and seed: identical
    written_so(folder / "results.json", lambda d: d.update(interval=[0.9, 0.99]))  # by another numpy
    report = compare("scalr", test_file="tiny.jsonl")
    assert list(report.systems[0].figures["interval"]) == stored
    assert any("results.json: the interval it states, [0.900000, 0.990000], is not the one" in n for n in report.notes)
    shown = cli_compare().stdout
    assert f"[{100 * stored[0]:.1f}, {100 * stored[1]:.1f}]" in shown and "[90.0, 99.0]" not in shown


@pytest.mark.parametrize("correct, answer", [(True, "4"), (False, "0"), (True, None)])
def test_samples_whose_correct_contradicts_the_gold_are_refused_with_their_line(scalr_file, correct, answer):
    """Case 7: a sample whose `correct` is not answer ∈ gold is refused, naming the samples file and line."""
    folder = scored(scalr_file, "x", {0, 1, 2, 3})
    samples = folder / "samples.jsonl"
    rows = [json.loads(line) for line in samples.read_text().splitlines()]
    rows[0].update(correct=correct, answer=answer)  # q0: gold "0"
    samples.write_text("".join(json.dumps(row) + "\n" for row in rows))
    refused(cli_compare(), f"{samples}:1: sample q0: correct is {str(correct).lower()} but its answer")


def test_only_present_runs_show_coverage_over_all_references_and_rank_after_full_runs(scalr_file):
    """Case 7: an --only-present run covering half the items shows 50% coverage, its skipped count, and ranks
    after the full run although it is right on all it answered."""
    scored(scalr_file, "full", {0, 1, 2, 3})
    scored(scalr_file, "half", set(range(N)), "--only-present", only={0, 1, 2, 3, 4})
    report = compare("scalr", test_file="tiny.jsonl")
    assert [s.name for s in report.systems] == ["full", "half"] and report.reference.name == "full"
    half = report.systems[1].figures
    assert (half["all_items_answered"], half["n"], half["skipped"], half["metrics"]["accuracy"]) == (0.5, 5, 5, 1.0)
    shown = cli_compare().stdout
    assert "| 2 | half (other) † | 100.0 |" in shown and "| 50.0 | 5 skipped |" in shown  # all items answered, missing
    assert "| 1 | full (other) | 40.0 |" in shown and "| 100.0 | 0 |" in shown
    assert "† scored with --only-present: its figures are on the items it answered only" in shown


def test_score_with_only_present_states_its_coverage_of_all_references(scalr_file):
    """Case 7: `score --only-present` itself states the share of all references it answered, beside its subset."""
    predictions = scalr_file.parent / "some.jsonl"
    predictions.write_text("".join(json.dumps({"id": f"q{k}", "prediction": str(k % 5)}) + "\n" for k in range(4)))
    result = CliRunner().invoke(app, ["score", "scalr", str(predictions), "--test-file", str(scalr_file),
                                      "--only-present"])
    assert result.exit_code == 0, result.output
    assert re.search(r"all items answered\W+0\.4000", result.output), result.output


def test_a_missing_wrong_run_shows_its_missing_count(scalr_file):
    """Case 7: missing references counted as wrong are shown as such beside the coverage."""
    scored(scalr_file, "wrong", {0, 1}, "--missing", "wrong", only={0, 1, 2, 3})
    shown = cli_compare().stdout
    assert "| 40.0 | 6 wrong |" in shown and "they count as wrong in every figure" in shown


def test_a_skip_run_cannot_pass_for_a_full_run_or_change_its_skipped_count(scalr_file):
    """Case 7: an --only-present run edited to say nothing was skipped is refused by its samples' content;
    one whose skipped count disagrees with the full runs on the same references is left out."""
    scored(scalr_file, "full", {0})
    half = scored(scalr_file, "half", set(range(N)), "--only-present", only={0, 1, 2, 3, 4})
    original = (half / "results.json").read_text()
    edit(half / "results.json", lambda d: d.update(missing=0))
    report = compare("scalr", test_file="tiny.jsonl")
    assert [s.name for s in report.systems] == ["full"]
    assert any("are not the references it was scored on" in note for note in report.notes)
    (half / "results.json").write_text(original)
    edit(half / "results.json", lambda d: d.update(missing=1))
    report = compare("scalr", test_file="tiny.jsonl")
    assert [s.name for s in report.systems] == ["full"]
    assert any("says 1 references were skipped besides its 5 items, but they hold 10" in n for n in report.notes)


def test_a_partial_run_of_ours_is_not_the_default_reference():
    """Case 7: the default reference is a run on every reference, even when a partial run of ours scores higher."""
    task = get_task("scalr")
    refs = [Reference(id=f"q{k}", gold=(str(k % 5),), labels=tuple("01234")) for k in range(10)]
    for name, kind, answered in (("ours-partial", "ours", range(3)), ("llm-full", "llm", range(10))):
        predictions = [{"id": f"q{k}", "prediction": str(k % 5) if k < 3 else "9"} for k in answered]
        result, samples = score_predictions(task, predictions, refs, system=name, missing="skip")
        variant = Variant(split="test", references=references_digest(refs))
        result.producer, result.variant, result.meta = kind, variant.to_dict(), {"method": name}
        write_run(results_root() / "scalr" / name / "test", result.to_dict(), samples, None)
    report = compare("scalr")
    assert report.reference.name == "llm-full" and [s.name for s in report.systems] == ["llm-full", "ours-partial"]
    assert "no classical method has results on every reference: the reference is the best system" in report.notes


@pytest.mark.parametrize("task_name", ["rr", "caselawqa"])
def test_recomputed_figures_equal_those_the_evaluator_wrote(task_name):
    """Case 7: documents out of name order (RR) and tasks resampled within (CaselawQA) give the very interval,
    metrics and tables the evaluator wrote, so an honest file is never flagged."""
    task = get_task(task_name)
    labels = ("FAC", "ANALYSIS", "NONE") if task_name == "rr" else ("A", "B", "C")
    refs = [Reference(id=f"{doc}_{s}", gold=(labels[(s * s + len(doc)) % 3],), labels=labels, group=doc,
                      unit=doc if task_name == "rr" else "")
            for doc in ("sc_z", "sc_b", "songer_m", "sc_a") for s in range(7)]
    predictions = [{"id": ref.id, "prediction": labels[k % 3]} for k, ref in enumerate(refs)]
    result, samples = score_predictions(task, predictions, refs, system="x")
    variant = Variant(split=task.eval_split, references=references_digest(refs))
    result.variant, result.meta = variant.to_dict(), {"method": "x"}
    write_run(results_root() / task_name / "x" / task.eval_split, result.to_dict(), samples, None)
    (system,) = compare(task_name).systems
    assert system.notes == [] and list(system.figures["interval"]) == list(result.interval)
    assert system.figures["metrics"] == result.metrics
    for table in ("per_label", "per_group", "per_supergroup"):
        assert system.figures[table] == getattr(result, table)


def test_generations_read_by_different_extractor_versions_are_flagged(scalr_file):
    """Runs whose generations were read by other versions of the extractor's rules say so beside the table."""
    scored(scalr_file, "a", {0, 1})
    older = scored(scalr_file, "b", {0})
    assert not any("extractor versions" in note for note in compare("scalr", test_file="tiny.jsonl").notes)
    written_so(older / "results.json", lambda d: d.update(extractor_version="2"))
    notes = compare("scalr", test_file="tiny.jsonl").notes
    assert any("different extractor versions" in note and "b (2)" in note for note in notes), notes
