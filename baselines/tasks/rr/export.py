"""RR as an lm-evaluation-harness task: rr_generate, one document per sentence, the role name generated."""
from __future__ import annotations

import functools
from pathlib import Path

from baselines.export.harness import Export, count_option, task_config, write_documents, write_yaml
from baselines.tasks.rr.prompts import DEFAULT_WINDOW, rr_documents


def lm_eval_writer(window: int | None = None):
    """The task record's export hook: `window` (--window) context sentences on each side, refused below 0."""
    return functools.partial(write_rr, window=count_option("--window", window, DEFAULT_WINDOW))


def write_rr(records, tmp: Path, final: Path, window: int) -> Export:
    """Write the documents and the task into `tmp`; the YAML file reads the documents from `final`."""
    file = "rr_documents.jsonl"
    documents = [document for doc in records for document in rr_documents(doc, window)]
    write_documents(tmp, file, documents)
    write_yaml(tmp, "rr_generate.yaml", task_config("rr_generate", final / file, "prompt", False))
    return Export("rr", "", final, ["rr_generate"], documents={file: len(documents)},
                  notes=[f"{window} context sentences on each side of the marked sentence, within its judgment"])


def prompt_texts(records) -> dict[str, str]:
    """The default export's prompt of each sentence (with its context window), by sentence id: what an LLM run's
    cost is estimated on."""
    return {document["id"]: document["prompt"] for doc in records for document in rr_documents(doc, DEFAULT_WINDOW)}
