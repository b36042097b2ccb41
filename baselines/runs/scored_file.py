"""What `score` checks of a predictions file and its producer: the format it names (one entry of the format table:
a generic one, or one of the task's own), who produced it, and that an answer was read from it at all."""
from __future__ import annotations


from baselines.core.errors import BaselinesError, DataError
from baselines.evaluation.formats import format_named
from baselines.registry import TASKS, Answers, ExternalFormat, Task

PRODUCERS = ("ours", "llm", "other")  # who produced a system's predictions


def check_producer(producer: str | None) -> None:
    """Refuse a producer that is none of PRODUCERS (None: inferred from the predictions)."""
    if producer is not None and producer not in PRODUCERS:
        raise BaselinesError(f"unknown --producer {producer!r}; valid: {', '.join(PRODUCERS)}")


def check_some_answer(task: Task, samples: list[dict], predictions: list[dict], predictions_path) -> str | None:
    """Refuse predictions from none of which an answer could be read when that says the run went wrong, saying the
    likely cause in one line: every generation empty (an instruct model run without its chat template; in a batch
    API file, a token limit or the API), or no raw text and no label of the task. Generations that say something
    but commit to no choice are a model's real result: scored (coverage 0), with a note of the likely causes
    (returned)."""
    if any(sample["answer"] is not None for sample in samples):
        return None
    answers = task.capability(Answers) or Answers()
    numbering = f"; {task.name} answers are read as {answers.numbering}" if answers.numbering else ""
    texts = [row["raw"] for row in predictions if isinstance(row.get("raw"), str)]
    n = len(predictions)
    batch = (getattr(predictions, "report", None) or {}).get("format")
    if texts and len(texts) == n and not any(text.strip() for text in texts):
        raise BaselinesError(f"every one of the {n} generations in {predictions_path} is empty: "
                             + (_EMPTY_BATCH if batch else _EMPTY_HARNESS))
    if not texts:
        raise BaselinesError(f"no answer could be extracted from any of the {n} predictions in "
                             f"{predictions_path} (wrong task, or labels that are not the task's?{numbering})")
    first = " ".join(next(text for text in texts if text.strip()).split())[:80]
    cut = sum(bool(row.get("truncated")) for row in predictions)
    causes = ((f"{cut} of the {n} were cut off by their token limit (max_tokens) before an answer: export with a "
               "larger --max-tokens" if cut else "a model that does not answer, or a prompt it does not follow")
              if batch else "a model that does not answer, a base model without a few-shot prompt, or an instruct "
                            "model without --apply_chat_template")
    return (f"no answer was read from any of the {n} generations: none commits to a choice in a form the reader "
            f"reads (docs/evaluator.md, 'How a generation is read'; the first says {first!r}): {causes}{numbering}")


_EMPTY_HARNESS = ("an instruct model run without its chat template often answers nothing (lm_eval: add "
                  "--apply_chat_template), or its token limit cut every generation at the start")
_EMPTY_BATCH = ("the API returned no text for any request: a token limit (max_tokens) that cut every generation "
                "at the start, or a model that answered nothing")


def format_entry(task: Task, fmt: str) -> ExternalFormat | None:
    """The entry of the one format table (the generic formats and the task's own) that `fmt` names for `task`
    (None: auto, told by the file itself); an unknown name lists the formats valid for this task, and names the
    tasks whose own format it is (looked for, plugins included, only then)."""
    try:
        return format_named(fmt, task.formats, task.name)
    except DataError:
        owners = [name for name, other in TASKS.items() if fmt in other.formats]
        return format_named(fmt, task.formats, task.name, owners)


def inferred_producer(predictions: list[dict]) -> str:
    """'llm' for raw generations and harness logs, 'other' for files of plain labels or spans."""
    return "llm" if any("raw" in row or "choice" in row for row in predictions) else "other"
