"""CaselawQA on new opinions (`baselines predict caselawqa`): every task's answer for each opinion of a corpus,
with the saved model loaded once. The questions, choices and answer labels of the tasks come from the data
folder (tasks.json of the normalized layout, else the test split's items); a model answers the tasks it was
trained on."""
from __future__ import annotations

from pathlib import Path

from baselines.core.errors import BaselinesError
from baselines.core.records import ChoiceItem
from baselines.core.source_text import SourceText


def corpus_labeller(*, model: Path | None = None, method_name: str | None = None, models_dir=None, data_dir=None,
                    subtasks: list[str] | None = None):
    """The task record's `predict` hook: a record's `answers` are, per task, {label, choice, probability} (the
    answer label, its choice text, and the model's score of it)."""
    from baselines.runs.corpus import Labeller

    method = load_model(model, method_name, models_dir)
    method.cache = False  # a corpus is seen once: its opinions' features are not kept on disk
    tasks = questions(data_dir, subtasks, model_tasks(method))
    return Labeller(label=lambda texts: answer_opinions(texts, method, tasks), unit="answers",
                    count=lambda fields: len(fields["answers"]))


def load_model(model: Path | None, method_name: str | None, models_dir):
    """The saved CaselawQA model of --model, else of models/caselawqa/<method>; none saved names the training
    command (with the default method when none is named)."""
    from baselines.methods.saved import load_trained_model
    from baselines.registry import get_task

    name = method_name or get_task("caselawqa").default_method
    return load_trained_model("caselawqa", model, name, models_dir,
                              train_command=f"baselines train caselawqa --method {name}")


def model_tasks(method) -> set[str] | None:
    """The tasks a fitted method answers (its per-task heads or answers), None when it does not say."""
    fitted = getattr(method, "heads_", None) or getattr(method, "counts_", None)
    return set(fitted) if fitted else None


def questions(data_dir, subtasks: list[str] | None, answered: set[str] | None) -> dict[str, tuple]:
    """task -> (question, choices, labels) of the requested tasks (default: every task the model answers)."""
    from baselines.core.paths import data_root
    from baselines.tasks.caselawqa.checks import check_tasks
    from baselines.tasks.caselawqa.data import _task_fields, _task_specs

    root = data_root(data_dir)
    specs_path = root / "caselawqa" / "tasks.json"
    if specs_path.is_file():
        specs = _task_specs(specs_path)
        known = {name: _task_fields(name, spec, specs_path)[:3] for name, spec in specs.items()}
    else:
        known = _questions_of_items(root, subtasks)
    wanted = subtasks or sorted(set(known) & answered if answered is not None else known)
    chosen = check_tasks(wanted, known, "--subtasks")
    missing = sorted(set(chosen) - answered) if answered is not None else []
    if missing:
        raise BaselinesError(f"the model was not trained on task(s) {', '.join(missing)}; it answers "
                             f"{len(answered)} task(s)")
    if not chosen:
        raise BaselinesError("the model answers none of the data folder's CaselawQA tasks")
    return {name: known[name] for name in sorted(chosen)}


def _questions_of_items(root: Path, subtasks: list[str] | None) -> dict[str, tuple]:
    """task -> (question, choices, labels) from the test split's items (the parquet layouts have no tasks.json)."""
    from baselines.tasks.caselawqa.data import load_caselawqa

    known: dict[str, tuple] = {}
    for item in load_caselawqa(root, "test", subtasks=subtasks):
        known.setdefault(item.group, (item.question, list(item.choices), list(item.labels)))
    return known


def answer_opinions(texts: list, method, tasks: dict[str, tuple]) -> list[dict]:
    """Per CorpusText, {"answers": {task: {label, choice, probability}}}: every task of every opinion in one call
    to the method, so each opinion's features are computed once."""
    items = []
    for k, text in enumerate(texts):
        opinion = SourceText.of(text.text).text  # one string object per opinion, shared by its tasks
        items += [ChoiceItem(id=f"{task}/{k}", question=question, choices=choices, labels=labels, group=task,
                             context=opinion) for task, (question, choices, labels) in tasks.items()]
    answers: list[dict] = [{} for _ in texts]
    for row in method.predict(items):
        task, _, k = row["id"].rpartition("/")
        question, choices, labels = tasks[task]
        index = labels.index(row["prediction"])
        scores = row.get("scores")
        answers[int(k)][task] = {"label": row["prediction"], "choice": choices[index],
                                 "probability": round(float(scores[index]), 4) if scores else None}
    return [{"answers": {task: found[task] for task in tasks}} for found in answers]
