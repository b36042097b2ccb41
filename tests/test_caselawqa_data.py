"""CaselawQA loaders: the three layouts give the same records; bad input fails clearly; download offline."""
from __future__ import annotations

import gzip
import json

import pytest
from caselawqa_fixtures import write_eightk, write_lawma_tasks, write_normalized

from baselines.tasks.caselawqa.data import detect_layout, load_caselawqa
from baselines.core.errors import BaselinesError, DataError


def _content(items):
    return sorted((i.group, i.split, i.question, tuple(i.choices), tuple(i.labels), tuple(i.answer), i.context)
                  for i in items)


@pytest.mark.parametrize("split", ["train", "val", "test"])
def test_three_layouts_give_the_same_records(tmp_path, split):
    normalized = load_caselawqa(write_normalized(tmp_path / "n"), split)
    lawma = load_caselawqa(write_lawma_tasks(tmp_path / "l"), split)
    eightk = load_caselawqa(write_eightk(tmp_path / "e"), split)
    assert _content(normalized) == _content(lawma) == _content(eightk)
    assert detect_layout(tmp_path / "l" / "caselawqa")[0] == "lawma-tasks"
    assert detect_layout(tmp_path / "e" / "caselawqa")[0] == "caselawqa-8k"


def test_normalized_records(tmp_path):
    items = load_caselawqa(write_normalized(tmp_path), "train")
    first = items[0]
    assert first.id == f"{first.group}/{first.meta['case_id']}" and first.meta["court"] == "sc"
    state = next(i for i in items if i.group == "sc_state")
    assert state.labels[:2] == ["01", "02"] and len(state.labels) == 30
    same_case = [i for i in items if i.meta["case_id"] == first.meta["case_id"]]
    assert len(same_case) == 4 and len({id(i.context) for i in same_case}) == 1  # one string per opinion
    assert any(len(i.answer) == 2 for i in items if i.group == "sc_authority")


def test_parquet_shares_opinions_and_labels(tmp_path):
    items = load_caselawqa(write_lawma_tasks(tmp_path), "test")
    assert len({id(i.context) for i in items}) == len({i.context for i in items})
    assert all(i.labels == (["A", "B", "C"] if i.group == "sc_direction" else i.labels) for i in items)
    assert len({i.id for i in items}) == len(items)


def test_task_subset_and_unknown_task(tmp_path):
    root = write_normalized(tmp_path)
    items = load_caselawqa(root, "test", subtasks=["sc_state"])
    assert {i.group for i in items} == {"sc_state"}
    with pytest.raises(BaselinesError, match="sc_nope.*valid: sc_authority, sc_constant"):
        load_caselawqa(root, "test", subtasks=["sc_nope"])
    with pytest.raises(BaselinesError, match="sc_nope.*valid"):
        load_caselawqa(write_eightk(tmp_path / "e"), "test", subtasks=["sc_nope"])
    with pytest.raises(BaselinesError, match="sc_nope.*valid"):
        load_caselawqa(write_lawma_tasks(tmp_path / "l"), "test", subtasks=["sc_nope"])


def _rewrite(path, change):
    with gzip.open(path, "rt") as handle:
        rows = [json.loads(line) for line in handle]
    change(rows)
    with gzip.open(path, "wt") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in rows)


def test_answer_outside_choices(tmp_path):
    root = write_normalized(tmp_path)
    _rewrite(root / "caselawqa" / "examples.jsonl.gz", lambda rows: rows[0].update(answer=[7], split="test"))
    with pytest.raises(DataError, match=r"examples.jsonl.gz:1.*sc_direction/2000-000.*index 7 is outside the 3"):
        load_caselawqa(root, "test")


def test_missing_opinion(tmp_path):
    root = write_normalized(tmp_path)
    _rewrite(root / "caselawqa" / "opinions.jsonl.gz", lambda rows: rows.pop(0))
    with pytest.raises(DataError, match="no opinion for case id '2000-000'"):
        load_caselawqa(root, "train")


def test_parquet_missing_column_and_bad_answer(tmp_path):
    root = write_lawma_tasks(tmp_path, drop=("answer",))
    with pytest.raises(DataError, match=r"train.parquet.*missing column\(s\) answer"):
        load_caselawqa(root, "train")
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = write_lawma_tasks(tmp_path / "b") / "caselawqa" / "lawma-tasks" / "sc_state" / "test.parquet"
    table = pq.read_table(path).to_pylist()
    table[1]["answer"] = [31]
    pq.write_table(pa.Table.from_pylist(table), path)
    with pytest.raises(DataError, match=r"test.parquet \(row 2, task sc_state\).*outside the 30 choices"):
        load_caselawqa(tmp_path / "b", "test")


def test_task_names_from_data_must_be_plain_names(tmp_path):
    root = write_lawma_tasks(tmp_path / "l")
    tasks = root / "caselawqa" / "lawma-tasks"
    (tasks / "sc_state").rename(tasks / "sc state")
    with pytest.raises(DataError, match=r"sc state/test.parquet \(row 1\): task name 'sc state' is not a plain name"):
        load_caselawqa(root, "test")
    tasks_file = write_normalized(tmp_path / "n") / "caselawqa" / "tasks.json"
    tasks_file.write_text(json.dumps([{"name": "sc_state"}]))
    with pytest.raises(DataError, match=r"tasks.json: expected a JSON object of tasks by name, got a JSON list"):
        load_caselawqa(tmp_path / "n", "test")
    tasks_file.write_text(json.dumps({"sc_" + "x" * 98: {"question": "?", "choices": ["a"]}}))
    with pytest.raises(DataError, match=r"tasks.json: task name 'sc_x+' is not a plain name.*at most 100"):
        load_caselawqa(tmp_path / "n", "test")


def test_no_layout(tmp_path):
    (tmp_path / "caselawqa").mkdir()
    with pytest.raises(DataError, match="no CaselawQA layout"):
        load_caselawqa(tmp_path, "test")
    with pytest.raises(DataError, match="folder not found"):
        load_caselawqa(tmp_path / "elsewhere", "test")


def test_download_offline_env(tmp_path, monkeypatch):
    import huggingface_hub

    from baselines.tasks.caselawqa.download import download_caselawqa

    monkeypatch.setattr(huggingface_hub, "snapshot_download", lambda *a, **k: pytest.fail("touched the network"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(BaselinesError, match="HF_HUB_OFFLINE.*--data-dir"):
        download_caselawqa(tmp_path)


def test_download_connection_error(tmp_path, monkeypatch):
    import huggingface_hub

    from baselines.tasks.caselawqa.download import download_caselawqa

    def unreachable(*args, **kwargs):
        raise ConnectionError("Failed to resolve 'huggingface.co'")

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", unreachable)
    with pytest.raises(BaselinesError, match="cannot download CaselawQA.*--data-dir DIR"):
        download_caselawqa(tmp_path)
