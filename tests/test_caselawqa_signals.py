"""CaselawQA `signals`: choice-name matching, the combination of signals, and training without the test examples."""
import gzip
import json

import numpy as np
import pytest

from baselines import api
from baselines.tasks.caselawqa.aliases import Matcher, trie_pattern
from baselines.tasks.caselawqa.choose import Grids, ValChooser
from baselines.tasks.caselawqa.combine import TaskParts, Weights, prior_shift, task_scores

COURTS = ["U.S. Court of Appeals, First Circuit", "U.S. Court of Appeals, Ninth Circuit",
          "U.S. Court of Appeals, Tenth Circuit", "California Northern U.S. District Court", "State Supreme Court"]


def test_courts_are_found_in_prose_bluebook_and_reporter_forms():
    text = ("We granted certiorari to review a judgment of the Court of Appeals for the Ninth Circuit, 9 F.3d 1 (CA9 "
            "1993). The District Court for the Northern District of California had dismissed, 1 F. Supp. 2 (ND Cal. "
            "1992). Compare Smith v. Jones, 5 F.3d 6 (CA10 1993), and the Supreme Court of Ohio.")
    counts = Matcher("sc_casesource", COURTS).counts(text)
    assert counts[:, 0].tolist() == [0, 2, 1, 2, 1]  # CA10 is the Tenth Circuit, never the First
    assert counts[1, 2] == 2  # both Ninth Circuit mentions stand near the word "Court"


def test_state_aliases_match_whole_words_across_line_breaks():
    matcher = Matcher("sc_petitionerstate", ["California", "New York", "United States"])
    counts = matcher.counts("The State of California and Cal. Penal Code 1; a New\nYork statute; Californian law.")
    assert counts[:, 0].tolist() == [2, 1, 0]
    assert matcher.has_alias.tolist() == [True, True, False]  # "United States" is no state name to look for


def test_trie_pattern_prefers_the_longest_alias():
    import re

    pattern = re.compile(trie_pattern(["CA1", "CA10", "D.C."]))
    assert [m.group(0) for m in pattern.finditer("CA10 CA1 D.C.")] == ["CA10", "CA1", "D.C."]


def test_prior_shift_moves_train_shares_to_a_majority_capped_at_half():
    shift = prior_shift([0] * 8 + [1] * 2, 2)
    shares = np.array([8.5, 2.5]) / 11
    assert np.allclose(np.log(shares) + shift, np.log([0.5, 0.5]))
    assert not prior_shift([0, 1, 2, 0, 1, 2], 3).any()  # no majority above half: nothing to move


def test_mentions_outweigh_a_weak_head_only_with_weight():
    parts = TaskParts(head=np.array([[0.55, 0.45]]), mentions=np.array([[0.0, 3.0]]))
    assert np.argmax(task_scores(parts, Weights())) == 0
    assert np.argmax(task_scores(parts, Weights(mentions=0.5))) == 1


def _chooser(mentions):
    rng = np.random.default_rng(0)
    answers = [[int(a)] for a in rng.integers(0, 3, 60)]
    head = np.full((60, 3), 1 / 3) + rng.normal(0, 0.01, (60, 3))
    parts = {"sc_petitionerstate": TaskParts(head, mentions=mentions(answers, rng))}
    return ValChooser(parts, {"sc_petitionerstate": answers})


def test_val_chooser_weights_mentions_only_where_they_help():
    def informative(answers, rng):
        return np.eye(3)[[a[0] for a in answers]] * 2.0

    def noise(answers, rng):
        return rng.normal(0, 1, (len(answers), 3))

    grids = Grids(prior=(0.0,))
    weights, steps = _chooser(informative).choose(grids, min_val=30)
    assert weights["sc_petitionerstate"].mentions > 0 and steps["+mentions"] == 1.0
    assert weights["sc_petitionerstate"].val["combined"] == 1.0
    weights, _ = _chooser(noise).choose(grids, min_val=30)
    assert weights["sc_petitionerstate"].mentions == 0


SMALL = {"n_features": 4096, "min_df": 1, "k_features": 500, "Cs": [0.3, 1.0], "window_min_df": 1, "n_jobs": 1,
         "min_train": 10}


def test_signals_through_a_dask_cluster_records_its_val_choices(tmp_path):
    from caselawqa_fixtures import dask_scheduler, write_normalized

    from baselines.runs import training

    root = write_normalized(tmp_path)
    with dask_scheduler() as address:
        overrides = {**SMALL, "backend": "dask", "scheduler": address}
        folder = training.train("caselawqa", "signals", root, overrides=overrides)
    chosen = json.loads((folder / "signals.json").read_text())
    assert set(chosen["tasks"]) == {"sc_direction", "sc_authority", "sc_state", "sc_constant"}
    assert all("combined" in task["val"] for task in chosen["tasks"].values())
    result, _ = api.evaluate("caselawqa", "signals", root)
    assert result.per_group["sc_direction"]["accuracy"] == 1.0


def _rotate_test_answers(root):
    """The test answers of a normalized CaselawQA folder replaced by other choices."""
    path = root / "caselawqa" / "examples.jsonl.gz"
    with gzip.open(path, "rt") as handle:
        rows = [json.loads(line) for line in handle]
    for row in rows:
        if row["split"] == "test":
            row["answer"] = [row["answer"][0] + 1]
    with gzip.open(path, "wt") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in rows)


@pytest.mark.parametrize("method", ["signals", "readers"])
def test_test_answers_change_nothing_and_a_record_is_answered_from_its_own_opinion(tmp_path, method):
    from caselawqa_fixtures import write_normalized

    from baselines.methods.base import Method
    from baselines.runs import training
    from baselines.tasks.caselawqa.data import load_caselawqa

    folders = []
    for name in ("true", "rotated"):
        root = write_normalized(tmp_path / name)
        if name == "rotated":
            _rotate_test_answers(root)
        folders.append(training.train("caselawqa", method, root, overrides={**SMALL, "backend": "sequential"}))
    test = load_caselawqa(tmp_path / "true", "test")
    true, rotated = (Method.load(folder) for folder in folders)
    together = true.predict(test)
    assert together == rotated.predict(test)
    assert together == [row for item in test for row in true.predict([item])]  # alone, or with any others


SMALL_TASKS = ["sc_adminactionstate", "sc_issue_3", "sc_caseoriginstate"]


def _copy_without_test(data_dir, folder):
    """A CaselawQA folder holding the small tasks' train and val examples only (the opinions file is linked)."""
    source, target = data_dir / "caselawqa", folder / "caselawqa"
    target.mkdir(parents=True)
    (target / "tasks.json").write_bytes((source / "tasks.json").read_bytes())
    (target / "opinions.jsonl.gz").symlink_to(source / "opinions.jsonl.gz")
    with gzip.open(source / "examples.jsonl.gz", "rt") as rows, gzip.open(target / "examples.jsonl.gz", "wt") as out:
        kept = [line for line in rows if json.loads(line)["split"] != "test"]
        out.writelines(kept)
    return folder


@pytest.mark.realdata
@pytest.mark.slow
@pytest.mark.parametrize("method", ["signals", "readers"])
def test_training_without_the_test_examples_gives_the_same_test_predictions(data_dir, tmp_path, method):
    from baselines.methods.base import Method
    from baselines.runs import training
    from baselines.tasks.caselawqa.data import load_caselawqa

    subset = {"subtasks": SMALL_TASKS}
    folders = []
    for name, root in (("full", data_dir), ("no-test", _copy_without_test(data_dir, tmp_path / "data"))):
        folders.append(training.train("caselawqa", method, root, overrides={"backend": "sequential"}, name=name,
                                      load_options=subset))
    test = load_caselawqa(data_dir, "test", subtasks=SMALL_TASKS)
    full, without = (Method.load(folder).predict(test) for folder in folders)
    assert [row["id"] for row in full] == [item.id for item in test]
    assert full == without
    chosen = json.loads((folders[0] / "signals.json").read_text())
    assert set(chosen["tasks"]) == set(SMALL_TASKS) and "state" in chosen["mention_models"]
