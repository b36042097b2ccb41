"""The Python API: `from baselines import train, evaluate, score, compare, predict`, end to end on tiny SCALR files,
with the CLI's option names as keywords and every argument checked before any work."""
import dataclasses
import inspect
import json
import subprocess
import sys

import pytest
import typer

import baselines
from baselines import api, compare, evaluate, predict, score, train
from baselines.core.errors import BaselinesError
from baselines.registry import DISCOVERED, RawText


def scalr_file(path, answers):
    """A SCALR JSONL file whose i-th question (about `path`'s name) has the gold choice answers[i]."""
    rows = [{"index": f"q{i}", "question": f"Which holding settles issue {i} of {path.stem}?",
             **{f"choice_{k}": f"holding {k} about issue {i} of {path.stem}" for k in range(5)},
             "answer": str(answer)}
            for i, answer in enumerate(answers)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def llm_file(path, choices):
    """Raw generations naming choices[i] (None: no line) for question q<i>."""
    path.write_text("".join(json.dumps({"id": f"q{i}", "raw": f"The final answer is {'ABCDE'[choice]}"}) + "\n"
                            for i, choice in enumerate(choices) if choice is not None), encoding="utf-8")
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

    answers = llm_file(tmp_path / "llm.jsonl", [2, 2, 3, 0])  # right, right, wrong, right
    scored, _ = score("scalr", answers, test_file=test_file, results_dir=folders["results_dir"])
    assert scored.producer == "llm" and scored.metrics["accuracy"] == pytest.approx(0.75)

    comparison = compare("scalr", folders["results_dir"], test_file=test_file.name, replicates=200)
    assert [system.name for system in comparison.systems] == ["llm", "majority"]  # best first
    assert comparison.reference.name == "majority"  # the best of our methods
    assert comparison.paired["llm"].difference == pytest.approx(0.25)


def test_score_takes_the_cli_option_names(tmp_path):
    data = tmp_path / "data"
    (data / "scalr").mkdir(parents=True)
    scalr_file(data / "scalr" / "test.jsonl", [2, 2, 1, 0])
    answers = llm_file(tmp_path / "my-llm.jsonl", [2, None, 3, None])  # two of the four questions answered

    result, run = score("scalr", answers, data, only_present=True, format="jsonl", name="mine", producer="other")
    assert (result.system, result.producer, result.missing_policy) == ("mine", "other", "skip")
    assert (result.n, result.missing, result.metrics["accuracy"]) == (2, 2, pytest.approx(0.5))
    assert run.parent.name == "mine" and (run / "results.json").is_file()
    command = json.loads((run / "results.json").read_text())["meta"]["command"]  # the call, not pytest's argv
    assert command.startswith("python: baselines.score('scalr', ") and "only_present=True" in command
    with pytest.raises(BaselinesError, match=r"only_present=True .* contradicts missing='wrong'"):
        score("scalr", answers, data, only_present=True, missing="wrong", name="other")
    with pytest.raises(BaselinesError, match="missing='wrng' is not a missing-id policy; valid: error, wrong, skip"):
        score("scalr", answers, data, missing="wrng", name="other")
    assert not (run.parent.parent / "other").exists()


def test_print_compare_shows_the_leaderboard_and_save_writes_it(tmp_path, capsys):
    test_file = scalr_file(tmp_path / "test.jsonl", [2, 2, 1, 0])
    train("scalr", "majority", train_file=scalr_file(tmp_path / "train.jsonl", [2, 2, 2, 0, 1]))
    evaluate("scalr", "majority", test_file=test_file)
    score("scalr", llm_file(tmp_path / "llm.jsonl", [2, 2, 3, 0]), test_file=test_file)
    comparison = compare("scalr", test_file=test_file, replicates=200)

    print(comparison)
    shown = capsys.readouterr().out
    assert shown.startswith("### scalr (test.jsonl): accuracy\n\n| # | system | accuracy % | 95% CI |")
    first, second = shown.split("\n")[4:6]
    assert first.startswith("| 1 | llm (LLM) | 75.0 |") and second.startswith("| 2 | majority | 50.0 |")
    assert repr(comparison) == str(comparison) == comparison.to_markdown() and len(repr(comparison)) < 3000

    saved = comparison.save(tmp_path / "board" / "scalr.md")
    assert saved.read_text(encoding="utf-8") == comparison.to_markdown() + "\n"
    with pytest.raises(BaselinesError, match="is a folder: save writes one Markdown file"):
        comparison.save(tmp_path / "board")
    with pytest.raises(BaselinesError, match=r"^path must be a path \(str or os.PathLike\), not a value of type int$"):
        comparison.save(5)


@pytest.fixture
def rr_hook(monkeypatch) -> list:
    """RR's `predict` hook replaced by one that records its options and labels each text with its length (no
    model); the options of every call, in order. Labellers loaded meanwhile are forgotten afterwards."""
    from baselines.runs import corpus

    calls = []

    def hook(**options):
        calls.append(options)
        return corpus.Labeller(label=lambda texts: [{"chars": len(text.text)} for text in texts])

    benchmarks = [dataclasses.replace(b, task=b.task.with_capability(dataclasses.replace(b.task.capability(RawText),
                                                                                         predict=hook)))
                  if b.task.name == "rr" else b for b in DISCOVERED.benchmarks]  # the discovered rr, its predict hook replaced
    monkeypatch.setattr(DISCOVERED, "_benchmarks", benchmarks)
    monkeypatch.setattr(corpus, "_LABELLERS", {})
    return calls


def test_predict_labels_a_list_or_a_dict_with_the_cli_options(rr_hook):
    records = predict("rr", {"a": "One.", "b": "Two words."}, segmenter="rule", method="majority")
    assert [(record["id"], record["chars"]) for record in records] == [("a", 4), ("b", 10)]
    assert (rr_hook[0]["segmenter"], rr_hook[0]["method_name"]) == ("rule", "majority")
    assert [record["id"] for record in predict("rr", ["Hello", "World"], segmenter="trained")] == ["0", "1"]


WRONG_CALLS = {  # call -> its one-line error
    "a string as texts": (lambda: predict("rr", "Hello"),
                          "texts must be a list of strings or a dict id -> text, not a str"),
    "no texts": (lambda: predict("rr", None), "texts must be a list of strings or a dict id -> text, not None"),
    "a number among texts": (lambda: predict("rr", ["Hello", 5]), "texts[1] must be a str, not an int"),
    "a number as id": (lambda: predict("rr", {1: "Hello"}), "texts: id 1 must be a str, not an int"),
    "a number as segmenter": (lambda: predict("rr", ["Hello"], segmenter=5),
                              "segmenter must be rule, trained or a model folder (str or os.PathLike), not an int"),
    "a segmenter for CaselawQA": (lambda: predict("caselawqa", ["Hello"], segmenter="rule"),
                                  "segmenter applies to tasks that cut raw text into sentences: rr "
                                  "(caselawqa takes no segmenter)"),
    "a number as model (predict)": (lambda: predict("rr", ["Hello"], model=123),
                                    "model must be a path (str or os.PathLike), not an int"),
    "a number as model": (lambda: evaluate("scalr", "tfidf", model=123),
                          "model must be a path (str or os.PathLike), not an int"),
    "a number as predictions": (lambda: score("scalr", 5),
                                "predictions must be a path (str or os.PathLike) of a predictions file or folder, "
                                "not an int"),
    "a number as results_dir": (lambda: evaluate("scalr", "tfidf", results_dir=5),
                                "results_dir must be a path (str or os.PathLike), not an int"),
    "a string as cv": (lambda: evaluate("scalr", "tfidf", cv="3"),
                       "cv must be an int (the number of folds), not a str"),
    "a bool as seed": (lambda: evaluate("scalr", "tfidf", cv=2, seed=True), "seed must be an int, not a bool"),
    "a list as overrides": (lambda: train("scalr", "majority", overrides=[1]),
                            "overrides must be a dict name -> value, not a list"),
    "a number as override name": (lambda: evaluate("scalr", "tfidf", overrides={1: 2}),
                                  "overrides: name 1 must be a str, not an int"),
    "a string as only_present": (lambda: score("scalr", "x.jsonl", only_present="yes"),
                                 "only_present must be True or False, not a str"),
    "a number among subtasks": (lambda: score("caselawqa", "x.jsonl", subtasks=["sc_issue_1", 2]),
                                "subtasks[1] must be a str, not an int"),
    "a number as task": (lambda: compare(5), "task must be a task name (str), not an int"),
    "a number as results_dir (compare)": (lambda: compare("scalr", 5),
                                          "results_dir must be a path (str or os.PathLike), not an int"),
    "a string as replicates": (lambda: compare("scalr", replicates="10"), "replicates must be an int, not a str"),
    "an id prefix with a task's own format": (lambda: score("caselawqa", "x", format="lawma", id_prefix="c-"),
                                              "id_prefix applies to batch API files only, not to format 'lawma'"),
}


@pytest.mark.parametrize("call, message", WRONG_CALLS.values(), ids=WRONG_CALLS.keys())
def test_a_wrong_argument_is_one_line_before_any_work(call, message, rr_hook, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BaselinesError) as refused:
        call()
    assert str(refused.value) == message
    assert rr_hook == [] and list(tmp_path.iterdir()) == []  # no model loaded, nothing written


def test_every_keyword_is_checked_and_every_cli_option_has_one():
    from baselines.cli import app

    commands = {command.name: command for command in typer.main.get_command(app).commands.values()}
    terminal_only = {"compare": {"out", "markdown_only", "scatter", "all", "readme", "prices"},
                     "score": {"prices"},  # --prices changes only the dollars printed, never the run
                     "predict": {"out", "quiet", "backend", "scheduler"}}
    for function, command in ((train, "train"), (evaluate, "eval"), (score, "score"), (compare, "compare"),
                              (predict, "predict")):
        keywords = set(inspect.signature(function).parameters)
        assert keywords <= set(api.CHECKS), function.__name__
        options = {keyword_of(param) for param in commands[command].params if not getattr(param, "hidden", False)}
        assert options - terminal_only.get(command, set()) == keywords, command


def keyword_of(param) -> str:
    """The API keyword of a CLI parameter: its long option's name in snake case (`--set` is overrides), or the
    argument's own name (predict's INPUT is texts)."""
    longs = [flag for flag in param.opts if flag.startswith("--")]
    name = longs[0][2:].replace("-", "_") if longs else param.name
    return {"set": "overrides", "source": "texts"}.get(name, name)


def test_the_api_loads_on_first_use():
    assert baselines.__all__ == ["train", "evaluate", "score", "compare", "predict"]
    assert (train, evaluate, score, compare, predict) == (api.train, api.evaluate, api.score, api.compare, api.predict)
    with pytest.raises(AttributeError, match="no attribute 'fit'"):
        baselines.fit  # noqa: B018
    probe = "import sys, baselines; print(any(m.startswith(('baselines.runs', 'baselines.api')) for m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"
