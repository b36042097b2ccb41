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
from pathlib import Path

from baselines.core import progress
from baselines.core.errors import BaselinesError
from baselines.core.io import atomic_path
from baselines.export.folder import MANIFEST, README_TITLE, check_target, export_folder, inside, write_manifest
from baselines.export.harness import Export
from baselines.registry import LmEvalExport, check_options, get_task, tasks_with
from baselines.runs.run import load_split

EXTRA = "pip install 'legal-baselines[llm]'"


def harness_installed() -> bool:
    """Whether lm-evaluation-harness can be imported (checked without importing it)."""
    try:
        return importlib.util.find_spec("lm_eval") is not None
    except (ImportError, ValueError):
        return False


def export_lm_eval(task_name: str, data_dir, out: Path, *, split: str | None = None, force: bool = False,
                   load_options: dict | None = None, count_tokens: bool = False, **options) -> Export:
    """Write harness tasks for one split of a benchmark into `out` (all or nothing), with a manifest of the files.

    `options` are the benchmark's own export options (e.g. max_chars for --max-chars; None: not given);
    `count_tokens`: also count each run's mean prompt tokens per document (Export.prompt_tokens)."""
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
        step.note = f"{len(records):,} items"
    with atomic_path(out) as tmp, progress.stage(f"writing lm-eval documents into {out}") as step:
        tmp.mkdir()
        export = write(records, tmp, out)
        step.note = f"{export.n_documents:,} documents"
        export.split, export.folder = split, out
        export.score_options = _score_options(task, split, export, bool((load_options or {}).get("subtasks")))
        if count_tokens:
            from baselines.export.prompt_size import prompt_tokens

            step.note = f"{export.n_documents:,} documents, counting their prompts' tokens"
            export.prompt_tokens, export.tokens_counted_by = prompt_tokens(tmp, out, export)
        inside(tmp, "README.md").write_text(readme(export, data_dir), encoding="utf-8")
        write_manifest(tmp)
        check_target(out, force)  # again, just before the swap: nothing of anyone else's came in meanwhile
    return export


def _score_options(task, split: str, export: Export, subset: bool) -> dict[str, str]:
    """Per run name, the options of `baselines score`: a run over some of the subtasks is scored on the items it
    covers (--only-present) against the references of the whole split, so compare pairs it with every system."""
    base = [] if split == task.eval_split else [f"--split {split}"]
    everything = sorted({name for covered in export.covers.values() for name in covered})
    options = {}
    for name in export.run_names():
        covered = export.covers.get(name)
        narrowed = covered is not None and (subset or covered != everything)
        options[name] = " ".join(base + (["--only-present"] if narrowed else []))
    return options


def commands(export: Export, data_dir=None) -> list[str]:
    """The harness command per thing to run, and the matching `baselines score` command."""
    data = f" --data-dir {data_dir}" if data_dir else ""
    lines = []
    for name in export.run_names():
        options = f" {export.score_options[name]}" if export.score_options.get(name) else ""
        lines.append(f"lm_eval --model hf --model_args pretrained=MODEL --include_path {export.folder.resolve()} "
                     f"--tasks {name} --log_samples --output_path runs/{name}/")
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
refused while the folder holds anything else (keep harness output in its own folder).

Run with lm-evaluation-harness (`{EXTRA}`), then score the sample logs with the project's evaluator
(the harness's own metric is only indicative); MODEL is a hub name or a local folder:

```
{steps}
```

`baselines score` accepts one `samples_<task>_<date>.jsonl` file or the harness's output folder (every
`samples_*.jsonl` under it). Give each model and task (or group) its own `--output_path`: two runs of
the same items under one folder are duplicate ids, an error.
"""
