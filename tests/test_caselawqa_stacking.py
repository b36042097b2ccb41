"""CaselawQA `stacked`: what the reasons readers read in inline opinions, that the stacked heads' training
features are cross-fitted, and that the method answers each record from its own opinion."""
from __future__ import annotations

import gzip
import json
import random
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from baselines.tasks.caselawqa.dependencies import DEPENDENCIES, Inputs, source_tasks, stacked_tasks
from baselines.tasks.caselawqa.heads import Head, HeadConfig, fit_head_scored
from baselines.tasks.caselawqa.reasons import (cert_reason_tokens, division_below_tokens, overruled_tokens,
                                               unconstitutional_tokens)
from baselines.tasks.caselawqa.stacking import cross_fitted, opinion_folds, stack_matrix


def test_the_cert_grant_and_the_conflict_it_resolves_are_read():
    tokens = set(cert_reason_tokens("We granted certiorari, 498 U. S. 807 (1990), to resolve the conflict among the "
                                    "Courts of Appeals on the question."))
    assert {"cert_kind_certiorari", "cert_a_resolve", "cert_a_conflict", "cert_a2_the_conflict",
            "conflict_courts_federal"} <= tokens
    appeal = set(cert_reason_tokens("We noted probable jurisdiction. The state courts are in conflict."))
    assert {"cert_kind_appeal", "conflict_courts_state"} <= appeal and "cert_kind_certiorari" not in appeal
    assert "cert_kind_none" in cert_reason_tokens("The judgment is affirmed.")
    assert "cert_important" in cert_reason_tokens("We granted certiorari because of the importance of the issue.")


def test_a_division_below_is_read_and_this_courts_own_dissents_are_not():
    tokens = division_below_tokens("A divided panel of the Court of Appeals reversed. Judge Walker dissented.")
    assert {"div_divided_below", "div_judge_below", "div_count_2"} <= set(tokens)
    ours = division_below_tokens("JUSTICE STEVENS, dissenting. The judgment is affirmed by an equally divided Court.")
    assert "div_dissent" not in ours and "div_equal" in ours and "div_count_1" in ours
    assert division_below_tokens("The Court of Appeals affirmed.") == ["div_count_0"]


def test_a_law_held_invalid_is_read_with_its_kind_and_who_holds_it():
    tokens = set(unconstitutional_tokens("We hold that the Ohio statute violates the First Amendment."))
    assert {"unc_pos", "unc_by_we_pos", "unc_law_state_pos", "unc_w_ohio"} <= tokens
    refused = set(unconstitutional_tokens("The Court of Appeals held that the Act of Congress is not "
                                          "unconstitutional."))
    assert {"unc_neg", "unc_law_federal_neg", "unc_by_below_neg"} <= refused and "unc_pos" not in refused


def test_an_overruling_and_a_refusal_to_overrule_are_told_apart():
    tokens = overruled_tokens("Today we overrule Smith v. Jones, 400 U. S. 1 (1971).")
    assert {"ovr_pos", "ovr_we_pos", "ovr_case_pos", "ovr_a_smith", "ovr_count_1"} <= set(tokens)
    refused = overruled_tokens("We decline to overrule Roe.")
    assert "ovr_neg" in refused and "ovr_pos" not in refused


def test_dependencies_name_tasks_and_drop_sources_not_trained():
    for task, inputs in DEPENDENCIES.items():
        assert task not in inputs.sources
        assert all(a in inputs.sources + (task,) and b in inputs.sources + (task,) for a, b in inputs.crosses)
    direction = stacked_tasks({"sc_decisiondirection", "sc_issuearea", "sc_partywinning"})
    assert direction == {"sc_decisiondirection": Inputs(("sc_issuearea", "sc_partywinning"),
                                                        (("sc_issuearea", "sc_partywinning"),), ())}
    assert source_tasks(direction) == ["sc_decisiondirection", "sc_issuearea", "sc_partywinning"]


def _source(n_opinions: int = 60, seed: int = 0):
    """A 3-choice source task over random sparse opinions, its answers readable from column `answer`."""
    rng = np.random.default_rng(seed)
    answers = [[int(a)] for a in rng.integers(0, 3, n_opinions)]
    X = sp.random(n_opinions, 40, density=0.2, random_state=seed, format="csr")
    X[np.arange(n_opinions), [a[0] for a in answers]] = 3.0
    config = HeadConfig(Cs=(1.0,), class_weights=(None,), min_train=5)
    head, _ = fit_head_scored("sc_source", 3, config, X, answers, X[:20], answers[:20])
    assert head.model is not None
    return X, answers, config, head


def test_the_stacked_heads_train_features_are_cross_fitted():
    """An opinion's out-of-fold distribution comes from heads that never saw its answer: changing the answers of
    one fold's opinions leaves that fold's distributions as they were, and changes the others'."""
    X, answers, config, head = _source()
    keys = [f"opinion {k}" for k in range(X.shape[0])]
    fold = opinion_folds(keys, 5)
    assert len(np.bincount(fold)) == 5 and np.bincount(fold).min() >= 6  # every fold holds opinions
    reordered = opinion_folds(keys[::-1] + ["another opinion"], 5)  # the same key, the same fold, in any company
    assert np.array_equal(reordered[:X.shape[0]][::-1], fold)
    rows = list(range(X.shape[0]))
    out_of_fold = cross_fitted(head, config, X, rows, answers, fold)
    held = np.flatnonzero(fold == 2)
    changed = [[(a[0] + 1) % 3] if fold[i] == 2 else a for i, a in enumerate(answers)]
    again = cross_fitted(head, config, X, rows, changed, fold)
    assert np.array_equal(out_of_fold[held], again[held])
    assert not np.allclose(np.delete(out_of_fold, held, axis=0), np.delete(again, held, axis=0))
    assert out_of_fold.shape == (60, 3) and np.allclose(out_of_fold.sum(axis=1), 1)


def test_stacked_features_hold_own_and_source_distributions_their_cross_and_tags():
    sources = {"sc_t": np.array([[0.2, 0.8], [0.6, 0.4]]), "sc_a": np.array([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]])}
    tags = {"overruled": sp.csr_matrix(np.array([[1.0, 0.0], [0.0, 2.0]]))}
    F = stack_matrix("sc_t", Inputs(("sc_a",), (("sc_t", "sc_a"),), ("overruled",)), sources, tags, [1])
    expected = [0.6, 0.4, 0.0, 0.5, 0.5, 0.0, 0.3, 0.3, 0.0, 0.2, 0.2, 0.0, 2.0]
    assert np.allclose(F.toarray(), [expected])


DEFINITIONS = {  # the question and choices of three Supreme Court tasks, as Lawma defines them: recognised as those
    "sc_casedisposition": (  # tasks, their codebook readers and stacked heads are read
        "What is the disposition of the case, that is, the treatment the Supreme Court accorded the court whose "
        "decision it reviewed?",
        ["stay, petition, or motion granted", "affirmed (includes modified)", "reversed", "reversed and remanded",
         "vacated and remanded", "affirmed and reversed (or vacated) in part",
         "affirmed and reversed (or vacated) in part and remanded", "vacated", "petition denied or appeal dismissed",
         "certification to or from a lower court", "no disposition"]),
    "sc_partywinning": (
        "Consider that the petitioning party lost if the Supreme Court affirmed or dismissed the case, or denied the "
        "petition. Consider that the petitioning party won in part or in full if the Supreme Court reversed, "
        "reversed and remanded, vacated and remanded, affirmed and reversed in part, affirmed and reversed in part "
        "and remanded, or vacated the case. Did the petitioning win the case?", ["Yes", "No"]),
    "sc_lcdisagreement": (
        "Does the court opinion mention that one or more of the members of the court whose decision the Supreme "
        "Court reviewed dissented?", ["Yes", "No"]),
}
DISPOSITIONS = [("affirmed", 1), ("reversed", 2), ("vacated", 7)]  # word in the opinion, index of its choice


def _write_toy(root, seed: int = 0, rotate_test: bool = False):
    """Toy CaselawQA data of three tasks the codebook ties together: the disposition is written in the opinion,
    the party winning follows from it, and the court below's division is stated in words the reader reads; with
    `rotate_test`, every test answer replaced by another choice."""
    rng = random.Random(seed)
    tasks = {task: DEFINITIONS[task][1] for task in DEFINITIONS}
    folder = root / "caselawqa"
    folder.mkdir(parents=True)
    (folder / "tasks.json").write_text(json.dumps({
        task: {"instruction": "Decide.", "question": question, "choices": choices,
               "labels": [chr(65 + k) for k in range(len(choices))], "court": "sc", "multi_label": False}
        for task, (question, choices) in DEFINITIONS.items()}))
    opinions, examples = {}, []
    for k in range(90):
        split = "train" if k < 60 else "val" if k < 75 else "test"
        disposition, divided = k % 3, rng.random() < 0.5
        words = " ".join(rng.choice(["statute", "court", "claim", "trial", "record"]) for _ in range(60))
        below = "A divided panel of the Court of Appeals ruled. Judge Roe dissented." if divided else "The panel ruled."
        opinions[f"c{k}"] = f"{below} {words} The judgment is {DISPOSITIONS[disposition][0]}."
        answers = {"sc_casedisposition": DISPOSITIONS[disposition][1], "sc_partywinning": int(disposition == 0),
                   "sc_lcdisagreement": int(not divided)}
        if rotate_test and split == "test":
            answers = {task: (answer + 1) % len(tasks[task]) for task, answer in answers.items()}
        examples += [{"id": f"{task}/c{k}", "task": task, "case_id": f"c{k}", "answer": [answer], "split": split}
                     for task, answer in answers.items()]
    with gzip.open(folder / "examples.jsonl.gz", "wt") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in examples)
    with gzip.open(folder / "opinions.jsonl.gz", "wt") as handle:
        handle.writelines(json.dumps({"case_id": c, "text": t}) + "\n" for c, t in opinions.items())
    return root


SMALL = {"n_features": 4096, "min_df": 1, "k_features": 500, "Cs": [0.3, 1.0], "window_min_df": 1, "n_jobs": 1,
         "min_train": 10, "stack_Cs": [1.0], "stack_min_df": 1, "backend": "sequential"}


def test_stacked_heads_are_fit_saved_and_answer_each_record_from_its_own_opinion(tmp_path):
    from baselines.methods.base import Method
    from baselines.runs import training
    from baselines.tasks.caselawqa.data import load_caselawqa

    folder = training.train("caselawqa", "stacked", _write_toy(tmp_path / "data"), overrides=SMALL)
    summary = json.loads((folder / "signals.json").read_text())
    assert "+stacked" in summary["val_mean_after_each_lever"]
    chosen = summary["tasks"]
    assert chosen["sc_partywinning"]["stacked_head"]["sources"] == ["sc_casedisposition"]
    assert chosen["sc_lcdisagreement"]["stacked_head"]["readers"] == ["division_below"]
    assert "stacked_head" not in chosen.get("sc_issuearea", {})
    model = Method.load(folder)
    assert isinstance(model.stack_heads_["sc_partywinning"], Head)
    test = load_caselawqa(tmp_path / "data", "test")
    together = model.predict(test)
    assert together == [row for item in test for row in model.predict([item])]  # alone, or with any others
    party = [item for item in test if item.group == "sc_partywinning"]
    before = _stacked_view(model, party)
    # the final combination of a source may move (choosing the stacked view's weight moves head weights): the
    # stacked heads still read the sources as they were fit on them
    model.weights_["sc_casedisposition"] = replace(model.weights_["sc_casedisposition"], head=7.0, windows=3.0)
    assert np.allclose(_stacked_view(model, party), before)
    rotated = training.train("caselawqa", "stacked", _write_toy(tmp_path / "rotated", rotate_test=True),
                             overrides=SMALL, name="rotated")
    assert Method.load(rotated).predict(test) == together  # no test answer is read


def _stacked_view(model, records):
    from baselines.tasks.caselawqa.common import by_task, unique_opinions

    _, texts, rows = unique_opinions(records)
    groups = by_task(list(zip(records, rows)), key=lambda pair: pair[0].group)
    return model._reader_scores(texts, model._matrices(records), groups)["stacked"]["sc_partywinning"]


def test_the_stacked_method_and_its_noprior_twin_are_registered():
    from baselines.core.config import config_file, read_config
    from baselines.registry import method_entries

    assert "stacked" in {entry.name for entry in method_entries("caselawqa")}
    assert read_config(config_file("caselawqa", "stacked-noprior")) == {"prior_weights": [0.0]}
