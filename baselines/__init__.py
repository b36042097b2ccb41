"""Non-generative baselines for legal NLP benchmarks, and one evaluator for them and LLM outputs alike.

The Python API is the CLI's five commands as functions (baselines/api.py), each keyword the option of the same name:

    from baselines import train, evaluate, score, compare, predict

    folder = train(task, method, data_dir)                   # models/<task>/<method>/
    result, run = evaluate(task, method, data_dir)           # predict, score, write results/<task>/<system>/<run>/
    result, run = score(task, "llm_outputs.jsonl", data_dir, only_present=True)  # an LLM's answers, scored alike
    print(compare(task))                                     # the leaderboard: the task's runs side by side, paired
    records = predict(task, texts)                           # raw texts labelled by a saved model, loaded once

with `task` and `method` names as `baselines ls` lists them (the README shows them with real names).

- `train(task, method, data_dir, ...)` fits a method and saves it; returns the model folder.
- `evaluate(task, method, data_dir, ...)` predicts a split or a file, scores it and writes the run;
  returns (Result, run folder).
- `score(task, predictions, data_dir, ...)` scores an existing predictions file like any evaluation;
  returns (Result, run folder).
- `compare(task, results_dir, ...)` pairs the task's runs with a reference system; returns a Comparison, which
  prints as the leaderboard table (`to_markdown()`, `save(path)`).
- `predict(task, texts, ...)` labels raw texts (a list of strings, or a dict id -> text) as `baselines predict`
  does, the model loaded once and the texts labelled in batches; returns one record {"id", "digest", ...} per
  text, in order.

Options are keywords named as on the command line: `--only-present` is only_present=True, `--format` format=,
`--set k=v` overrides={"k": v}. Arguments are checked before any work: a wrong one is one BaselinesError line
naming the keyword. Each function's docstring (`help(baselines.evaluate)`) lists its options. They are imported
on first use, so `import baselines` stays fast.
"""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

__all__ = ["train", "evaluate", "score", "compare", "predict"]

_HOME = "baselines.api"  # where the public functions live

if TYPE_CHECKING:
    from baselines.api import compare, evaluate, predict, score, train


def __getattr__(name: str):
    if name not in __all__:
        raise AttributeError(f"module 'baselines' has no attribute {name!r}")
    value = getattr(import_module(_HOME), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
