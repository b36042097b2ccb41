"""SCALR as lm-evaluation-harness tasks: scalr_mc (log-likelihood of " A".." E") and scalr_generate
("The final answer is X"), over one documents file."""
from __future__ import annotations

from pathlib import Path

from baselines.export.harness import Export, task_config, write_documents, write_yaml
from baselines.tasks.scalr.prompts import scalr_document


def lm_eval_writer():
    """The task record's export hook: SCALR takes no export option."""
    return write_scalr


def write_scalr(records, tmp: Path, final: Path) -> Export:
    """Write the documents and both tasks into `tmp`; the YAML files read the documents from `final`."""
    file = "scalr_documents.jsonl"
    write_documents(tmp, file, [scalr_document(item) for item in records])
    write_yaml(tmp, "scalr_mc.yaml", task_config("scalr_mc", final / file, "prompt_mc", True))
    write_yaml(tmp, "scalr_generate.yaml", task_config("scalr_generate", final / file, "prompt_generate", False))
    return Export("scalr", "", final, ["scalr_mc", "scalr_generate"], documents={file: len(records)},
                  notes=["options A-E are the data's choices 0-4, in order"])
