"""SCALR's harness documents: the question and its five holdings as options A-E; `prompt_mc` ends in "Answer:"
for log-likelihood scoring of " A".." E", `prompt_generate` asks the model to end with "The final answer is X"."""
from __future__ import annotations

from baselines.core.errors import BaselinesError
from baselines.core.records import ChoiceItem
from baselines.export.prompts import gold_fields, option_lines

LETTERS = "ABCDE"

SCALR_INTRO = ("Below is a question presented to the U.S. Supreme Court and five holdings, each written as "
               "\"holding that ...\". Exactly one of them is the holding of the case that decided this question.")
SCALR_MC_ASK = "Which holding decided the question? Answer with its letter."
SCALR_GENERATE_ASK = ("Which holding decided the question? Reason briefly if it helps, then end your reply with "
                      "\"The final answer is X\", where X is the letter of that holding (A, B, C, D or E).")


def scalr_document(item: ChoiceItem) -> dict:
    """A SCALR question with both prompts; options are lettered A-E (our label k is letter k)."""
    if len(item.choices) != len(LETTERS):
        raise BaselinesError(f"SCALR question {item.id} has {len(item.choices)} choices; expected 5")
    labels = list(LETTERS)
    body = f"{SCALR_INTRO}\n\nQuestion: {item.question.strip()}\n{option_lines(labels, item.choices)}\n\n"
    return {
        "id": item.id,
        "question": item.question,
        "choices": list(item.choices),
        "labels": labels,
        **gold_fields(item, labels),
        "prompt_mc": f"{body}{SCALR_MC_ASK}\nAnswer:",
        "prompt_generate": f"{body}{SCALR_GENERATE_ASK}",
    }
