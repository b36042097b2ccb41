"""Per-label tables show each label as the prompt offered it: SCALR's label "1" as "B (1)", in `score`'s summary
and in `compare`'s table, Markdown and CSV; a task without aliases (RR) shows its labels unchanged."""
from __future__ import annotations

import dataclasses
import json
import re

from typer.testing import CliRunner

from baselines.cli import app
from baselines.comparison.leaderboard import compare
from baselines.comparison.markdown import to_markdown
from baselines.comparison.render import breakdowns, print_comparison
from baselines.comparison.report_files import write_files
from baselines.core.labels import label_as_offered
from baselines.core.paths import results_root
from baselines.core.records import Reference
from baselines.evaluation.scoring import score_predictions
from baselines.registry import get_task
from baselines.runs.results_store import Variant, references_digest, write_run

SCALR_SHOWN = ["A (0)", "B (1)", "C (2)", "D (3)", "E (4)"]


def test_a_label_is_shown_with_the_alias_the_prompt_offered():
    aliases = get_task("scalr").aliases
    assert [label_as_offered(label, aliases) for label in "01234"] == SCALR_SHOWN
    assert label_as_offered("9", aliases) == "9"  # no alias stands for it
    assert label_as_offered("ANALYSIS", get_task("rr").aliases) == "ANALYSIS"


def scalr_data(tmp_path):
    folder = tmp_path / "data" / "scalr"
    folder.mkdir(parents=True)
    rows = [{"index": str(i), "question": f"question {i}", "answer": str(i % 5),
             **{f"choice_{k}": f"holding {k} of question {i}" for k in range(5)}} for i in range(10)]
    (folder / "test.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return tmp_path / "data"


def per_label_rows(output: str) -> list[str]:
    """The first cells of the rows of the table titled "per label" in a rich summary."""
    table = output.split("per label", 1)[1]
    return [cells[1].strip() for line in table.splitlines()
            if len(cells := line.split("│")) > 2 and cells[1].strip() and cells[2].strip()[:1].isdigit()]


def test_score_shows_scalr_labels_as_the_letters_the_llm_answered(tmp_path):
    data = scalr_data(tmp_path)
    answers = tmp_path / "llm.jsonl"
    answers.write_text("".join(json.dumps({"id": str(i), "raw": f"The final answer is {'ABCDE'[i % 5]}"}) + "\n"
                               for i in range(10)))
    result = CliRunner().invoke(app, ["score", "scalr", str(answers), "--data-dir", str(data), "--name", "llm"])
    assert result.exit_code == 0, result.output
    assert sorted(per_label_rows(result.stdout)) == SCALR_SHOWN


def write_scalr_run(name: str, refs: list[Reference], right: set[int]) -> None:
    """A scored SCALR run as `score` writes it: item k answered right iff k in `right`."""
    task = get_task("scalr")
    predictions = [{"id": ref.id, "prediction": ref.gold[0] if k in right else
                    next(label for label in ref.labels if label not in ref.gold)} for k, ref in enumerate(refs)]
    result, samples = score_predictions(task, predictions, refs, system=name, split=task.eval_split)
    result.meta, result.producer = {"method": name, "command": f"make {name}"}, "ours"
    variant = Variant(split=task.eval_split, references=references_digest(refs))
    result.variant = variant.to_dict()
    write_run(results_root() / "scalr" / name / variant.slug(), result.to_dict(), samples, None)


def scalr_comparison_by_label():
    """A comparison of two SCALR runs, its task asking for the per-label breakdown."""
    refs = [Reference(id=f"q{i}", gold=(str(i % 5),), labels=tuple("01234")) for i in range(20)]
    write_scalr_run("tfidf", refs, set(range(8)))
    write_scalr_run("embed", refs, set(range(14)))
    report = compare("scalr", replicates=200)
    return dataclasses.replace(report, task=dataclasses.replace(report.task, breakdowns=("per_label",)))


def test_compare_shows_and_writes_scalr_labels_with_their_letters(tmp_path, capsys):
    report = scalr_comparison_by_label()
    (table,) = breakdowns(report)
    assert sorted(row[0] for row in table.rows) == SCALR_SHOWN
    assert "| B (1) | 4 |" in to_markdown(report)
    write_files(report, tmp_path / "out")
    rows = (tmp_path / "out" / "scalr_per_label.csv").read_text().splitlines()
    assert rows[0] == "label,support,embed,tfidf"
    assert sorted(row.split(",")[0] for row in rows[1:]) == SCALR_SHOWN
    print_comparison(report)
    printed = capsys.readouterr().out.split("F1 per label", 1)[1]
    assert all(re.search(rf"│ {re.escape(label)} +│", printed) for label in SCALR_SHOWN), printed


def test_compare_keeps_the_labels_of_a_task_without_aliases():
    labels = ("FAC", "ANALYSIS", "NONE")
    refs = [Reference(id=f"d{d}_{s}", gold=(labels[s % 3],), labels=labels, group=f"d{d}", unit=f"d{d}")
            for d in range(3) for s in range(6)]
    task = get_task("rr")
    result, samples = score_predictions(task, [{"id": r.id, "prediction": r.gold[0]} for r in refs], refs,
                                        system="crf", split=task.eval_split)
    result.meta, result.producer = {"method": "crf"}, "ours"
    variant = Variant(split=task.eval_split, references=references_digest(refs))
    result.variant = variant.to_dict()
    write_run(results_root() / "rr" / "crf" / variant.slug(), result.to_dict(), samples, None)
    (table,) = breakdowns(compare("rr", replicates=200))
    assert sorted(row[0] for row in table.rows) == sorted(labels)
