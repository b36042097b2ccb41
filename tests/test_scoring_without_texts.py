"""`score` reads CaselawQA's references without the opinions: the same references as the whole records, no opinion
file opened or column read, and the LLM cost estimate counted on a sample of whole records."""
from __future__ import annotations

import json

import pytest
from caselawqa_fixtures import write_eightk, write_lawma_tasks, write_normalized
from typer.testing import CliRunner

from baselines.cli import app
from baselines.registry import ReferencesOnly, get_task
from baselines.runs.scoring_records import cost_sample
from baselines.tasks.caselawqa.data import load_caselawqa, load_caselawqa_ids, load_caselawqa_references
from conftest import run_results

runner = CliRunner()


def _refs(items):
    return sorted((ref.id, ref.gold, ref.labels, ref.group, ref.choices) for ref in (i.reference() for i in items))


@pytest.mark.parametrize("write", [write_normalized, write_lawma_tasks, write_eightk])
def test_references_without_opinions_equal_those_of_the_whole_records(tmp_path, write):
    root = write(tmp_path)
    whole, light = load_caselawqa(root, "test"), load_caselawqa_references(root, "test")
    assert _refs(light) == _refs(whole) and all(item.context == "" for item in light)
    assert [i.meta["case_id"] for i in light] == [i.meta["case_id"] for i in whole]
    some = {whole[0].id, whole[-1].id}
    picked = load_caselawqa_ids(root, "test", None, some)
    assert {i.id for i in picked} == some and all(i.context for i in picked)


def test_the_opinions_are_not_read(tmp_path):
    root = write_normalized(tmp_path)
    (root / "caselawqa" / "opinions.jsonl.gz").write_bytes(b"not gzip")  # read: an error
    assert len(load_caselawqa_references(root, "test")) == 48
    with pytest.raises(Exception, match="gzip"):
        load_caselawqa(root, "test")


def test_parquet_opinion_column_is_not_read_where_an_id_column_names_the_cases(tmp_path):
    import pyarrow.parquet as pq

    root = write_lawma_tasks(tmp_path)
    for path in (root / "caselawqa" / "lawma-tasks").rglob("test.parquet"):
        table = pq.read_table(path)
        ids = [f"case-{k}" for k in range(table.num_rows)]
        table = table.drop(["opinion"]).append_column("opinion", table.column("opinion").cast("binary"))
        pq.write_table(table.append_column("case_id", [ids]), path)  # opinions unreadable as text
    items = load_caselawqa_references(root, "test")
    assert len(items) == 48 and items[0].id.endswith("/case-0")


def test_caselawqa_declares_its_references_without_texts():
    assert get_task("caselawqa").capability(ReferencesOnly).leaves_out == "opinion texts"
    assert get_task("scalr").capability(ReferencesOnly) is None


def test_cost_sample_takes_the_first_answered_items_of_each_group():
    from baselines.core.records import Reference

    refs = [Reference(id=f"{g}/{k}", gold=("A",), labels=("A",), group=g) for g in "xyz" for k in range(5)]
    answered = {ref.id for ref in refs} - {"x/0"}
    assert cost_sample(refs, answered, limit=20) == answered
    assert cost_sample(refs, answered, limit=6) == {"x/1", "x/2", "y/0", "y/1", "z/0", "z/1"}


def test_score_without_the_opinions_file_estimates_the_cost_on_a_sample(tmp_path, monkeypatch):
    monkeypatch.setattr("baselines.runs.scoring_records.COST_SAMPLE", 8)
    root = write_lawma_tasks(tmp_path)
    items = load_caselawqa(root, "test")
    answers = tmp_path / "llama-3-8b.jsonl"
    answers.write_text("".join(json.dumps({"id": i.id, "raw": f"The answer is {i.labels[i.answer[0]]}"}) + "\n"
                               for i in items))
    result = runner.invoke(app, ["score", "caselawqa", str(answers), "--data-dir", str(root)])
    assert result.exit_code == 0, result.output
    run = run_results("caselawqa", "llama-3-8b")
    assert run["n"] == len(items) and run["metrics"]["accuracy"] == 1.0
    cost = run["meta"]["cost"]
    assert cost["items"] == len(items) and cost["prompt_sample"] == 8 and cost["prompt_tokens_per_item"] > 100
