"""The toy benchmark as lm-evaluation-harness tasks over one documents file: toy_mc (log-likelihood of " A".." C")
and toy_generate (a generated answer ending in "The final answer is X"). Every document carries the item id, so
`baselines score toy` reads the harness's sample logs with no extra flag."""
from __future__ import annotations

from pathlib import Path

from baselines.export.harness import Export, task_config, write_documents, write_yaml
from baselines.export.prompts import option_lines

from toy_benchmark.data import LABELS, ROLES, RoleSentence

INTRO = "Below is a sentence of a court judgment, and the parts of a judgment it may belong to."
MC_ASK = "Which part is it? Answer with its letter."
GENERATE_ASK = ("Which part is it? Reason briefly if it helps, then end your reply with \"The final answer is X\", "
                "where X is A, B or C.")
DOCUMENTS = "toy_documents.jsonl"


def lm_eval_writer():
    """The task's `LmEvalExport` writer: the toy benchmark takes no export option of its own."""
    return write_toy


def write_toy(records: list[RoleSentence], tmp: Path, final: Path) -> Export:
    """Write the documents and both tasks into `tmp`; the YAML files read the documents from `final`."""
    write_documents(tmp, DOCUMENTS, [toy_document(item) for item in records])
    write_yaml(tmp, "toy_mc.yaml", task_config("toy_mc", final / DOCUMENTS, "prompt_mc", True))
    write_yaml(tmp, "toy_generate.yaml", task_config("toy_generate", final / DOCUMENTS, "prompt_generate", False))
    return Export("toy", "", final, ["toy_mc", "toy_generate"], documents={DOCUMENTS: len(records)},
                  notes=["options A-C are the roles facts, argument, ruling, in that order"])


def toy_document(item: RoleSentence) -> dict:
    """One sentence as a harness document: both prompts, the labels offered, the gold answer and our id."""
    body = f"{INTRO}\n\nSentence: {item.text.strip()}\n{option_lines(list(LABELS), list(ROLES))}\n\n"
    gold = [ROLES.index(item.role)] if item.role else []
    return {"id": item.id, "text": item.text, "choices": list(ROLES), "labels": list(LABELS),
            "targets": [LABELS[i] for i in gold], "gold_indexes": gold,
            "prompt_mc": f"{body}{MC_ASK}\nAnswer:", "prompt_generate": f"{body}{GENERATE_ASK}"}
