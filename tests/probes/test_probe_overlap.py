"""Probes of the overlap with training data: near-copies of training items (RR documents cut in halves or
missing their first sentence, CaselawQA items renamed or with an opinion edited) are measured, refused past the
limit, and written with --allow-overlap only, their overlap stated beside their figures; the official splits
still pass."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from conftest import run_results
from typer.testing import CliRunner

from baselines import api
from baselines.cli import app
from baselines.runs.overlap import OVERLAP_LIMIT, OVERLAP_MARK

FACTS = ["The appellant was charged with theft of a cow from the village of",
         "The prosecution examined three witnesses to prove the seizure at",
         "We have considered the evidence on record and the submissions made for",
         "Accordingly the appeal is dismissed and the conviction recorded at"]
OTHER_FACTS = ["The respondent sought a declaration of title over agricultural land near",
               "Two revenue officials deposed about the mutation entries recorded in",
               "Having heard counsel we find no infirmity in the order passed for",
               "Consequently the writ petition stands allowed and the tahsildar at"]  # another case altogether
LABELS = ["FAC", "FAC", "ANALYSIS", "RPC"]
PLACES = ["Bengaluru", "Gulbarga", "Mysore", "Dharwad", "Belgaum", "Hubli"]


def run(*args):
    return CliRunner().invoke(app, [str(arg) for arg in args])


def rr_docs(count: int, offset: int = 0, facts: list[str] = FACTS) -> list[dict]:
    """RR documents whose every sentence names its document's place and number: no two documents share one."""
    return [{"id": f"d{k}", "sentences": [f"{fact} {PLACES[k % 6]} in case {k} of {2000 + k}." for fact in facts],
             "labels": LABELS} for k in range(offset, offset + count)]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def halves(docs: list[dict]) -> list[dict]:
    """Each document cut in two documents of other ids."""
    cut = []
    for doc in docs:
        middle = len(doc["sentences"]) // 2
        for part, span in (("a", slice(None, middle)), ("b", slice(middle, None))):
            cut.append({"id": f"{doc['id']}{part}", "sentences": doc["sentences"][span], "labels": doc["labels"][span]})
    return cut


def no_runs(tmp_path: Path, task: str) -> bool:
    return not list((tmp_path / "results" / task).glob("*/*/results.json"))


@pytest.fixture
def rr_model(tmp_path) -> list[dict]:
    """An RR majority model fit on six documents; returns them."""
    docs = rr_docs(6)
    assert run("train", "rr", "--method", "majority", "--train-file", write_jsonl(tmp_path / "train.jsonl", docs),
               "--name", "m").exit_code == 0
    return docs


def test_rr_training_documents_cut_in_halves_are_refused(tmp_path, rr_model):
    cut = write_jsonl(tmp_path / "halves.jsonl", halves(rr_model))
    result = run("eval", "rr", "--method", "majority", "--name", "m", "--test-file", cut)
    assert result.exit_code == 2, result.output
    line = " ".join(result.output.split())
    assert "100.0% of the words of the 24 scored sentences of 5 words or more (24 the same once normalised" in line
    assert f"over the {OVERLAP_LIMIT:.0%} limit" in line and "--allow-overlap" in line and "models/rr/m" in line
    assert no_runs(tmp_path, "rr")


def test_rr_training_documents_without_their_first_sentence_are_refused(tmp_path, rr_model):
    shorter = [{**doc, "id": f"x{k}", "sentences": doc["sentences"][1:], "labels": doc["labels"][1:]}
               for k, doc in enumerate(rr_model)]
    result = run("eval", "rr", "--method", "majority", "--name", "m", "--test-file",
                 write_jsonl(tmp_path / "shorter.jsonl", shorter))
    assert result.exit_code == 2 and "100.0% of the words of the 18 scored sentences" in " ".join(result.output.split())
    assert no_runs(tmp_path, "rr")


def test_rr_other_documents_are_accepted_and_their_overlap_recorded(tmp_path, rr_model):
    """Other documents sharing one boilerplate sentence of 5 words or more with the training ones: measured,
    within the limit, accepted without any option and not marked."""
    others = rr_docs(10, offset=100, facts=OTHER_FACTS)  # documents of another case (those of one template with
    others[0]["sentences"][0] = rr_model[0]["sentences"][0].upper() + "  "  # other numbers are near-duplicates)
    result = run("eval", "rr", "--method", "majority", "--name", "m", "--test-file",
                 write_jsonl(tmp_path / "others.jsonl", others))
    assert result.exit_code == 0, result.output
    overlap = run_results("rr", "m")["meta"]["train_overlap"]
    shared_words = len(rr_model[0]["sentences"][0].split())  # the one sentence the model was fit on
    assert overlap["exact_units"] == 1 and overlap["scored_units"] == 40
    assert overlap["exact_words"] == overlap["overlapping_words"] == shared_words
    assert overlap["overlap"] == round(shared_words / overlap["scored_words"], 4) < 0.05
    assert overlap["near_duplicates"] == 0 and not overlap["over_limit"] and "allowed" not in overlap
    assert OVERLAP_MARK not in result.output
    assert f"{100 * overlap['overlap']:.1f}% of the words of the 40 scored sentences" in " ".join(result.output.split())


def test_allow_overlap_writes_the_run_and_every_table_states_the_overlap(tmp_path, rr_model):
    cut = write_jsonl(tmp_path / "halves.jsonl", halves(rr_model))
    result = run("eval", "rr", "--method", "majority", "--name", "m", "--test-file", cut, "--allow-overlap")
    assert result.exit_code == 0, result.output
    overlap = run_results("rr", "m")["meta"]["train_overlap"]
    assert overlap["overlap"] == 1.0 and overlap["allowed"] is True and overlap["over_limit"] is True
    assert overlap["exact_units"] == overlap["scored_units"] == 24 and overlap["units"] == "sentences"
    assert f"weighted_f1 * {OVERLAP_MARK}" in result.output and f"{OVERLAP_MARK} train overlap" in result.output
    assert f"{OVERLAP_MARK} train overlap: 100.0% of the words of the 24 scored sentences" in " ".join(result.output.split())
    shown = run("compare", "rr", "--test-file", "halves.jsonl", "--markdown-only")
    assert shown.exit_code == 0, shown.output
    row = next(line for line in shown.output.splitlines() if line.startswith("| 1 | m |"))
    assert f" {OVERLAP_MARK} |" in row
    assert (f"- {OVERLAP_MARK} m: overlap with the model's training data: 100.0% of sentences (written with "
            "--allow-overlap)") in shown.output
    assert run("compare", "rr", "--test-file", "halves.jsonl", "--out", tmp_path / "board").exit_code == 0
    assert f"{OVERLAP_MARK} m: overlap" in next((tmp_path / "board").glob("*.md")).read_text()
    csv_lines = next((tmp_path / "board").glob("rr*.csv")).read_text().splitlines()
    header, first = csv_lines[0].split(","), csv_lines[1].split(",")
    assert float(first[header.index("train_overlap")]) == 1.0


def test_score_refuses_predictions_on_the_writers_training_items_unless_allowed(tmp_path, rr_model):
    cut = write_jsonl(tmp_path / "halves.jsonl", halves(rr_model))
    assert run("eval", "rr", "--method", "majority", "--name", "m", "--test-file", cut,
               "--allow-overlap").exit_code == 0
    predictions = next((tmp_path / "results" / "rr" / "m").glob("*/predictions.jsonl"))
    result = run("score", "rr", predictions, "--test-file", cut, "--name", "again")
    assert result.exit_code == 2 and "100.0% of the words of the 24 scored sentences" in " ".join(result.output.split())
    assert no_runs(tmp_path, "rr") is False and not (tmp_path / "results" / "rr" / "again").exists()
    result = run("score", "rr", predictions, "--test-file", cut, "--name", "again", "--allow-overlap")
    assert result.exit_code == 0, result.output
    assert run_results("rr", "again")["meta"]["train_overlap"]["overlap"] == 1.0


def test_a_model_saved_before_unit_digests_is_checked_on_whole_items_and_says_so(tmp_path, rr_model):
    digests = tmp_path / "models" / "rr" / "m" / "fit_items.json"
    fitted = json.loads(digests.read_text())
    digests.write_text(json.dumps({"ids": fitted["ids"], "texts": fitted["texts"]}))  # an earlier release's file
    result = run("eval", "rr", "--method", "majority", "--name", "m", "--test-file", tmp_path / "train.jsonl")
    assert result.exit_code == 2 and "was fit on 6 of the 6 scored items" in result.output
    cut = write_jsonl(tmp_path / "halves.jsonl", halves(rr_model))
    result = run("eval", "rr", "--method", "majority", "--name", "m", "--test-file", cut)
    assert result.exit_code == 0, result.output
    overlap = run_results("rr", "m")["meta"]["train_overlap"]
    assert "overlap" not in overlap and "only whole items" in overlap["note"]
    assert "only whole items" in " ".join(result.output.split())


def test_an_unreadable_fit_items_file_is_one_line_naming_it(tmp_path, rr_model):
    digests = tmp_path / "models" / "rr" / "m" / "fit_items.json"
    digests.write_text(json.dumps({**json.loads(digests.read_text()), "units": "not hex"}))
    result = run("eval", "rr", "--method", "majority", "--name", "m", "--test-file", tmp_path / "train.jsonl")
    assert result.exit_code == 2 and "fit_items.json: expected" in result.output
    assert len(result.output.strip().splitlines()) == 1 and no_runs(tmp_path, "rr")


def test_the_api_takes_allow_overlap(tmp_path, rr_model):
    from baselines.core.errors import BaselinesError
    from baselines.runs import run as run_module

    cut = write_jsonl(tmp_path / "halves.jsonl", halves(rr_model))
    with pytest.raises(BaselinesError, match="over the 10% limit"):
        api.evaluate("rr", "majority", test_file=cut, name="m")
    result, folder = api.evaluate("rr", "majority", test_file=cut, name="m", allow_overlap=True)
    assert result.meta["train_overlap"]["overlap"] == 1.0 and (folder / "results.json").is_file()


def caselawqa_copies(tmp_path: Path, edit) -> tuple[Path, Path]:
    """(the toy CaselawQA data, the same data whose test split is its train split under other case ids, each
    opinion changed by `edit`)."""
    from caselawqa_fixtures import toy_cases, toy_tasks, write_normalized

    original = write_normalized(tmp_path / "original")
    opinions, examples = toy_cases()
    copies = [{**row, "id": f"{row['task']}/copy-{row['case_id']}", "case_id": f"copy-{row['case_id']}",
               "split": "test"} for row in examples if row["split"] == "train"]
    texts = {**opinions, **{f"copy-{case}": edit(text) for case, text in opinions.items()}}
    folder = tmp_path / "copied" / "caselawqa"
    folder.mkdir(parents=True)
    (folder / "tasks.json").write_text(json.dumps(toy_tasks()))
    with gzip.open(folder / "examples.jsonl.gz", "wt") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in examples if row["split"] != "test")
        handle.writelines(json.dumps(row) + "\n" for row in copies)
    with gzip.open(folder / "opinions.jsonl.gz", "wt") as handle:
        handle.writelines(json.dumps({"case_id": case, "text": text}) + "\n" for case, text in texts.items())
    return original, folder.parent


def test_caselawqa_train_items_renamed_with_a_dot_appended_are_refused(tmp_path):
    original, copied = caselawqa_copies(tmp_path, lambda text: text + " .")
    assert run("train", "caselawqa", "--method", "majority", "--data-dir", original).exit_code == 0
    result = run("eval", "caselawqa", "--method", "majority", "--data-dir", copied)
    assert result.exit_code == 2, result.output
    assert "100.0% of the words of the 120 scored opinions of 5 words or more (120 the same once normalised" in \
        " ".join(result.output.split())
    assert no_runs(tmp_path, "caselawqa")
    assert run("eval", "caselawqa", "--method", "majority", "--data-dir", copied, "--allow-overlap").exit_code == 0
    overlap = run_results("caselawqa", "majority")["meta"]["train_overlap"]
    assert overlap["overlap"] == 1.0 and overlap["units"] == "opinions" and overlap["allowed"] is True


def test_caselawqa_opinions_lightly_edited_are_near_duplicates(tmp_path):
    """One word changed in every opinion: no opinion is the same, each is a near-duplicate of its original."""
    original, copied = caselawqa_copies(tmp_path, lambda text: text.replace("the opinion of", "the judgment of"))
    assert run("train", "caselawqa", "--method", "majority", "--data-dir", original).exit_code == 0
    result = run("eval", "caselawqa", "--method", "majority", "--data-dir", copied)
    assert result.exit_code == 2, result.output
    assert "(0 the same once normalised, 30 of the 30 opinions near-duplicates)" in " ".join(result.output.split())


def test_caselawqa_test_split_of_other_cases_is_accepted(tmp_path):
    original, _ = caselawqa_copies(tmp_path, lambda text: text)
    assert run("train", "caselawqa", "--method", "majority", "--data-dir", original).exit_code == 0
    assert run("eval", "caselawqa", "--method", "majority", "--data-dir", original).exit_code == 0
    overlap = run_results("caselawqa", "majority")["meta"]["train_overlap"]
    assert overlap["overlap"] == 0.0 and overlap["scored_documents"] == 12 and overlap["near_duplicates"] == 0


@pytest.mark.realdata
def test_real_rr_train_documents_cut_or_shortened_are_refused_and_dev_passes(data_dir, tmp_path):
    """On LegalEval: the train documents cut in halves, or without their first sentence, are refused (nearly all
    their sentences are training sentences); the dev split passes with its natural overlap measured."""
    from baselines.tasks.rr.data import load_rr

    assert run("train", "rr", "--method", "majority", "--data-dir", data_dir).exit_code == 0
    docs = [{"id": f"t{doc.id}", "sentences": [s.text for s in doc.sentences],
             "labels": [s.label for s in doc.sentences]} for doc in load_rr(data_dir, "train")]
    for name, rows in (("halves", halves(docs)),
                       ("shorter", [{**d, "sentences": d["sentences"][1:], "labels": d["labels"][1:]} for d in docs])):
        result = run("eval", "rr", "--method", "majority", "--test-file", write_jsonl(tmp_path / f"{name}.jsonl", rows))
        assert result.exit_code == 2 and "100.0% of the" in " ".join(result.output.split()), (name, result.output)
    assert no_runs(tmp_path, "rr")
    assert run("eval", "rr", "--method", "majority", "--data-dir", data_dir).exit_code == 0
    overlap = run_results("rr", "majority")["meta"]["train_overlap"]  # 3 dev judgments of the train's excise templates
    assert 0 < overlap["overlap"] < OVERLAP_LIMIT and overlap["near_duplicates"] <= 3 and overlap["exact_units"] > 0


@pytest.mark.realdata
def test_real_caselawqa_test_split_passes_and_renamed_train_items_do_not(data_dir, tmp_path):
    """On CaselawQA (three tasks): the test split passes, its shared one-line per curiam opinions measured
    within the limit; the train items under other ids are refused."""
    from baselines.runs import run as run_module
    from baselines.runs import training
    from baselines.core.errors import BaselinesError

    tasks = {"subtasks": ["sc_petitioner", "sc_respondentstate", "sc_authoritydecision"]}
    training.train("caselawqa", "majority", data_dir, load_options=tasks)
    result, _ = api.evaluate("caselawqa", "majority", data_dir, subtasks=tasks["subtasks"])
    overlap = result.meta["train_overlap"]
    assert 0 < overlap["overlap"] < OVERLAP_LIMIT and overlap["units"] == "opinions", overlap
    train = run_module.load_split(run_module.get_task("caselawqa"), data_dir, "train", **tasks)
    from baselines.runs.in_sample import train_overlap

    renamed = [type(item)(**{**vars(item), "id": f"x/{k}", "context": item.context + " .",
                             "meta": {**item.meta, "case_id": f"x{k}"}}) for k, item in enumerate(train[:500])]
    with pytest.raises(BaselinesError, match=r"100\.0% of the words of the 500 scored opinions"):
        train_overlap(tmp_path / "models" / "caselawqa" / "majority", renamed, run_module.get_task("caselawqa"),
                      split=None)


@pytest.mark.realdata
def test_real_scalr_cross_validation_stays_accepted(data_dir):
    assert run("eval", "scalr", "--method", "majority", "--cv", "5", "--data-dir", data_dir).exit_code == 0
    assert run_results("scalr", "majority")["meta"]["train_overlap"]["out_of_fold"] is True
