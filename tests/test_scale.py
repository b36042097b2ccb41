"""The scale benchmark: Lawma's layout written at a chosen size from the local data, a tiny run of every step, and
the page's fitted exponents and full-size figures."""
from __future__ import annotations

import json

import pytest
from caselawqa_fixtures import write_normalized

from baselines.tasks.caselawqa.data import load_caselawqa
from baselines.tasks.caselawqa.recognise import recognise
from baselines.tasks.caselawqa.scale import LAWMA_TASKS, songer_names, task_names, write_scaled_caselawqa
from baselines.runs.scale import read_report
from baselines.runs.scale_page import exponent, full_size, growth_ratios, page


def test_copies_have_new_ids_and_texts_and_the_tasks_courts_of_appeals_names(tmp_path):
    source = write_normalized(tmp_path / "local")
    local = [item for split in ("train", "val", "test") for item in load_caselawqa(source, split)]
    written = write_scaled_caselawqa(source, tmp_path / "scaled", copies=2, task_copies=1)
    assert written["examples"] == 2 * 2 * len(local) and written["tasks"] == 8
    scaled = {split: load_caselawqa(tmp_path / "scaled", split) for split in ("train", "val", "test")}
    test = scaled["test"]
    assert len(test) / written["examples"] >= 143_635 / 718_971 - 0.01  # at least Lawma's share (toy: 23% already)
    half = write_scaled_caselawqa(source, tmp_path / "half", copies=1, test_share=0.5)
    assert abs(half["splits"]["test"] / half["examples"] - 0.5) <= 2 / 52  # whole cases move from train to test
    every = [item for items in scaled.values() for item in items]
    assert len({item.id for item in every}) == len(every)
    tasks = {item.group for item in every}
    assert len(tasks) == 8 and len([name for name in tasks if name.startswith("songer_")]) == 4
    split_of = {(item.meta["case_id"], item.split) for item in every}
    assert {(case + ".c2", split) for case, split in split_of if "." not in case} == {
        pair for pair in split_of if pair[0].endswith(".c2")}  # a case and its copy share a split
    copy_two = [item for item in every if item.meta["case_id"].endswith(".c2")]
    assert copy_two and all(item.context.startswith("(copy 2) ") for item in copy_two)
    original = {item.context for item in local}
    assert all(item.context in original for item in every if not item.meta["case_id"].endswith(".c2"))
    twin = {(i.meta["case_id"], tuple(i.answer)) for i in every if i.group == "sc_state"}
    assert twin == {(i.meta["case_id"], tuple(i.answer)) for i in every if i.group == task_names(
        sorted({i.group for i in local}), 1)["sc_state"][1]}  # a task's copy asks of the same cases
    copies = [item for item in every if item.group.startswith("songer_")]
    assert all(item.question.startswith("(courts-of-appeals copy) ") for item in copies)
    assert not any(recognise(copies).values())  # a copy takes the generic path, as Lawma's own do


def test_task_copies_stop_at_lawmas_260_tasks():
    names = task_names([f"sc_t{k}" for k in range(37)], 10)
    flat = [name for group in names.values() for name in group]
    assert len(flat) == LAWMA_TASKS == len(set(flat)) and set(flat) - {f"sc_t{k}" for k in range(37)} <= set(
        songer_names())


def test_exponent_and_full_size_figures():
    assert exponent([(100, 2.0), (200, 4.0), (400, 8.0)]) == pytest.approx(1.0)
    assert exponent([(100, 2.0)]) is None
    figures = {"wall_s": 1.0, "cpu_s": 1.0, "peak_mib": 100.0, "exit": 0}
    report = {"task": "t", "full": {"examples": 800, "test": 400}, "methods": ["m"], "layout": "", "machine": {},
              "sizes": [{"copies": c, "task_copies": 0, "tasks": 2, "examples": 100 * c, "splits": {"test": 20 * c},
                         "steps": {"train m": {**figures, "wall_s": 1.0 * c, "cpu_s": 1.0 * c}, "score": figures}} for c in (1, 2)]}
    report["sizes"].append({"copies": 2, "task_copies": 9, "tasks": 20, "examples": 400, "test_only": True,
                            "splits": {"test": 400}, "steps": {"score": {**figures, "wall_s": 3.0}}})
    assert full_size(report, "train m", "wall_s")[1] == "not extrapolated"  # load-bound
    value, how, slope = full_size(report, "train m", "cpu_s")
    assert how == "extrapolated" and value == pytest.approx(8.0) and slope == pytest.approx(1.0)
    assert growth_ratios(report, "train m", "wall_s")[0] == pytest.approx(2.0)
    assert full_size(report, "score", "wall_s")[:2] == (3.0, "measured")  # the test-only size reached 400 test
    report["sizes"].append({"copies": 1, "task_copies": 6, "tasks": 14, "examples": 400, "splits": {"test": 80},
                            "steps": {"train m": {**figures, "cpu_s": 5.0}}})
    value, how, slope = full_size(report, "train m", "cpu_s")  # from the largest size, along the cases' slope
    assert how == "extrapolated" and value == pytest.approx(10.0) and slope == pytest.approx(1.0)
    report["sizes"][0]["steps"]["train n"] = figures  # a step run at few tasks only: named under the table
    text = page(report, "p.png", "scale.json")
    assert "| 400, 14 |" in text and "train n: extrapolated from a size of few tasks" in text
    assert "train m:" not in text and "*" in text  # peaks of reports that did not add the processes, marked
    del report["sizes"][0]["steps"]["train n"]
    report["sizes"].pop()
    report["full"]["examples"] = 200
    assert full_size(report, "train m", "wall_s")[:2] == (2.0, "measured")
    text = page(report, "p.png", "scale.json")
    assert all(line.count("|") <= 9 for line in text.splitlines())  # tables of at most eight columns
    assert "| train m | 2 (measured)" in text and "| score | 3 (measured)" in text and "20 tasks, test only" in text


def test_a_tiny_scale_run_measures_every_step(tmp_path):
    from baselines.runs.scale import run_scale
    from baselines.runs.scale_page import write_page

    source = write_normalized(tmp_path / "local")
    report = run_scale("caselawqa", source, tmp_path / "work", copies=[1, 2], task_copies=[2],
                       methods=["majority"], test_only=[(1, 3)])
    assert [(s["copies"], s["task_copies"]) for s in report["sizes"]] == [(1, 2), (2, 2), (1, 3)]
    first, second, alone = report["sizes"]
    assert alone["test_only"] and list(alone["splits"]) == ["test"] and list(alone["steps"]) == ["score", "compare"]
    assert alone["splits"]["test"] == 4 * 48 and all(step["exit"] == 0 for step in alone["steps"].values())
    assert second["examples"] == 2 * first["examples"] == 2 * 3 * 208 and first["tasks"] == 12
    for size in report["sizes"][:2]:
        assert "failed" not in size, size.get("failed")
        assert list(size["steps"]) == ["load", "train majority", "eval majority", "predict majority", "score",
                                       "compare"]
        assert all(step["exit"] == 0 and step["peak_mib"] > 10 and step["cpu_s"] > 0
                   for step in size["steps"].values())
        scored = next((tmp_path / "work").glob(f"copies{size['copies']}-*/results/caselawqa/llm-answers/*/"
                                               "results.json"))
        assert json.loads(scored.read_text())["n"] == size["splits"]["test"]
    text, image = write_page(tmp_path / "work" / "scale.json", tmp_path / "docs" / "caselawqa-scale.md")
    assert image.stat().st_size > 1000 and "(extrapolated)" in text.read_text()
    assert read_report(tmp_path / "work" / "scale.json")["sizes"][1]["copies"] == 2


@pytest.mark.parametrize("sizes", [{"copies": [0], "task_copies": [0]}, {"copies": [1], "task_copies": [-1]},
                                   {"copies": [], "task_copies": [], "test_only": [(0, 2)]}])
def test_a_size_no_data_can_be_written_at_is_refused_before_any_folder(tmp_path, sizes):
    from baselines.core.errors import BaselinesError
    from baselines.runs.scale import run_scale

    with pytest.raises(BaselinesError, match="give"):
        run_scale("caselawqa", tmp_path / "data", tmp_path / "work", **sizes)
    assert not (tmp_path / "work").exists()
