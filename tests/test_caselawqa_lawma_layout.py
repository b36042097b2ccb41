"""CaselawQA from Lawma's lawma-tasks parquet layout: tasks recognised by their content, unknown tasks on the
generic path for every method, and the same predictions as from our normalized files."""
from __future__ import annotations

import gzip
import json
from dataclasses import replace
from pathlib import Path

import pytest
from test_caselawqa_stacking import DEFINITIONS, SMALL, _write_toy

from baselines.core.records import ChoiceItem
from baselines.tasks.caselawqa.data import load_caselawqa
from baselines.tasks.caselawqa.dependencies import stacked_tasks
from baselines.tasks.caselawqa.lawma_layout import write_lawma_from, write_lawma_tasks
from baselines.tasks.caselawqa.recognise import TABLE, fingerprint, known_tasks, recognise, task_paths

PARTY = "sc_partywinning"


def _item(task: str, question: str, choices: list[str]) -> ChoiceItem:
    return ChoiceItem(id=f"{task}/c1", question=question, choices=choices, labels=["A", "B"][:len(choices)],
                      answer=[0], group=task, context="An opinion.", split="train")


def test_a_task_is_recognised_by_its_question_and_choices_not_its_name():
    question, choices = DEFINITIONS[PARTY]
    roles = recognise([
        _item(PARTY, question, choices),
        _item("songer_copy", "  " + question.upper().replace(" ", "\n "), choices),  # spacing and case aside
        _item("sc_casedisposition", "Which outcome?", ["Yes", "No"]),  # a known name, another content
        _item("songer_geniss", "What is the general issue?", ["criminal", "civil"]),
    ])
    assert roles == {PARTY: PARTY, "songer_copy": PARTY, "sc_casedisposition": None, "songer_geniss": None}
    paths = task_paths(roles)
    assert paths["codebook"] == {"n": 2, "tasks": [PARTY, "songer_copy"]}
    assert paths["generic"] == {"n": 2, "tasks": ["sc_casedisposition", "songer_geniss"]}
    assert paths["recognised_as"] == {"songer_copy": PARTY}
    assert recognise([_item(PARTY, question, choices[::-1])]) == {PARTY: None}  # the choices' order counts


def test_stacked_sources_are_the_tasks_their_content_says():
    trained = {"sc_partywinning", "copy_of_disposition", "sc_casedisposition", "sc_lcdisposition"}
    roles = {"sc_partywinning": "sc_partywinning", "copy_of_disposition": "sc_casedisposition",
             "sc_casedisposition": None, "sc_lcdisposition": "sc_lcdisposition"}
    inputs = stacked_tasks(trained, roles=roles)
    assert inputs["sc_partywinning"].sources == ("copy_of_disposition",)  # not the impostor of that name
    assert inputs["copy_of_disposition"].sources == ("sc_partywinning", "sc_lcdisposition")
    assert "sc_casedisposition" not in inputs


def test_the_fingerprint_table_holds_the_task_definitions(data_dir):
    tasks_json = Path(data_dir) / "caselawqa" / "tasks.json"
    if not tasks_json.is_file():
        pytest.skip("no normalized CaselawQA data")
    specs = json.loads(tasks_json.read_text())
    table = {name: fp for fp, names in known_tasks().items() for name in names}
    assert table == {name: fingerprint(spec["question"], spec["choices"]) for name, spec in specs.items()}, TABLE


def _reorder(root: Path) -> Path:
    """The toy's examples with sc_partywinning first and without a quarter of its cases, so that the opinions come
    in another order from our files than from Lawma's (task folders by name); one train or val answer in three of
    sc_partywinning and sc_lcdisagreement flipped, so that the cross-fitted answers depend on the folds."""
    path = root / "caselawqa" / "examples.jsonl.gz"
    rows = [json.loads(line) for line in gzip.open(path, "rt")]
    for row in rows:
        if row["task"] != "sc_casedisposition" and row["split"] != "test" and int(row["case_id"][1:]) % 3 == 0:
            row["answer"] = [1 - row["answer"][0]]
    rows = [r for r in rows if r["task"] == PARTY and int(r["case_id"][1:]) % 4 != 1] + \
           [r for r in rows if r["task"] != PARTY]
    with gzip.open(path, "wt") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in rows)
    return root


def test_lawma_layout_gives_the_predictions_of_our_files(tmp_path):
    from baselines.methods.base import Method
    from baselines.runs import training

    ours = _reorder(_write_toy(tmp_path / "ours"))
    loaded = load_caselawqa(None, "train", path=ours / "caselawqa")
    assert [item.group for item in loaded] == sorted(item.group for item in loaded)  # tasks by name, as Lawma's
    counts = write_lawma_from(ours / "caselawqa", tmp_path / "lawma" / "caselawqa" / "lawma-tasks")
    assert counts == {"sc_casedisposition": 90, "sc_lcdisagreement": 90, PARTY: 67}
    assert not (tmp_path / "lawma" / "caselawqa" / "tasks.json").exists()
    folders = {name: training.train("caselawqa", "stacked", root, overrides=SMALL, models_dir=tmp_path / "models",
                                    name=name) for name, root in (("ours", ours), ("lawma", tmp_path / "lawma"))}
    notes = json.loads((folders["lawma"] / "config.json").read_text())["notes"]["task_paths"]
    assert notes["codebook"]["n"] == 3 and notes["generic"]["n"] == 0
    summary = json.loads((folders["lawma"] / "signals.json").read_text())["tasks"]
    assert summary[PARTY]["stacked_head"]["sources"] == ["sc_casedisposition"]  # the codebook path was taken
    predictions = {name: Method.load(folder).predict(load_caselawqa(None, "test", path=root / "caselawqa"))
                   for (name, folder), root in zip(folders.items(), (ours, tmp_path / "lawma"))}
    assert sorted(predictions["lawma"], key=lambda row: row["id"]) == sorted(predictions["ours"],
                                                                             key=lambda row: row["id"])


def _variants(items: list[ChoiceItem]) -> list[ChoiceItem]:
    """The toy's tasks, plus a copy of sc_partywinning under a courts-of-appeals name, an unknown task, and a task
    named sc_decisiondirection whose content is not that task's."""
    out = list(items)
    for item in items:
        if item.group == PARTY:
            out.append(replace(item, group="songer_copy", id=item.id.replace(PARTY, "songer_copy")))
        if item.group == "sc_lcdisagreement":
            for name, question in (("songer_geniss", "What is the general issue?"),
                                   ("sc_decisiondirection", "Was the panel divided?")):
                out.append(replace(item, group=name, question=question, id=item.id.replace(item.group, name)))
    return out


@pytest.mark.parametrize("method", ["majority", "linear", "signals", "readers", "stacked"])
def test_every_method_trains_from_lawma_layout_with_tasks_it_knows_nothing_of(tmp_path, method):
    from baselines.methods.base import Method
    from baselines.runs import training

    toy = _write_toy(tmp_path / "toy") / "caselawqa"
    out = tmp_path / "lawma" / "caselawqa" / "lawma-tasks"
    for split in ("train", "val", "test"):
        write_lawma_tasks(_variants(load_caselawqa(None, split, path=toy)), out)
    unknown = {"majority": set(SMALL), "linear": {"window_min_df", "stack_Cs", "stack_min_df"},
               "signals": {"stack_Cs", "stack_min_df"}, "readers": {"stack_Cs", "stack_min_df"}}.get(method, set())
    folder = training.train("caselawqa", method, tmp_path / "lawma", models_dir=tmp_path / "models",
                            overrides={key: value for key, value in SMALL.items() if key not in unknown})
    paths = training.fit_notes(folder)["task_paths"]
    assert paths["codebook"]["tasks"] == ["sc_casedisposition", "sc_lcdisagreement", PARTY, "songer_copy"]
    assert paths["generic"]["tasks"] == ["sc_decisiondirection", "songer_geniss"]
    assert "codebook path: 4 task(s)" in paths["summary"] and "generic path: 2 task(s)" in paths["summary"]
    test = load_caselawqa(None, "test", path=tmp_path / "lawma" / "caselawqa")
    rows = Method.load(folder).predict(test)
    assert [row["id"] for row in rows] == [item.id for item in test]
    assert all(row["prediction"] in item.labels for row, item in zip(rows, test))
