"""SCALR's harness documents, in one of two prompts (`--prompt`):

- `ours` (the default): the question and its five holdings as options A-E; `prompt_mc` ends in "Answer:" for
  log-likelihood scoring of " A".." E", `prompt_generate` asks the model to end with "The final answer is X".
- `legalbench`: LegalBench's own base prompt (tasks/scalr/base_prompt.txt of the LegalBench repository, CC BY
  4.0, shipped here as legalbench_prompt.txt): the holdings numbered 0-4, after one worked example, ending
  in "Answer: "; `prompt_mc` scores " 0".." 4", `prompt_short` is the template as LegalBench fills it in.

Either way, LegalBench's choice k is our label "k": letter k of A-E, or the digit k. Every document records
the spellings it offered (`labels`) and its `numbering`, so `baselines score` reads a harness log of it with
exactly those spellings.
"""
from __future__ import annotations

import functools
import re
from importlib import resources

from baselines.core.errors import BaselinesError
from baselines.core.records import ChoiceItem
from baselines.export.prompts import gold_fields, option_lines

LETTERS = "ABCDE"
DIGITS = "01234"
_FIELD = re.compile(r"\{(question|choice_[0-4])\}")

SCALR_INTRO = ("Below is a question presented to the U.S. Supreme Court and five holdings, each written as "
               "\"holding that ...\". Exactly one of them is the holding of the case that decided this question.")
SCALR_MC_ASK = "Which holding decided the question? Answer with its letter."
SCALR_GENERATE_ASK = ("Which holding decided the question? Reason briefly if it helps, then end your reply with "
                      "\"The final answer is X\", where X is the letter of that holding (A, B, C, D or E).")
LEGALBENCH_INSTRUCTION = "Given the following question presented in a court case, select the most relevant holding"


def continuation_openers() -> tuple[str, ...]:
    """Lines that open a new example in either prompt: where a generation that goes on writing the prompt
    stops answering (baselines.evaluation.reading.sections)."""
    return ("Question:", "Choices:", LEGALBENCH_INSTRUCTION, SCALR_INTRO.split(" and ")[0])


def scalr_document(item: ChoiceItem, prompt: str = "ours") -> dict:
    """A SCALR question as a harness document in the prompt called `prompt` (ours or legalbench)."""
    if len(item.choices) != len(LETTERS):
        raise BaselinesError(f"SCALR question {item.id} has {len(item.choices)} choices; expected 5")
    if prompt == "legalbench":
        return _legalbench_document(item)
    labels = list(LETTERS)
    body = f"{SCALR_INTRO}\n\nQuestion: {item.question.strip()}\n{option_lines(labels, item.choices)}\n\n"
    return {
        **_common_fields(item, labels, "letters"),
        "prompt_mc": f"{body}{SCALR_MC_ASK}\nAnswer:",
        "prompt_generate": f"{body}{SCALR_GENERATE_ASK}",
    }


def _legalbench_document(item: ChoiceItem) -> dict:
    """LegalBench's base prompt, filled in as LegalBench fills it: each {field} replaced by the item's value."""
    values = {"question": item.question, **{f"choice_{k}": choice for k, choice in enumerate(item.choices)}}
    filled = _FIELD.sub(lambda match: values[match.group(1)], legalbench_template())
    return {**_common_fields(item, list(DIGITS), "legalbench"), "prompt_mc": filled.rstrip(), "prompt_short": filled}


def _common_fields(item: ChoiceItem, labels: list[str], numbering: str) -> dict:
    return {"id": item.id, "question": item.question, "choices": list(item.choices), "labels": labels,
            "numbering": numbering, **gold_fields(item, labels)}


@functools.cache  # read once, not once per question
def legalbench_template() -> str:
    """LegalBench's SCALR base prompt (one worked example, then {question} and {choice_0}..{choice_4})."""
    return resources.files(__package__).joinpath("legalbench_prompt.txt").read_text(encoding="utf-8")
