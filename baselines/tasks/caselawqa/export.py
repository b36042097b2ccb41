"""CaselawQA as lm-evaluation-harness tasks: group caselawqa holds caselawqa_<task> (the answer label generated,
Lawma's prompt), one per task, and group caselawqa_mc holds caselawqa_mc_<task> (log-likelihood of the labels)
for the tasks with letter labels; each group's score is the mean over its tasks, as Lawma reports."""
from __future__ import annotations

import functools
from pathlib import Path

from baselines.core.errors import BaselinesError
from baselines.export.folder import inside
from baselines.export.harness import Export, count_option, group_config, task_config, write_documents, write_yaml
from baselines.tasks.caselawqa.prompts import DEFAULT_MAX_CHARS, caselawqa_document


def lm_eval_writer(max_chars: int | None = None, prompt: str | None = None):
    """The task record's export hook: opinions keep their first `max_chars` (--max-chars) characters, 0 all;
    `prompt` (--prompt) can only be lawma: our prompt is Lawma's."""
    if prompt not in (None, "lawma"):
        raise BaselinesError(f"unknown --prompt {prompt!r} for caselawqa; valid: lawma (our prompt is Lawma's)")
    kept = count_option("--max-chars", max_chars, DEFAULT_MAX_CHARS, zero="whole opinions")
    return functools.partial(write_caselawqa, max_chars=kept)


def write_caselawqa(records, tmp: Path, final: Path, max_chars: int) -> Export:
    """Write one documents file and task per CaselawQA task, and the groups, into `tmp` (read from `final`)."""
    by_task: dict[str, list] = {}
    for item in records:
        by_task.setdefault(item.group, []).append(item)
    export = Export("caselawqa", "", final, [])
    generate, choice = [], []
    for name in sorted(by_task):
        items = by_task[name]
        file = f"documents/{name}.jsonl"
        write_documents(tmp, file, [caselawqa_document(item, max_chars) for item in items])
        export.documents[file] = len(items)
        documents = inside(final, file)
        generate.append(f"caselawqa_{name}")
        write_yaml(tmp, f"tasks/{generate[-1]}.yaml", task_config(generate[-1], documents, "prompt", False))
        if all(label.isalpha() for label in items[0].labels):  # letters: at most 26 choices
            choice.append(f"caselawqa_mc_{name}")
            write_yaml(tmp, f"tasks/{choice[-1]}.yaml", task_config(choice[-1], documents, "prompt", True))
    write_yaml(tmp, "caselawqa.yaml", group_config("caselawqa", generate, "exact_match"))
    export.groups = {"caselawqa": generate}
    export.covers = {"caselawqa": sorted(by_task)}
    if choice:
        write_yaml(tmp, "caselawqa_mc.yaml", group_config("caselawqa_mc", choice, "acc"))
        export.groups["caselawqa_mc"] = choice
        export.covers["caselawqa_mc"] = [name.removeprefix("caselawqa_mc_") for name in choice]
    export.tasks = generate + choice
    cut = sum(len(item.context) > max_chars for item in records) if max_chars else 0
    export.notes.append("prompt: Lawma's (instruction, opinion, question, one '<label>. <choice>' line per choice, "
                        "'Answer:'); labels as Lawma numbers them (numbering: lawma)")
    export.notes.append(f"opinions keep their first {max_chars} characters ({cut} of {len(records)} documents cut; "
                        "fields opinion_chars, truncated_chars)" if max_chars else "opinions are whole")
    return export


def prompt_texts(records) -> dict[str, str]:
    """Lawma's prompt as the default export writes it (opinion cut at DEFAULT_MAX_CHARS), by example id: what an
    LLM run's cost is estimated on."""
    return {item.id: caselawqa_document(item, DEFAULT_MAX_CHARS)["prompt"] for item in records}
