"""Pieces of an lm-evaluation-harness export that every benchmark's writer uses: what an export wrote, the
documents file, and the YAML of a harness task or group (baselines/tasks/<task>/export.py writes each benchmark)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from baselines.core.errors import BaselinesError
from baselines.export.folder import inside

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
    groups: dict[str, list[str]] = field(default_factory=dict)  # group -> its harness tasks
    documents: dict[str, int] = field(default_factory=dict)  # documents file (relative) -> count
    covers: dict[str, list[str]] = field(default_factory=dict)  # group -> the benchmark's subtasks it holds
    score_options: dict[str, str] = field(default_factory=dict)  # run name -> `baselines score` options
    notes: list[str] = field(default_factory=list)  # how the documents were made (cuts, windows)
    prompt_tokens: dict[str, float] = field(default_factory=dict)  # run name -> mean tokens (--count-tokens)
    tokens_counted_by: str = ""

    @property
    def n_documents(self) -> int:
        return sum(self.documents.values())

    def run_names(self) -> list[str]:
        """What to pass to `lm_eval --tasks`: the groups, else the tasks."""
        return list(self.groups) or self.tasks

    def prompt_size(self) -> str:
        """The runs' mean prompt tokens per document in one line, or '' when they were not counted."""
        if not self.prompt_tokens:
            return ""
        sizes = ", ".join(f"{run} {tokens:,.1f}" for run, tokens in self.prompt_tokens.items())
        return f"prompt tokens per document, mean ({self.tokens_counted_by}): {sizes}"

    def said(self) -> list[str]:
        """What the command and the folder's README say of the documents: the notes, and their prompts' size
        when counted."""
        return self.notes + ([self.prompt_size()] if self.prompt_tokens else [])

    def summary(self) -> str:
        """The tasks, or the groups with their sizes, in one line."""
        if not self.groups:
            return ", ".join(self.tasks)
        return ", ".join(f"{group} ({len(tasks)} task{'s' * (len(tasks) != 1)})"
                         for group, tasks in self.groups.items())


def write_documents(folder: Path, file: str, documents: list[dict]) -> None:
    """One JSON document per line into folder/file (kept inside `folder`)."""
    path = inside(folder, file)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for document in documents:
            handle.write(json.dumps(document, ensure_ascii=False) + "\n")


def write_yaml(folder: Path, file: str, config: dict) -> None:
    """A harness configuration as YAML into folder/file (kept inside `folder`)."""
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
    """A group whose score is the mean over its tasks (not weighted by their sizes)."""
    return {"group": name, "task": tasks,
            "aggregate_metric_list": [{"metric": metric, "aggregation": "mean", "weight_by_size": False}],
            "metadata": {"version": 1.0}}


def count_option(flag: str, value: int | None, default: int, zero: str = "") -> int:
    """An export option counting something (characters, sentences): `default` when not given, refused below 0
    (`zero`: what 0 stands for, in the message)."""
    if value is None:
        return default
    if value < 0:
        raise BaselinesError(f"{flag} must be 0{f' ({zero})' if zero else ''} or more, got {value}")
    return value
