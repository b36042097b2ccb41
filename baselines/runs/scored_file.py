"""What `score` checks of a predictions file and its producer: the format it names (one entry of the format table:
a generic one, or one of the task's own), who produced it, and that an answer was read from it at all."""
from __future__ import annotations


from baselines.core.errors import BaselinesError
from baselines.evaluation.formats import format_named
from baselines.registry import TASKS, Answers, ExternalFormat, Task

PRODUCERS = ("ours", "llm", "other")  # who produced a system's predictions


def check_producer(producer: str | None) -> None:
    """Refuse a producer that is none of PRODUCERS (None: inferred from the predictions)."""
    if producer is not None and producer not in PRODUCERS:
        raise BaselinesError(f"unknown --producer {producer!r}; valid: {', '.join(PRODUCERS)}")


def check_some_answer(task: Task, samples: list[dict], n_predictions: int, predictions_path) -> None:
    """Refuse predictions from none of which an answer could be read (the wrong task, or generations that state
    no answer), saying how the task's answers are read."""
    if any(sample["answer"] is not None for sample in samples):
        return
    answers = task.capability(Answers) or Answers()
    numbering = f"; {task.name} answers are read as {answers.numbering}" if answers.numbering else ""
    raise BaselinesError(f"no answer could be extracted from any of the {n_predictions} predictions in "
                         f"{predictions_path} (wrong task, or generations without a stated answer?{numbering})")


def format_entry(task: Task, fmt: str) -> ExternalFormat | None:
    """The entry of the one format table (the generic formats and the task's own) that `fmt` names for `task`
    (None: auto, told by the file itself); an unknown name lists the formats valid for this task, and names the
    tasks whose own format it is."""
    owners = [name for name, other in TASKS.items() if fmt in other.formats]
    return format_named(fmt, task.formats, task.name, owners)


def inferred_producer(predictions: list[dict]) -> str:
    """'llm' for raw generations and harness logs, 'other' for files of plain labels or spans."""
    return "llm" if any("raw" in row or "choice" in row for row in predictions) else "other"
