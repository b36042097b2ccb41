"""`baselines export lm-eval`: lm-evaluation-harness task folders (YAML + local JSONL) for our exact items.

The folder needs nothing but the harness to run (`lm_eval --include_path OUT --tasks NAME`): documents
are local JSONL files read with the harness's `json` dataset builder (no hub access), and every
document carries our item id, so `baselines score TASK <samples file or output folder>` joins the
harness's sample logs to our references with no extra flags. Writing it does not need the harness.

Each benchmark writes its own tasks (zero-shot), through its record's `export` hook: see
baselines/tasks/<task>/export.py and prompts.py; the pieces they share are in harness.py.
"""
from __future__ import annotations

import importlib.util
import random
from pathlib import Path

from baselines.core import progress
from baselines.core.errors import BaselinesError
from baselines.core.params import check_option
from baselines.core.io import atomic_path
from baselines.export.folder import MANIFEST, README_TITLE, check_target, export_folder, inside, write_manifest
from baselines.export.harness import REASONED_ANSWER, SHORT_ANSWER, Export
from baselines.registry import Documents, LmEvalExport, check_options, get_task, tasks_with
from baselines.runs.run import load_split

EXTRA = "pip install 'legal-baselines[llm]'"


def harness_installed() -> bool:
    """Whether lm-evaluation-harness can be imported (checked without importing it)."""
    try:
        return importlib.util.find_spec("lm_eval") is not None
    except (ImportError, ValueError):
        return False


def export_lm_eval(task_name: str, data_dir, out: Path, *, split: str | None = None, force: bool = False,
                   load_options: dict | None = None, count_tokens: bool = False, sample: int | None = None,
                   seed: int = 0, **options) -> Export:
    """Write harness tasks for one split of a benchmark into `out` (all or nothing), with a manifest of the files.

    `options` are the benchmark's own export options (e.g. max_chars for --max-chars; None: not given);
    `count_tokens`: also count each run's mean prompt tokens per document (Export.prompt_tokens); `sample`: a
    seeded random sample of that many records per group (`sampled`), None: every record."""
    task = get_task(task_name)
    exporter = task.capability(LmEvalExport)
    if exporter is None:
        raise BaselinesError(f"no lm-eval export for task {task.name!r}; tasks with one: "
                             f"{', '.join(tasks_with(LmEvalExport))}")
    given = {name: value for name, value in options.items() if value is not None}
    check_options(task, {"--" + name.replace("_", "-"): value for name, value in given.items()})
    write = exporter.writer(**given)  # bad values are refused here, before any work
    out = export_folder(out)
    check_target(out, force)
    split = split or task.eval_split
    with progress.stage(f"loading data ({task.name}, {split} split)") as step:
        records = load_split(task, data_dir, split, **(load_options or {}))
        kept = sampled(task, records, sample, seed)
        step.note = f"{len(records):,} items" + (f", {len(kept):,} sampled" if sample is not None else "")
        records = kept
    with atomic_path(out) as tmp, progress.stage(f"writing lm-eval documents into {out}") as step:
        tmp.mkdir()
        export = write(records, tmp, out)
        step.note = f"{export.n_documents:,} documents"
        export.split, export.folder = split, out
        if sample is not None:
            export.notes.append(sample_note(task, sample, seed, len(records)))
        export.score_options = _score_options(task, split, export, bool((load_options or {}).get("subtasks")),
                                              sample is not None)
        counted = record_prompts(tmp, out, export, {**given, "sample": sample,
                                                     "seed": seed if sample is not None else None})
        if count_tokens:
            from baselines.export.prompt_size import prompt_tokens

            step.note = f"{export.n_documents:,} documents, counting their prompts' tokens"
            export.prompt_tokens, export.tokens_counted_by = prompt_tokens(tmp, out, export, counted)
        inside(tmp, "README.md").write_text(readme(export, data_dir), encoding="utf-8")
        write_manifest(tmp)
        check_target(out, force)  # again, just before the swap: nothing of anyone else's came in meanwhile
    return export


def record_prompts(tmp: Path, out: Path, export: Export, settings: dict) -> tuple[dict, str]:
    """Write the export's prompt record (`prompts.json`: the prompt tokens of each item per harness task, and the
    settings that shaped them), which `baselines score` reads for the cost of a run of these prompts."""
    from baselines.export.prompt_size import item_prompt_tokens
    from baselines.runs.prompt_record import EXPORT_RECORD, record_bytes

    per_task, counted_by = item_prompt_tokens(tmp, out)
    inside(tmp, EXPORT_RECORD).write_bytes(record_bytes(export.task, export.split, settings, counted_by, per_task))
    return per_task, counted_by


def sampled(task, records: list, n: int | None, seed: int) -> list:
    """A seeded random sample of `n` records of each group (a task with subtasks: each of them), in their order;
    all of them where a group has no more. None: every record."""
    if n is None:
        return records
    check_option("sample", n, "--sample")
    by_group: dict[str, list[int]] = {}
    for k, record in enumerate(records):
        by_group.setdefault(_group_of(task, record), []).append(k)
    chosen = set()
    for group in sorted(by_group):
        members = by_group[group]
        chosen.update(random.Random(f"{seed}/{group}").sample(members, min(n, len(members))))
    return [record for k, record in enumerate(records) if k in chosen]


def _group_of(task, record) -> str:
    """The group a record is sampled within: its subtask where the task has subtasks, else one group for all."""
    return task.references([record])[0].group if task.grouped else ""


def sample_note(task, n: int, seed: int, kept: int) -> str:
    documents = task.capability(Documents)
    per = (f"items of each {task.subtasks.group_name}" if task.grouped else
           f"whole {documents.unit}" if documents is not None else "items")
    return (f"a random sample (seed {seed}): {n} {per}, {kept:,} in all (`--sample {n} --seed {seed}`); "
            "scored with --only-present, paired with every system on the items it covers")


def _score_options(task, split: str, export: Export, subset: bool, sample: bool) -> dict[str, str]:
    """Per run name, the options of `baselines score`: a run over some of the subtasks, or over a sample, is scored
    on the items it covers (--only-present) against the references of the whole split, so compare pairs it with
    every system."""
    base = [] if split == task.eval_split else [f"--split {split}"]
    everything = sorted({name for covered in export.covers.values() for name in covered})
    options = {}
    for name in export.run_names():
        covered = export.covers.get(name)
        narrowed = sample or (covered is not None and (subset or covered != everything))
        options[name] = " ".join(base + (["--only-present"] if narrowed else []))
    return options


def commands(export: Export, data_dir=None) -> list[str]:
    """The harness command per thing to run, and the matching `baselines score` command."""
    data = f" --data-dir {data_dir}" if data_dir else ""
    lines = []
    for name in export.run_names():
        options = f" {export.score_options[name]}" if export.score_options.get(name) else ""
        lines.append(f"baselines llm run -- lm_eval --model hf --model_args pretrained=MODEL --apply_chat_template "
                     f"--include_path {export.folder.resolve()} --tasks {name} --log_samples --output_path runs/{name}/")
        lines.append(f"baselines score {export.task} runs/{name}/{data}{options} --name MODEL-{name}")
    return lines


def readme(export: Export, data_dir=None) -> str:
    """The README.md written into the export folder: what is there, how to run it, how to score it."""
    files = "\n".join(f"- `{file}`: {count} documents" for file, count in export.documents.items())
    groups = "".join(f"- group `{group}`, the mean over its tasks: {', '.join(f'`{t}`' for t in tasks)}\n"
                     for group, tasks in export.groups.items())
    steps = "\n".join(commands(export, data_dir))
    return f"""{README_TITLE} {export.task} ({export.split})

Written by `baselines export lm-eval {export.task}`: {export.summary()}.

{groups or ''.join(f'- task `{t}`' + chr(10) for t in export.tasks)}
{files}
{''.join(f'- {note}' + chr(10) for note in export.said())}
Every document carries `id`, the item id of the benchmark's references, and its finished prompt
(zero-shot). The YAML files read the documents by absolute path: export again if this folder moves.
`{MANIFEST}` lists the files written here: exporting again with `--force` replaces them, and is
refused while the folder holds anything else (keep harness output in its own folder). `prompts.json`
records the size of every document's prompt (in tokens) and the options that shaped it: `baselines score` counts
a run's cost on these prompts (found through `baselines llm run`'s record, or given as `--prompts`).

Run with lm-evaluation-harness (`{EXTRA}`), then score the sample logs with the project's evaluator
(the harness's own metric is only indicative); MODEL is a hub name or a local folder:

```
{steps}
```

- `--apply_chat_template` is for an instruct (chat) model: without it, such a model often answers nothing. Leave it
  out for a base model.
- A reasoning model needs room to think before it answers: `--gen_kwargs max_gen_toks=4096` (the tasks allow
  {REASONED_ANSWER["max_gen_toks"]} tokens where the prompt asks for reasoning, {SHORT_ANSWER["max_gen_toks"]} where it asks for a label).
- `baselines llm run --` runs the `lm_eval` command as it is and records its wall and CPU seconds (model loading
  apart) in `llm_run.json` beside the logs; `baselines score` then records the run's cost as measured. `lm_eval`
  alone works too: the cost is then estimated from tokens and parameters.
- A small model to try with no GPU and no account: `baselines llm get` (SmolLM2-135M-Instruct), then
  `pretrained=models/llm/smollm2-135m-instruct,gguf_file=SmolLM2-135M-Instruct.Q4_1.gguf`.

`baselines score` accepts one `samples_<task>_<date>.jsonl` file or the harness's output folder (every
`samples_*.jsonl` under it). Give each model and task (or group) its own `--output_path`: two runs of
the same items under one folder are duplicate ids, an error.
"""
