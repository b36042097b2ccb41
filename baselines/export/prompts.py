"""Prompts and documents for lm-evaluation-harness tasks: one JSON document per item, carrying our id.

Every document holds its finished prompt (the harness reads it verbatim through `doc_to_text`), the
answer labels offered (`labels`), the gold labels (`targets`) and gold positions (`gold_indexes`), and
the id our references use, so `baselines score` joins the harness's sample logs by it.

* SCALR: the question and its five holdings as options A-E; `prompt_mc` ends in "Answer:" for
  log-likelihood scoring of " A".." E", `prompt_generate` asks the model to end with
  "The final answer is X".
* CaselawQA: Lawma's prompt, instruction + "\n\n" + opinion + "\n\nQuestion: " + question + "\n" +
  one "<label>. <choice>" line per choice + "\nAnswer:". A long opinion keeps its first `max_chars`
  characters, as Lawma keeps the first tokens of an opinion that does not fit (its evaluation code
  cuts the tokenized opinion from the end); `opinion_chars` and `truncated_chars` record the cut.
* RR: one document per sentence: the roles with a short description each, then `window` sentences
  of context on each side, the target sentence marked.
"""
from __future__ import annotations

from baselines.tasks.rr.data import Document, model_input
from baselines.core.errors import BaselinesError
from baselines.core.records import ChoiceItem

LETTERS = "ABCDE"
DEFAULT_MAX_CHARS = 24_000
DEFAULT_WINDOW = 2

SCALR_INTRO = ("Below is a question presented to the U.S. Supreme Court and five holdings, each written as "
               "\"holding that ...\". Exactly one of them is the holding of the case that decided this question.")
SCALR_MC_ASK = "Which holding decided the question? Answer with its letter."
SCALR_GENERATE_ASK = ("Which holding decided the question? Reason briefly if it helps, then end your reply with "
                      "\"The final answer is X\", where X is the letter of that holding (A, B, C, D or E).")

ROLE_DESCRIPTIONS = {
    "PREAMBLE": "the opening of the judgment: court, case number, parties, counsel, judges",
    "FAC": "facts: the events that led to the dispute and the history of the proceedings",
    "RLC": "ruling by a lower court: what a lower court or tribunal decided, and why",
    "ISSUE": "the legal questions the court has to decide",
    "ARG_PETITIONER": "arguments of the petitioner, appellant or their counsel",
    "ARG_RESPONDENT": "arguments of the respondent or their counsel",
    "ANALYSIS": "the court's discussion of the facts, evidence, law and arguments",
    "STA": "statute: the text or content of a statute, rule or provision the court cites",
    "PRE_RELIED": "a precedent the court relies on or follows",
    "PRE_NOT_RELIED": "a precedent the court cites but does not rely on (distinguished or rejected)",
    "RATIO": "ratio decidendi: the principle or main reason on which the decision rests",
    "RPC": "ruling by the present court: its final decision or order",
    "NONE": "none of these roles (headings, page markers, stray text)",
}
RR_INTRO = ("Below are consecutive sentences of an Indian court judgment. Classify the rhetorical role of "
            "the sentence marked with >>> and <<<.")
RR_ASK = "Which rhetorical role does the marked sentence have? Answer with the role name only."


def option_lines(labels: list[str], choices: list[str]) -> str:
    """One "<label>. <choice>" line per choice, as Lawma writes them."""
    return "\n".join(f"{label.strip()}. {choice.strip()}" for label, choice in zip(labels, choices))


def _gold(item: ChoiceItem, labels: list[str]) -> dict:
    return {"targets": [labels[i] for i in item.answer], "gold_indexes": list(item.answer)}


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
        **_gold(item, labels),
        "prompt_mc": f"{body}{SCALR_MC_ASK}\nAnswer:",
        "prompt_generate": f"{body}{SCALR_GENERATE_ASK}",
    }


def instruction_of(item: ChoiceItem) -> str:
    """The task instruction that the CaselawQA loader keeps in the item's meta."""
    instruction = item.meta.get("instruction")
    if not isinstance(instruction, str) or not instruction.strip():
        raise BaselinesError(f"CaselawQA example {item.id} has no task instruction (the data's tasks.json or "
                             "parquet files must give one)")
    return instruction


def caselawqa_document(item: ChoiceItem, max_chars: int) -> dict:
    """A CaselawQA example in Lawma's prompt; the opinion keeps its first `max_chars` characters (0: all)."""
    opinion = item.context
    kept = opinion[:max_chars] if max_chars and len(opinion) > max_chars else opinion
    question = f"Question: {item.question.strip()}\n{option_lines(item.labels, item.choices)}\nAnswer:"
    return {
        "id": item.id,
        "task": item.group,
        "case_id": str(item.meta.get("case_id", "")),
        "labels": list(item.labels),
        **_gold(item, item.labels),
        "opinion_chars": len(opinion),
        "truncated_chars": len(opinion) - len(kept),
        "prompt": f"{instruction_of(item)}\n\n{kept}\n\n{question}",
    }


def role_lines(labels: tuple[str, ...]) -> str:
    """The roles to choose from, described ones in the order of a judgment, then any others."""
    known = [label for label in ROLE_DESCRIPTIONS if label in labels]
    others = sorted(label for label in labels if label not in ROLE_DESCRIPTIONS)
    return "\n".join([f"{label}: {ROLE_DESCRIPTIONS[label]}" for label in known] + others)


def rr_documents(doc: Document, window: int) -> list[dict]:
    """One document per sentence of a judgment, with `window` sentences of context on each side."""
    texts = [model_input(sentence.text) for sentence in doc.sentences]
    roles = role_lines(doc.labels)
    out = []
    for index, sentence in enumerate(doc.sentences):
        lines = []
        for k in range(max(0, index - window), min(len(texts), index + window + 1)):
            lines.append(f">>> {texts[k]} <<<" if k == index else texts[k])
        prompt = (f"{RR_INTRO}\n\nRoles:\n{roles}\n\nSentences:\n" + "\n".join(lines) + f"\n\n{RR_ASK}\nAnswer:")
        out.append({
            "id": sentence.id,
            "document": doc.id,
            "sentence_index": index,
            "labels": list(doc.labels),
            "targets": [sentence.label] if sentence.label else [],
            "prompt": prompt,
        })
    return out
