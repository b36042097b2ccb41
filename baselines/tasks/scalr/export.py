"""SCALR as lm-evaluation-harness tasks over one documents file, in our prompt or LegalBench's (`--prompt`):
ours gives scalr_mc (log-likelihood of " A".." E") and scalr_generate ("The final answer is X"); LegalBench's
gives scalr_legalbench_mc (log-likelihood of " 0".." 4") and scalr_legalbench (a short generated answer)."""
from __future__ import annotations

from functools import partial
from pathlib import Path

from baselines.core.errors import BaselinesError
from baselines.export.harness import Export, task_config, write_documents, write_yaml
from baselines.tasks.scalr.prompts import scalr_document


# --prompt -> the documents file, the (log-likelihood, generation) task names, the generation prompt's field, a note
VARIANTS = {
    "ours": ("scalr_documents.jsonl", ("scalr_mc", "scalr_generate"), "prompt_generate",
             "prompt: ours; options A-E are the data's choices 0-4, in order (numbering: letters)"),
    "legalbench": ("scalr_legalbench_documents.jsonl", ("scalr_legalbench_mc", "scalr_legalbench"), "prompt_short",
                   "prompt: LegalBench's base prompt (one worked example); choices numbered 0-4 as in the data "
                   "(numbering: legalbench)"),
}


def lm_eval_writer(prompt: str | None = None):
    """The task record's export hook: `prompt` (--prompt) is ours (the default) or legalbench."""
    prompt = prompt or "ours"
    if prompt not in VARIANTS:
        raise BaselinesError(f"unknown --prompt {prompt!r} for scalr; valid: {', '.join(VARIANTS)}")
    return partial(write_prompt_tasks, prompt)


def write_prompt_tasks(prompt: str, records, tmp: Path, final: Path) -> Export:
    """Write the documents and both tasks of `prompt` into `tmp`; the YAML files read the documents from `final`."""
    file, (choice_task, generate_task), generate_field, note = VARIANTS[prompt]
    write_documents(tmp, file, [scalr_document(item, prompt) for item in records])
    write_yaml(tmp, f"{choice_task}.yaml", task_config(choice_task, final / file, "prompt_mc", True))
    write_yaml(tmp, f"{generate_task}.yaml", task_config(generate_task, final / file, generate_field, False))
    return Export("scalr", "", final, [choice_task, generate_task], documents={file: len(records)}, notes=[note])


def prompt_texts(records) -> dict[str, str]:
    """The generation prompt of our default export, by question id: what an LLM run's cost is estimated on."""
    return {item.id: scalr_document(item)["prompt_generate"] for item in records}
