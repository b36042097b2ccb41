"""`baselines export lm-eval`: lm-evaluation-harness task folders (YAML + local JSONL) for our exact items.

The folder needs nothing but the harness to run (`lm_eval --include_path OUT --tasks NAME`): documents
are local JSONL files read with the harness's `json` dataset builder (no hub access), and every
document carries our item id, so `baselines score TASK <samples file or output folder>` joins the
harness's sample logs to our references with no extra flags. Writing it does not need the harness.

Tasks written (zero-shot; prompts in baselines/lm_eval_prompts.py):
  scalr       scalr_mc (log-likelihood of " A".." E"), scalr_generate ("The final answer is X")
  caselawqa   group caselawqa: caselawqa_<task> (generated answer label, Lawma's prompt), one per task;
              group caselawqa_mc: caselawqa_mc_<task> (log-likelihood of the labels), tasks with letter labels
  rr          rr_generate: one document per sentence, the role name generated
"""
from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass, field
from pathlib import Path

from baselines.core.errors import BaselinesError
from baselines.export.folder import MANIFEST, README_TITLE, check_target, export_folder, inside, write_manifest
from baselines.core.io import atomic_path
from baselines.export.prompts import (DEFAULT_MAX_CHARS, DEFAULT_WINDOW, caselawqa_document, rr_documents,
                              scalr_document)
from baselines.runs.run import load_split
from baselines.registry import get_task

EXTRA = "pip install 'legal-baselines[llm]'"
# The harness's own exact_match, made lenient (indicative only; `baselines score` is the figure): the text
# after the last "The final answer is", its first token, case and punctuation ignored.
EXACT_MATCH = {"metric": "exact_match", "aggregation": "mean", "higher_is_better": True, "ignore_case": True,
               "ignore_punctuation": True,
               "regexes_to_ignore": ["(?is)^.*the final answer is", "(?s)^\\s+", "(?s)(?<=\\S)\\s.*$"]}
ACCURACY = {"metric": "acc", "aggregation": "mean", "higher_is_better": True}
SHORT_ANSWER = {"until": ["\n"], "max_gen_toks": 16, "do_sample": False, "temperature": 0.0}
REASONED_ANSWER = {"until": ["\nQuestion:"], "max_gen_toks": 1024, "do_sample": False, "temperature": 0.0}


@dataclass
class Export:
    """What an export wrote: the folder, the harness task and group names, documents per file."""

    task: str
    split: str
    folder: Path
    tasks: list[str]
    groups: dict[str, list[str]] = field(default_factory=dict)  # group -> its tasks
    documents: dict[str, int] = field(default_factory=dict)  # documents file (relative) -> count
    covers: dict[str, list[str]] = field(default_factory=dict)  # CaselawQA group -> the benchmark tasks it holds
    score_options: dict[str, str] = field(default_factory=dict)  # run name -> `baselines score` options
    notes: list[str] = field(default_factory=list)  # how the documents were made (cuts, windows)

    @property
    def n_documents(self) -> int:
        return sum(self.documents.values())

    def run_names(self) -> list[str]:
        """What to pass to `lm_eval --tasks`: the groups, else the tasks."""
        return list(self.groups) or self.tasks

    def summary(self) -> str:
        """The tasks, or the groups with their sizes, in one line."""
        if not self.groups:
            return ", ".join(self.tasks)
        return ", ".join(f"{group} ({len(tasks)} tasks)" for group, tasks in self.groups.items())


def harness_installed() -> bool:
    """Whether lm-evaluation-harness can be imported (checked without importing it)."""
    try:
        return importlib.util.find_spec("lm_eval") is not None
    except (ImportError, ValueError):
        return False


def export_lm_eval(task_name: str, data_dir, out: Path, *, split: str | None = None, max_chars: int | None = None,
                   window: int | None = None, force: bool = False, load_options: dict | None = None) -> Export:
    """Write harness tasks for one split of a benchmark into `out` (all or nothing), with a manifest of the files."""
    task = get_task(task_name)
    _check_options(task.name, max_chars, window)
    out = export_folder(out)
    check_target(out, force)
    split = split or task.eval_split
    records = load_split(task, data_dir, split, **(load_options or {}))
    with atomic_path(out) as tmp:
        tmp.mkdir()
        if task.name == "scalr":
            export = _write_scalr(records, tmp, out)
        elif task.name == "caselawqa":
            export = _write_caselawqa(records, tmp, out, DEFAULT_MAX_CHARS if max_chars is None else max_chars)
        else:
            export = _write_rr(records, tmp, out, DEFAULT_WINDOW if window is None else window)
        export.split, export.folder = split, out
        export.score_options = _score_options(task, split, export, bool((load_options or {}).get("tasks")))
        inside(tmp, "README.md").write_text(readme(export, data_dir), encoding="utf-8")
        write_manifest(tmp)
        check_target(out, force)  # again, just before the swap: nothing of anyone else's came in meanwhile
    return export


def _check_options(task: str, max_chars: int | None, window: int | None) -> None:
    if task not in ("scalr", "caselawqa", "rr"):
        raise BaselinesError(f"no lm-eval export for task {task!r}")
    if max_chars is not None and task != "caselawqa":
        raise BaselinesError("--max-chars applies to caselawqa only (the opinion's length)")
    if window is not None and task != "rr":
        raise BaselinesError("--window applies to rr only (context sentences on each side)")
    if max_chars is not None and max_chars < 0:
        raise BaselinesError(f"--max-chars must be 0 (whole opinions) or more, got {max_chars}")
    if window is not None and window < 0:
        raise BaselinesError(f"--window must be 0 or more, got {window}")


def _score_options(task, split: str, export: Export, subset: bool) -> dict[str, str]:
    """Per run name, the options of `baselines score`: a run over some of the tasks is scored on the items it
    covers (--only-present) against the references of the whole split, so compare pairs it with every system."""
    base = [] if split == task.eval_split else [f"--split {split}"]
    everything = export.covers.get("caselawqa")
    options = {}
    for name in export.run_names():
        covered = export.covers.get(name)
        narrowed = covered is not None and (subset or covered != everything)
        options[name] = " ".join(base + (["--only-present"] if narrowed else []))
    return options


def _write_documents(folder: Path, file: str, documents: list[dict]) -> None:
    path = inside(folder, file)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for document in documents:
            handle.write(json.dumps(document, ensure_ascii=False) + "\n")


def _write_yaml(folder: Path, file: str, config: dict) -> None:
    import yaml

    path = inside(folder, file)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True, width=100), encoding="utf-8")


def task_config(name: str, documents: Path, prompt_field: str, multiple_choice: bool) -> dict:
    """One harness task over a local JSONL file (absolute path): multiple choice or generated answer."""
    config = {"task": name, "dataset_path": "json",
              "dataset_kwargs": {"data_files": {"test": str(documents)}},
              "test_split": "test", "doc_to_text": prompt_field}
    if multiple_choice:
        config.update(output_type="multiple_choice", doc_to_choice="labels", doc_to_target="gold_indexes",
                      metric_list=[ACCURACY])
    else:
        generation = REASONED_ANSWER if prompt_field == "prompt_generate" else SHORT_ANSWER
        config.update(output_type="generate_until", doc_to_target="targets", generation_kwargs=dict(generation),
                      metric_list=[dict(EXACT_MATCH)])
    config["metadata"] = {"version": 1.0}
    return config


def group_config(name: str, tasks: list[str], metric: str) -> dict:
    """A group whose score is the mean over its tasks (not weighted by their sizes), as Lawma reports."""
    return {"group": name, "task": tasks,
            "aggregate_metric_list": [{"metric": metric, "aggregation": "mean", "weight_by_size": False}],
            "metadata": {"version": 1.0}}


def _write_scalr(records, tmp: Path, final: Path) -> Export:
    file = "scalr_documents.jsonl"
    _write_documents(tmp, file, [scalr_document(item) for item in records])
    _write_yaml(tmp, "scalr_mc.yaml", task_config("scalr_mc", final / file, "prompt_mc", True))
    _write_yaml(tmp, "scalr_generate.yaml", task_config("scalr_generate", final / file, "prompt_generate", False))
    return Export("scalr", "", final, ["scalr_mc", "scalr_generate"], documents={file: len(records)},
                  notes=["options A-E are the data's choices 0-4, in order"])


def _write_caselawqa(records, tmp: Path, final: Path, max_chars: int) -> Export:
    by_task: dict[str, list] = {}
    for item in records:
        by_task.setdefault(item.group, []).append(item)
    export = Export("caselawqa", "", final, [])
    generate, choice = [], []
    for name in sorted(by_task):
        items = by_task[name]
        file = f"documents/{name}.jsonl"
        _write_documents(tmp, file, [caselawqa_document(item, max_chars) for item in items])
        export.documents[file] = len(items)
        documents = inside(final, file)
        generate.append(f"caselawqa_{name}")
        _write_yaml(tmp, f"tasks/{generate[-1]}.yaml", task_config(generate[-1], documents, "prompt", False))
        if all(label.isalpha() for label in items[0].labels):  # letters: at most 26 choices
            choice.append(f"caselawqa_mc_{name}")
            _write_yaml(tmp, f"tasks/{choice[-1]}.yaml", task_config(choice[-1], documents, "prompt", True))
    _write_yaml(tmp, "caselawqa.yaml", group_config("caselawqa", generate, "exact_match"))
    export.groups = {"caselawqa": generate}
    export.covers = {"caselawqa": sorted(by_task)}
    if choice:
        _write_yaml(tmp, "caselawqa_mc.yaml", group_config("caselawqa_mc", choice, "acc"))
        export.groups["caselawqa_mc"] = choice
        export.covers["caselawqa_mc"] = [name.removeprefix("caselawqa_mc_") for name in choice]
    export.tasks = generate + choice
    cut = sum(len(item.context) > max_chars for item in records) if max_chars else 0
    export.notes.append(f"opinions keep their first {max_chars} characters ({cut} of {len(records)} documents cut; "
                        "fields opinion_chars, truncated_chars)" if max_chars else "opinions are whole")
    return export


def _write_rr(records, tmp: Path, final: Path, window: int) -> Export:
    file = "rr_documents.jsonl"
    documents = [document for doc in records for document in rr_documents(doc, window)]
    _write_documents(tmp, file, documents)
    _write_yaml(tmp, "rr_generate.yaml", task_config("rr_generate", final / file, "prompt", False))
    return Export("rr", "", final, ["rr_generate"], documents={file: len(documents)},
                  notes=[f"{window} context sentences on each side of the marked sentence, within its judgment"])


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
{''.join(f'- {note}' + chr(10) for note in export.notes)}
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
