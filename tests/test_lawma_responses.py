"""Lawma's released per-example responses scored through `baselines score caselawqa DIR --format lawma`."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from typer.testing import CliRunner

from baselines import api
from baselines.tasks.caselawqa import lawma as lawma_responses

from baselines.cli import app
from baselines.core.errors import BaselinesError, DataError
from baselines.evaluation.scoring import score_predictions
from baselines.tasks.caselawqa.lawma import join_summary, read_lawma_responses
from baselines.core.records import ChoiceItem, letter_labels
from baselines.registry import get_task

CJK = "".join(chr(0x5E74 + 7 * k) for k in range(30))  # 30 distinct CJK characters, one per choice
STATES = letter_labels(30)  # "01".."30"


def item(task: str, case: str, cap: str | None, labels: list[str], answer: list[int]) -> ChoiceItem:
    return ChoiceItem(id=f"{task}/{case}", question="?", choices=[f"choice {k}" for k in range(len(labels))],
                      labels=labels, answer=answer, group=task, context="opinion", split="test",
                      meta={"case_id": case, "court": "sc", "cap_case_id": cap})


def records() -> list[ChoiceItem]:
    """Two letter cases (one multi-label), three numbered cases, and one case without a CAP id."""
    return [
        item("sc_direction", "1990-001", "101", ["A", "B", "C"], [0]),
        item("sc_direction", "1990-002", "102", ["A", "B", "C"], [1, 2]),
        item("sc_direction", "1990-003", None, ["A", "B", "C"], [2]),
        item("sc_state", "1990-001", "101", STATES, [6]),
        item("sc_state", "1990-002", "102", STATES, [18]),
        item("sc_state", "1990-004", "104", STATES, [0]),
    ]


def logprobs(best: int, as_string: bool = False, n: int = 30):
    """Lawma's logprobs of a >26-choice task: one CJK key per choice, in choice order."""
    value = {CJK[k]: (-0.1 if k == best else -9.5 - k) for k in range(n)}
    return repr(value) if as_string else value


def direction_rows() -> list[dict]:
    return [
        {"model_response": " A", "id": "101", "ground_truth": " A", "prompt_len": 900},
        {"model_response": " C", "id": 102, "ground_truth": [" B", " C"], "prompt_len": 900},
        {"model_response": " B", "id": "555", "ground_truth": " B", "prompt_len": 900},  # no text here
    ]


def state_rows(as_string: bool = False) -> list[dict]:
    return [
        {"model_response": "07", "id": "101", "ground_truth": " 07", "prompt_len": 502},  # LegalBERT style
        {"model_response": CJK[18], "id": "102", "ground_truth": CJK[18], "logprobs": logprobs(18, as_string),
         "prompt_len": 4000},
        {"model_response": "Nebraska, I think", "id": "104", "ground_truth": CJK[0], "logprobs": logprobs(3),
         "prompt_len": 4000},
    ]


def write_model(folder: Path, files: dict[str, object]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for task, rows in files.items():
        (folder / f"{task}.json").write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    return folder


@pytest.fixture
def model(tmp_path) -> Path:
    return write_model(tmp_path / "some-model", {"sc_direction": direction_rows(), "sc_state": state_rows()})


def by_id(predictions: list[dict]) -> dict[str, dict]:
    return {row["id"]: row for row in predictions}


def test_letters_numbers_and_choice_characters_map_to_our_labels(model):
    predictions, report = read_lawma_responses(model, records())
    rows = by_id(predictions)
    assert rows["sc_direction/1990-001"] == {"id": "sc_direction/1990-001", "prediction": "A"}
    assert rows["sc_direction/1990-002"]["prediction"] == "C"
    assert rows["sc_state/1990-001"]["prediction"] == "07"
    assert rows["sc_state/1990-002"]["prediction"] == "19"  # the 19th logprobs key -> the 19th label
    assert rows["sc_state/1990-004"] == {"id": "sc_state/1990-004", "raw": "Nebraska, I think"}
    assert report["mapped"] == {"label": 3, "logprobs": 1, "raw": 1}


@pytest.mark.parametrize("as_string", [False, True])
def test_logprobs_as_dict_or_python_repr_string(tmp_path, as_string):
    folder = write_model(tmp_path / "m", {"sc_state": state_rows(as_string)})
    predictions, report = read_lawma_responses(folder, records())
    assert by_id(predictions)["sc_state/1990-002"]["prediction"] == "19"
    assert report["mapped"]["logprobs"] == 1
    assert report["ground_truth_compared"] == 3 and report["ground_truth_disagreements"] == {}


def test_join_report_counts_rows_without_text_and_ground_truth_disagreements(tmp_path, monkeypatch):
    monkeypatch.setattr(lawma_responses, "GROUND_TRUTH_TOLERANCE", 0.5)  # 1 of 3 rows: reported, not refused
    rows = state_rows()
    rows[2]["ground_truth"] = CJK[5]  # Lawma says choice 6; our gold is choice 1
    folder = write_model(tmp_path / "m", {"sc_direction": direction_rows(), "sc_state": rows})
    predictions, report = read_lawma_responses(folder, records())
    assert len(predictions) == 5
    assert (report["rows"], report["joined"], report["no_case"], report["files"]) == (6, 5, 1, 2)
    assert report["ground_truth_compared"] == 5
    assert report["ground_truth_disagreements"] == {"sc_state": 1}
    assert report["per_task"]["sc_direction"] == {"rows": 3, "joined": 2, "other_examples": 0, "off_labels": 0,
                                                  "without_ground_truth": 0}
    line = join_summary(report)
    assert "6 rows in 2 files, 5 joined, 1 for cases without text here" in line
    assert "ground truth differs from ours on 1 row (sc_state 1)" in line


@pytest.mark.parametrize("wrong, n, refused", [(1, 50, False), (2, 50, True), (1, 3, True), (0, 3, False)])
def test_a_task_file_disagreeing_beyond_the_tolerance_is_refused(tmp_path, wrong, n, refused):
    cases = [item("sc_direction", f"1990-{k:03d}", str(100 + k), ["A", "B", "C"], [0]) for k in range(n)]
    rows = [{"model_response": " A", "id": str(100 + k), "ground_truth": " B" if k < wrong else " A"}
            for k in range(n)]
    folder = write_model(tmp_path / "m", {"sc_direction": rows, "sc_state": state_rows()})
    if not refused:
        assert read_lawma_responses(folder, cases + records()[3:])[1]["ground_truth_disagreements"].get(
            "sc_direction", 0) == wrong
        return
    with pytest.raises(DataError) as error:
        read_lawma_responses(folder, cases + records()[3:])
    message = str(error.value)
    assert f"sc_direction.json ({wrong} of {n}, {wrong / n:.1%})" in message and "more than 2%" in message
    assert "sc_state.json" not in message  # the other file agrees


def test_ground_truth_agreeing_everywhere_is_reported(model):
    _, report = read_lawma_responses(model, records())
    assert report["ground_truth_disagreements"] == {}
    assert "ground truth agrees with ours on all 5 compared rows" in join_summary(report)


def test_scored_by_the_common_evaluator_raw_miss_lowers_coverage(model):
    task = get_task("caselawqa")
    predictions, _ = read_lawma_responses(model, records())
    references = task.references([r for r in records() if r.meta["cap_case_id"] is not None])
    result, samples = score_predictions(task, predictions, references, system="some-model", split="test")
    answers = {s["id"]: s["answer"] for s in samples}
    assert answers["sc_state/1990-004"] is None  # nothing the extractor accepts: the model's miss
    assert result.coverage == pytest.approx(4 / 5)
    assert result.per_group["sc_direction"]["accuracy"] == 1.0  # "C" is one of the two gold answers
    assert result.per_group["sc_state"]["accuracy"] == pytest.approx(2 / 3)


def test_raw_fallback_goes_through_the_extractor(tmp_path):
    rows = [{"model_response": " The answer is B.", "id": "101", "ground_truth": " A"}]
    folder = write_model(tmp_path / "m", {"sc_direction": rows})
    predictions, report = read_lawma_responses(folder, records())
    task = get_task("caselawqa")
    refs = task.references(records()[:1])
    _, samples = score_predictions(task, predictions, refs)
    assert report["mapped"]["raw"] == 1 and samples[0]["answer"] == "B"


def test_a_single_task_file_is_read_as_that_task(model):
    predictions, report = read_lawma_responses(model / "sc_state.json", records())
    assert {row["id"].split("/")[0] for row in predictions} == {"sc_state"}
    assert report["files"] == 1 and report["rows"] == 3


def test_files_of_tasks_left_out_are_skipped_and_reported(model):
    chosen = [r for r in records() if r.group == "sc_state"]
    predictions, report = read_lawma_responses(model, chosen, known_tasks={"sc_state", "sc_direction"})
    assert {row["id"].split("/")[0] for row in predictions} == {"sc_state"}
    assert report["skipped_files"] == {"sc_direction": 3}
    assert "skipped 1 file of tasks not selected (sc_direction)" in join_summary(report)


def _without(key: str) -> list[dict]:
    rows = direction_rows()
    del rows[1][key]
    return rows


def _short_logprobs() -> list[dict]:
    rows = state_rows()
    rows[1]["logprobs"] = logprobs(18, n=29)
    return rows


def _no_logprobs() -> list[dict]:
    rows = state_rows()
    del rows[1]["logprobs"]
    return rows


@pytest.mark.parametrize("task, content, message", [
    ("sc_unknown", direction_rows(), "file of unknown task 'sc_unknown'"),
    ("sc_direction", {"rows": direction_rows()}, "expected a JSON list of responses"),
    ("sc_direction", _without("id"), "item [1]: no 'id'"),
    ("sc_direction", _without("model_response"), "item [1]: no 'model_response'"),
    ("sc_state", _short_logprobs(), "item [1]: 'logprobs' has 29 keys for the 30 choices"),
    ("sc_state", _no_logprobs(), "item [1]: a one-character answer needs 'logprobs'"),
    ("sc_direction", direction_rows() + [direction_rows()[0]], "item [3]: duplicate id '101'"),
])
def test_bad_input_names_the_file_and_row(tmp_path, task, content, message):
    folder = write_model(tmp_path / "m", {task: content})
    with pytest.raises(DataError) as error:
        read_lawma_responses(folder, records())
    assert message in str(error.value) and f"{task}.json" in str(error.value)


def test_no_joined_row_is_an_error(tmp_path):
    rows = [{"model_response": " A", "id": "999", "ground_truth": " A"}]
    with pytest.raises(BaselinesError, match="no response .* joins a reference.*1 for cases without text here"):
        read_lawma_responses(write_model(tmp_path / "m", {"sc_direction": rows}), records())


def without_ground_truth(rows: list[dict]) -> list[dict]:
    return [{key: value for key, value in row.items() if key != "ground_truth"} for row in rows]


def answered_state_rows() -> list[dict]:
    """state_rows() with a label for the free-text answer."""
    rows = state_rows()
    rows[2]["model_response"] = " 01"
    return rows


def test_files_without_ground_truth_are_scored_and_named_in_the_join_report(tmp_path):
    checked = write_model(tmp_path / "checked", {"sc_direction": direction_rows(), "sc_state": answered_state_rows()})
    with_truth, report = read_lawma_responses(checked, records())
    assert report["without_ground_truth"] == {} and "without ground truth" not in join_summary(report)
    folder = write_model(tmp_path / "bare", {"sc_direction": without_ground_truth(direction_rows()),
                                             "sc_state": without_ground_truth(answered_state_rows())})
    predictions, report = read_lawma_responses(folder, records())
    assert predictions == with_truth and report["ground_truth_compared"] == 0
    assert report["without_ground_truth"] == {"sc_direction": 3, "sc_state": 3}
    assert ("rows without ground truth in 2 files (sc_direction 3, sc_state 3), checked only by their labels and "
            "cases") in join_summary(report)


@pytest.mark.parametrize("responses, off", [([" A", " B", "C"], 3), (["07", " B", CJK[18]], 1),
                                            (["07", "Nebraska, I think", CJK[18]], 1), (["07", " 19", CJK[18]], 0)])
def test_without_ground_truth_responses_off_the_task_labels_are_refused(tmp_path, responses, off):
    """Letters for a numbered task betray a file of another task; with no ground truth to vouch for the file,
    free text (left to the extractor when ground truth is given) counts as off the labels too."""
    rows = without_ground_truth(state_rows())
    for row, response in zip(rows, responses):
        row["model_response"] = response
    folder = write_model(tmp_path / "m", {"sc_state": rows})
    if not off:
        assert read_lawma_responses(folder, records())[1]["without_ground_truth"] == {"sc_state": 3}
        return
    with pytest.raises(DataError) as error:
        read_lawma_responses(folder, records())
    message = str(error.value)
    assert (f"not a file of the task it is named after: sc_state.json (no ground truth, and {off} of 3 "
            f"({off / 3:.1%}) of its responses are none of the task's labels, more than 5%)") in message
    assert "\n" not in message and str(folder) in message


def test_free_text_with_ground_truth_still_goes_to_the_extractor(tmp_path):
    predictions, report = read_lawma_responses(write_model(tmp_path / "m", {"sc_state": state_rows()}), records())
    assert by_id(predictions)["sc_state/1990-004"] == {"id": "sc_state/1990-004", "raw": "Nebraska, I think"}


@pytest.mark.parametrize("truth", [True, False])
def test_a_file_holding_examples_of_another_task_is_refused_with_or_without_ground_truth(tmp_path, truth):
    """Case 104 is an example of sc_state only: a sc_direction file answering it holds another task's examples."""
    rows = direction_rows() + [{"model_response": " B", "id": "104", "ground_truth": " B"}]
    folder = write_model(tmp_path / "m", {"sc_direction": rows if truth else without_ground_truth(rows)})
    with pytest.raises(DataError, match=r"sc_direction.json \(1 of 3 \(33.3%\) of its rows on our cases are no "
                                        r"example of the task, more than 2%\)"):
        read_lawma_responses(folder, records())


def test_two_task_files_swapped_without_ground_truth_are_refused_naming_both(tmp_path):
    """sc_direction's answers under sc_state's name and the other way round: both files named, one line."""
    folder = write_model(tmp_path / "m", {"sc_state": without_ground_truth(direction_rows()),
                                          "sc_direction": without_ground_truth(state_rows())})
    with pytest.raises(DataError) as error:
        read_lawma_responses(folder, records())
    message = str(error.value)
    assert "sc_direction.json (" in message and "sc_state.json (" in message and "\n" not in message


def test_the_case_check_knows_the_cases_of_the_whole_split(tmp_path):
    """Scoring some tasks, a row on a case of another task is that task's example, not a case without text."""
    whole = records() + [item("sc_direction", "1990-005", "105", ["A", "B", "C"], [0])]
    rows = state_rows() + [{"model_response": "07", "id": "105", "ground_truth": " 07"}]
    folder = write_model(tmp_path / "m", {"sc_state": rows})
    chosen = [record for record in whole if record.group == "sc_state"]
    assert read_lawma_responses(folder, chosen)[1]["no_case"] == 1
    with pytest.raises(DataError, match=r"sc_state.json \(1 of 4 \(25.0%\) of its rows on our cases"):
        lawma_responses.lawma_predictions(folder, chosen, load_whole=lambda: whole)

# --- through run.score_file on a tiny normalized data folder ----------------------------------------------


def write_data(root: Path) -> Path:
    """<root>/caselawqa/ in the normalized layout, with CAP ids for the test cases."""
    folder = root / "caselawqa"
    folder.mkdir(parents=True)
    tasks = {"sc_direction": {"instruction": "Decide.", "question": "Which?", "choices": ["x", "y", "z"],
                              "labels": ["A", "B", "C"], "court": "sc"},
             "sc_state": {"instruction": "Decide.", "question": "Which state?",
                          "choices": [f"state {k}" for k in range(30)], "labels": STATES, "court": "sc"}}
    (folder / "tasks.json").write_text(json.dumps(tasks))
    examples = [{"id": f"{r.group}/{r.meta['case_id']}", "task": r.group, "case_id": r.meta["case_id"],
                 "answer": r.answer, "split": "test"} for r in records()]
    caps = {r.meta["case_id"]: r.meta["cap_case_id"] for r in records()}
    with gzip.open(folder / "examples.jsonl.gz", "wt") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in examples)
    with gzip.open(folder / "opinions.jsonl.gz", "wt") as handle:
        handle.writelines(json.dumps({"case_id": case, "cap_case_id": cap, "text": f"Opinion {case}."}) + "\n"
                          for case, cap in caps.items())
    return root


@pytest.fixture
def outputs(tmp_path, monkeypatch) -> Path:
    out = tmp_path / "out"
    monkeypatch.setenv("BASELINES_MODELS", str(out))
    monkeypatch.setenv("BASELINES_RESULTS", str(out))
    return out


def test_loader_carries_the_cap_case_id(tmp_path):
    items = get_task("caselawqa").load(write_data(tmp_path / "data"), "test", None)
    assert {i.id: i.meta["cap_case_id"] for i in items}["sc_state/1990-004"] == "104"
    assert {i.id: i.meta["cap_case_id"] for i in items}["sc_direction/1990-003"] is None


def test_score_file_names_the_system_after_the_folder_and_keeps_the_join(tmp_path, model, outputs):
    data = write_data(tmp_path / "data")
    result, folder = api.score("caselawqa", model, data, format="lawma", missing="wrong")
    assert result.system == "some-model" and "some-model" in str(folder)
    assert result.meta["join"]["joined"] == 5 and result.meta["join"]["no_case"] == 1
    assert result.missing == 1  # sc_direction/1990-003 has no CAP id, so no response can reach it


def test_score_file_with_tasks_skips_other_files(tmp_path, model, outputs):
    data = write_data(tmp_path / "data")
    result, _ = api.score("caselawqa", model, data, format="lawma", subtasks=["sc_state"])
    assert set(result.per_group) == {"sc_state"} and result.meta["join"]["skipped_files"] == {"sc_direction": 3}


def test_score_file_writes_nothing_on_bad_input(tmp_path, model, outputs):
    data = write_data(tmp_path / "data")
    (model / "sc_state.json").write_text(json.dumps(_no_logprobs(), ensure_ascii=False), encoding="utf-8")
    with pytest.raises(DataError, match=r"sc_state.json: item \[1\]"):
        api.score("caselawqa", model, data, format="lawma", missing="wrong")
    assert not outputs.exists() or not any(p.is_file() for p in outputs.rglob("*"))


def test_cli_prints_the_join_line(tmp_path, model, outputs):
    data = write_data(tmp_path / "data")
    outcome = CliRunner().invoke(app, ["score", "caselawqa", str(model), "--format", "lawma", "--data-dir", str(data),
                                       "--missing", "wrong"])
    assert outcome.exit_code == 0, outcome.output
    assert "responses: 6 rows in 2 files, 5 joined, 1 for cases without text here" in outcome.output


def test_cli_bad_input_is_one_line_and_exit_2(tmp_path, model, outputs):
    data = write_data(tmp_path / "data")
    (model / "sc_direction.json").write_text(json.dumps(_without("id")))
    outcome = CliRunner().invoke(app, ["score", "caselawqa", str(model), "--format", "lawma", "--data-dir", str(data)])
    assert outcome.exit_code == 2 and "sc_direction.json: item [1]: no 'id'" in outcome.output


# --- the four released systems on the real data ----------------------------------------------------------

PUBLISHED = {  # mean of per-task accuracies on our 5,039 test examples, computed independently
    "legalbert": (0.144, 37, 5039),
    "llama-3-8b-instruct": (0.363, 33, 3870),
    "llama-3-70b-instruct": (0.499, 33, 3870),
    "lawma-70b": (0.857, 33, 3870),
}


@pytest.mark.realdata
@pytest.mark.parametrize("system", sorted(PUBLISHED))
def test_released_responses_reproduce_the_reconstruction(data_dir, outputs, system):
    mean, tasks, n = PUBLISHED[system]
    folder = data_dir / "caselawqa" / "lawma-model-responses" / system
    result, _ = api.score("caselawqa", folder, data_dir, format="lawma", missing="skip")
    assert result.metrics["mean_task_accuracy"] == pytest.approx(mean, abs=0.005)
    assert (len(result.per_group), result.n, result.coverage) == (tasks, n, 1.0)
    assert result.missing == 5039 - n and result.system == system
    join = result.meta["join"]
    assert join["joined"] == n and join["rows"] == join["joined"] + join["no_case"] + join["no_example"]
    assert join["ground_truth_compared"] == n and join["ground_truth_disagreements"] == {}
