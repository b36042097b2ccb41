"""Probe: a value that cannot be a log-likelihood (infinite, 1e309, or above 0: a probability above 1) in an
lm-evaluation-harness multiple-choice log is no answer for its sample, never the model's choice."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_results
from typer.testing import CliRunner

from baselines.cli import app
from baselines.evaluation.harness_logs import rows_from_lm_eval

N = 5  # questions of the tiny SCALR file; gold of question k is k


def sample_line(k: int, logprobs: list[str]) -> str:
    """The JSON line of a harness multiple-choice sample of question k, each logprob written as given: a JSON
    number (1e309 reads as infinity) or a quoted string as harness v0.4.3+ writes them ("inf", "0.5")."""
    doc = {"index": f"q{k}", "question": f"Question {k}?", "answer": str(k)}
    arguments = {f"gen_args_{c}": {"arg_0": "Answer:", "arg_1": f" {'ABCDE'[c]}"} for c in range(5)}
    pairs = ", ".join(f"[{value}, \"False\"]" for value in logprobs)
    return (f'{{"doc_id": {k}, "doc": {json.dumps(doc)}, "target": "{k}", "filter": "none", '
            f'"arguments": {json.dumps(arguments)}, "resps": [{pairs}], "filtered_resps": [{pairs}]}}\n')


def chosen(logprobs: list[str]):
    line = sample_line(0, logprobs)
    return rows_from_lm_eval([(1, json.loads(line))], Path("samples_scalr.jsonl"))[0]["choice"]


@pytest.mark.parametrize("best", ["1e309", '"inf"', '"Infinity"', "0.5", '"1e-9"', "12"])
def test_an_impossible_highest_loglikelihood_is_no_answer(best):
    """An infinite or positive value, the highest of the sample, was taken as the model's choice."""
    assert chosen([best, "-1.0", "-2.0", "-3.0", "-4.0"]) is None


@pytest.mark.parametrize("other", ["-1e309", '"-inf"', '"nan"', "0.25"])
def test_any_impossible_loglikelihood_leaves_the_sample_without_an_answer(other):
    """One value that is no log-likelihood, even below the best, makes the sample's numbers untrustworthy."""
    assert chosen(["-0.5", "-1.0", other, "-3.0", "-4.0"]) is None


@pytest.mark.parametrize("logprobs, expected", [
    (["0", "-1.0", "-2.0", "-3.0", "-4.0"], 0),  # probability 1
    (['"-0.0"', '"-7.5"', '"-0.25"', '"-3"', '"-1e300"'], 0),
    (["-9.5", "-1.0", "-2.0", "-0.125", "-4.0"], 3),
])
def test_finite_loglikelihoods_of_at_most_0_still_choose(logprobs, expected):
    assert chosen(logprobs) == expected


def test_impossible_loglikelihoods_count_as_no_answer_from_the_cli(tmp_path):
    """Through `baselines score`: a log of only impossible values is refused as no answer; beside real answers
    those samples are wrong and lower the coverage."""
    questions = tmp_path / "tiny.jsonl"
    questions.write_text("".join(json.dumps({"index": f"q{k}", "question": f"Question {k}?", "answer": str(k),
                                             **{f"choice_{c}": f"holding {k}-{c}" for c in range(5)}}) + "\n"
                                 for k in range(N)))
    impossible = ["1e309", "-1.0", "-2.0", "-3.0", "-4.0"]
    log = tmp_path / "samples_scalr_mc.jsonl"
    log.write_text("".join(sample_line(k, impossible) for k in range(N)))
    command = ["score", "scalr", str(log), "--test-file", str(questions), "--name", "mc"]
    outcome = CliRunner().invoke(app, command)
    assert outcome.exit_code == 2 and "no answer" in outcome.output, outcome.output
    right = [str(-5.0 + (c == 4)) for c in range(5)]  # question 4, gold 4
    log.write_text("".join(sample_line(k, right if k == 4 else impossible) for k in range(N)))
    assert CliRunner().invoke(app, command).exit_code == 0
    saved = run_results("scalr", "mc")
    assert saved["coverage"] == 0.2 and saved["metrics"]["accuracy"] == 0.2
