"""The Python API: `from baselines import train, evaluate, score, compare`, end to end on tiny SCALR files."""
import json
import subprocess
import sys

import pytest

import baselines
from baselines import compare, evaluate, score, train


def scalr_file(path, answers):
    """A SCALR JSONL file whose i-th question (about `path`'s name) has the gold choice answers[i]."""
    rows = [{"index": f"q{i}", "question": f"Which holding settles issue {i} of {path.stem}?",
             **{f"choice_{k}": f"holding {k} about issue {i} of {path.stem}" for k in range(5)},
             "answer": str(answer)}
            for i, answer in enumerate(answers)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_train_evaluate_score_compare(tmp_path):
    train_file = scalr_file(tmp_path / "train.jsonl", [2, 2, 2, 0, 1])
    test_file = scalr_file(tmp_path / "test.jsonl", [2, 2, 1, 0])
    folders = {"models_dir": tmp_path / "models", "results_dir": tmp_path / "results"}

    model = train("scalr", "majority", train_file=train_file, models_dir=folders["models_dir"])
    assert (model / "config.json").is_file()

    result, run = evaluate("scalr", "majority", test_file=test_file, **folders)
    assert result.metrics["accuracy"] == pytest.approx(0.5)  # always choice 2, right on two of four
    assert (run / "results.json").is_file()

    answers = tmp_path / "llm.jsonl"  # raw generations: right, right, wrong, right
    answers.write_text("".join(json.dumps({"id": f"q{i}", "raw": f"The final answer is {'ABCDE'[choice]}"}) + "\n"
                               for i, choice in enumerate([2, 2, 3, 0])), encoding="utf-8")
    scored, _ = score("scalr", answers, test_file=test_file, results_dir=folders["results_dir"])
    assert scored.producer == "llm" and scored.metrics["accuracy"] == pytest.approx(0.75)

    comparison = compare("scalr", folders["results_dir"], test_file=test_file.name, replicates=50)
    assert [system.name for system in comparison.systems] == ["llm", "majority"]  # best first
    assert comparison.reference.name == "majority"  # the best of our methods
    assert comparison.paired["llm"].difference == pytest.approx(0.25)


def test_the_api_is_what_the_cli_calls_and_loads_on_first_use():
    from baselines.comparison import leaderboard
    from baselines.runs import run

    from baselines.runs import corpus

    assert baselines.__all__ == ["train", "evaluate", "score", "compare", "predict"]
    assert (train, evaluate, score, compare) == (run.train, run.evaluate, run.score, leaderboard.compare)
    assert baselines.predict is corpus.predict
    with pytest.raises(AttributeError, match="no attribute 'fit'"):
        baselines.fit  # noqa: B018
    probe = "import sys, baselines; print(any(m.startswith('baselines.runs') for m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"
