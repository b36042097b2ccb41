"""CaselawQA's harness documents in Lawma's prompt: instruction + "\n\n" + opinion + "\n\nQuestion: " + question
+ "\n" + one "<label>. <choice>" line per choice (as Lawma writes them) + "\nAnswer:". A long opinion keeps its
first `max_chars` characters, as Lawma keeps the first tokens of an opinion that does not fit (its evaluation
code cuts the tokenized opinion from the end); `opinion_chars` and `truncated_chars` record the cut."""
from __future__ import annotations

from baselines.core.errors import BaselinesError
from baselines.core.records import ChoiceItem
from baselines.export.prompts import gold_fields, option_lines

DEFAULT_MAX_CHARS = 24_000
LAWMA_INSTRUCTION_START = "What follows is an opinion from"  # how each of Lawma's Supreme Court instructions opens


def continuation_openers() -> tuple[str, ...]:
    """Lines that open a new example in Lawma's prompt: where a generation that goes on writing the prompt stops
    answering (baselines.evaluation.reading.sections)."""
    return ("Question:", "Case:", LAWMA_INSTRUCTION_START)


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
        "numbering": "lawma",
        **gold_fields(item, item.labels),
        "opinion_chars": len(opinion),
        "truncated_chars": len(opinion) - len(kept),
        "prompt": f"{instruction_of(item)}\n\n{kept}\n\n{question}",
    }
