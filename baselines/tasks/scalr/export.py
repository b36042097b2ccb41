"""SCALR as lm-evaluation-harness tasks over one documents file, in our prompt or LegalBench's (`--prompt`):
ours gives scalr_mc (log-likelihood of " A".." E") and scalr_generate ("The final answer is X"); LegalBench's
gives scalr_legalbench_mc (log-likelihood of " 0".." 4") and scalr_legalbench (a short generated answer)."""
from __future__ import annotations

from pathlib import Path

from baselines.core.errors import BaselinesError
from baselines.export.harness import Export, task_config, write_documents, write_yaml
from baselines.tasks.scalr.prompts import PROMPTS, scalr_document


def lm_eval_writer(prompt: str | None = None):
    """The task record's export hook: `prompt` (--prompt) is ours (the default) or legalbench."""
    prompt = prompt or "ours"
    if prompt not in PROMPTS:
        raise BaselinesError(f"unknown --prompt {prompt!r} for scalr; valid: {', '.join(PROMPTS)}")
    return write_legalbench if prompt == "legalbench" else write_scalr


def write_scalr(records, tmp: Path, final: Path) -> Export:
    """Write the documents and both tasks into `tmp`; the YAML files read the documents from `final`."""
    file = "scalr_documents.jsonl"
    write_documents(tmp, file, [scalr_document(item) for item in records])
    write_yaml(tmp, "scalr_mc.yaml", task_config("scalr_mc", final / file, "prompt_mc", True))
    write_yaml(tmp, "scalr_generate.yaml", task_config("scalr_generate", final / file, "prompt_generate", False))
    return Export("scalr", "", final, ["scalr_mc", "scalr_generate"], documents={file: len(records)},
                  notes=["prompt: ours; options A-E are the data's choices 0-4, in order (numbering: letters)"])


def write_legalbench(records, tmp: Path, final: Path) -> Export:
    """LegalBench's base prompt: documents and both tasks into `tmp`, read from `final`."""
    file = "scalr_legalbench_documents.jsonl"
    write_documents(tmp, file, [scalr_document(item, "legalbench") for item in records])
    write_yaml(tmp, "scalr_legalbench_mc.yaml", task_config("scalr_legalbench_mc", final / file, "prompt_mc", True))
    write_yaml(tmp, "scalr_legalbench.yaml", task_config("scalr_legalbench", final / file, "prompt_short", False))
    return Export("scalr", "", final, ["scalr_legalbench_mc", "scalr_legalbench"], documents={file: len(records)},
                  notes=["prompt: LegalBench's base prompt (one worked example); choices numbered 0-4 as in the "
                         "data (numbering: legalbench)"])


def prompt_texts(records) -> dict[str, str]:
    """The generation prompt of our default export, by question id: what an LLM run's cost is estimated on."""
    return {item.id: scalr_document(item)["prompt_generate"] for item in records}
