"""The one scoring path: predictions (ours or an LLM's) joined to references by id, then metrics."""
from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from baselines.evaluation import metrics as M
from baselines.core.errors import BaselinesError
from baselines.evaluation.reading.sections import GENERIC_OPENERS
from baselines.evaluation.reading import EXTRACTOR_VERSION, base_rule, extract_with_rule
from baselines.evaluation.reading.numbers import NUMBERING_UNKNOWN, NUMBERINGS
from baselines.evaluation.predictions import shown_id
from baselines.evaluation.strict_reading import strict_metrics
from baselines.core.records import Reference
from baselines.registry import Answers, ItemsFromPredictions, Subtasks, Task

MISSING_POLICIES = ("error", "wrong", "skip", "failed-wrong")  # failed-wrong: failed requests wrong, the rest skipped


@dataclass
class Result:
    """Scores of one system on one task split, ready to be written as a results file."""

    task: str
    system: str  # the name the run is filed under: a method, its --name, or an external system
    split: str
    n: int
    coverage: float  # share of scored items with a valid (given or extracted) answer
    metrics: dict[str, float]
    main_metric: str
    interval: tuple[float | None, float | None]  # bootstrap 95% interval of the main metric; None: one unit only
    per_label: dict[str, dict] = field(default_factory=dict)
    per_group: dict[str, dict] = field(default_factory=dict)
    per_supergroup: dict[str, dict] = field(default_factory=dict)  # per supergroup (see Subtasks.supergroup)
    confusion: dict | None = None
    missing: int = 0  # reference ids without a prediction (counted wrong, or skipped), the failed requests among them
    failed: int = 0  # of `missing`: the items whose request failed (a batch API file's errored lines)
    missing_policy: str = "error"
    producer: str = "ours"  # who produced the predictions: "ours" (a method of this package), "llm", or "other"
    variant: dict = field(default_factory=dict)  # what the run was computed on: see results_store.Variant
    meta: dict = field(default_factory=dict)  # config, versions, commit, time, memory: see provenance.py
    extractor_version: str = EXTRACTOR_VERSION  # the reader of raw generations (baselines/evaluation/reading/)
    strict: dict | None = None  # each metric when only explicit answers count (strict_reading.py); None: no raw text
    truncated: int = 0  # generations cut off by their token limit (a batch file's finish_reason or stop_reason)
    numbering_unknown: int = 0  # generations read as a bare number whose numbering is unknown: no answer

    def to_dict(self) -> dict:
        from dataclasses import asdict

        data = asdict(self)
        data["interval"] = list(self.interval)
        return data


def answer_and_rule(row: dict, reference: Reference, aliases: dict,
                    openers: tuple[str, ...] = GENERIC_OPENERS) -> tuple[str | None, str | None]:
    """The answer label of one predictions row and, for raw text, the extraction rule that decided it.

    `openers`: the line openers of the task's prompts where a continuation of the prompt starts. A row is read by
    what it holds: a label (`prediction`), a generation (`raw`; other keys such as "choice" are the user's), or
    else the choice scores of an lm-evaluation-harness multiple-choice sample. A row's `numbering` (legalbench or
    letters: how its prompt numbered the choices) says what a bare number names (`reading.numbers`)."""
    if "prediction" in row:
        return verbatim_label(row["prediction"], reference, aliases), None
    if "raw" in row:
        raw, offered = row["raw"], offered_spellings(row, reference, aliases)
        numbering = row.get("numbering") if row.get("numbering") in NUMBERINGS else None
        if isinstance(raw, str) and len(raw) <= SHORT_ANSWER:  # short answers repeat: each read once per item kind
            return _short_reading(raw, tuple(reference.labels), tuple(sorted(aliases.items())),
                                  tuple(reference.choices), offered, tuple(openers), cut_off(row), numbering)
        return extract_with_rule(raw, reference.labels, aliases, reference.choices, item_id=reference.id,
                                 offered=offered, openers=openers, truncated=cut_off(row), numbering=numbering)
    from baselines.evaluation.harness_logs import choice_label

    return choice_label(row, reference), None


def cut_off(row: dict) -> bool:
    """The row's generation was cut off by its token limit: "truncated": true (batch files), or the API's own
    "finish_reason": "length" (OpenAI) or "stop_reason": "max_tokens" (Anthropic) kept in a JSONL row."""
    return row.get("truncated") is True or row.get("finish_reason") == "length" \
        or row.get("stop_reason") == "max_tokens"


def offered_spellings(row: dict, reference: Reference, aliases: dict) -> tuple[str, ...] | None:
    """The spellings the row's prompt offered (`offered`: a harness document's labels, SCALR's "0".."4" or
    "A".."E"), when each is one of the item's labels or their aliases; else None: every spelling is read."""
    offered = row.get("offered")
    if not isinstance(offered, list) or not offered:
        return None
    known = set(reference.labels) | {alias for alias, label in aliases.items() if label in reference.labels}
    spellings = tuple(value.strip() for value in offered if isinstance(value, str))
    return spellings if len(spellings) == len(offered) and set(spellings) <= known else None


def task_openers(task: Task) -> tuple[str, ...]:
    """The line openers of the task's prompts that start a continuation (the generic ones if it names none)."""
    answers = task.capability(Answers)
    return tuple(answers.continuation()) if answers and answers.continuation is not None else GENERIC_OPENERS


def verbatim_label(value, reference: Reference, aliases: dict) -> str | None:
    """A given label as the item's label: exact, through the aliases, without surrounding white space
    (" A"), or for zero-padded numeric labels by value (7 or "7" for "007"); anything else is no answer.
    The extractor's own matcher decides, counting only its exact matches (no case folding)."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return None
    label, exact = _matcher(tuple(reference.labels), tuple(sorted(aliases.items())))(value.strip())
    return label if exact else None


SHORT_ANSWER = 200  # characters of a generation read once per (text, item kind) and kept


@functools.lru_cache(maxsize=65536)
def _short_reading(raw: str, labels: tuple, aliases: tuple, choices: tuple, offered, openers: tuple,
                   truncated: bool, numbering: str | None) -> tuple[str | None, str | None]:
    """The reading of a short generation: the same for every item of the same labels, choices and prompt."""
    return extract_with_rule(raw, labels, dict(aliases), choices, offered=offered, openers=openers,
                             truncated=truncated, numbering=numbering)


@functools.lru_cache(maxsize=256)
def _matcher(labels: tuple[str, ...], aliases: tuple[tuple[str, str], ...]):
    from baselines.evaluation.reading.words import Matcher

    return Matcher(labels, dict(aliases))


def join(predictions: list[dict], references: list[Reference], missing: str,
         failed: frozenset[str] = frozenset()) -> tuple[list, int]:
    """Pair references with prediction rows by id, enforcing the missing-id policy (`failed`: the ids whose request
    failed; "failed-wrong" keeps those, without a prediction, and skips the other absent ids)."""
    if missing not in MISSING_POLICIES:
        raise BaselinesError(f"unknown missing-id policy {missing!r}; valid: {', '.join(MISSING_POLICIES)}")
    counts = Counter(str(row.get("id")) for row in predictions)
    duplicates = [key for key, count in counts.items() if count > 1]
    if duplicates:
        raise BaselinesError(f"duplicate prediction ids: {_show(duplicates)}")
    by_id = {str(row.get("id")): row for row in predictions}
    known = {ref.id for ref in references}
    stray = [key for key in by_id if key not in known]
    if stray and len(stray) == len(by_id):
        raise BaselinesError(f"no prediction id matches a reference of this task/split (e.g. {_show(stray)})")
    if stray:
        raise BaselinesError(f"{len(stray)} prediction ids match no reference: {_show(stray)}")
    absent = [ref.id for ref in references if ref.id not in by_id]
    if absent and missing == "error":
        raise BaselinesError(
            f"{len(absent)} of {len(references)} references have no prediction: {_show(absent)} "
            "(use --missing wrong to count them as wrong, or --only-present to score the covered subset)"
        )
    kept = {"skip": lambda ref: ref.id in by_id, "failed-wrong": lambda ref: ref.id in by_id or ref.id in failed}
    pairs = [(ref, by_id.get(ref.id)) for ref in references if kept.get(missing, lambda ref: True)(ref)]
    return pairs, len(absent)


def skipped_count(missing: int, policy: str, failed: int = 0) -> int:
    """How many references a run left out of its scored items: every one without a prediction under "skip", those
    whose request was never sent (not failed) under "failed-wrong", none otherwise."""
    return missing if policy == "skip" else missing - failed if policy == "failed-wrong" else 0


def stated_failed(result: dict) -> int:
    """The failed requests a results file states (runs of earlier releases: the errored lines of its batch file,
    then counted among the missing)."""
    if "failed" in result:
        return result["failed"]
    errored = ((result.get("meta") or {}).get("batch") or {}).get("errored", 0)
    return min(errored, result.get("missing", 0)) if isinstance(errored, int) else 0


def _show(ids: list[str], limit: int = 5) -> str:
    """The first `limit` ids, each quoted and cut (`shown_id`), and how many there are in all."""
    shown = ", ".join(map(shown_id, ids[:limit]))
    return shown + (f", ... ({len(ids):,} in all)" if len(ids) > limit else "")


def outcomes(task: Task, pairs: list[tuple[Reference, dict | None]]) -> tuple[M.Outcomes, list[dict]]:
    """Per-item outcomes and the per-sample log (id, gold, answer, correct)."""
    labels = sorted({label for ref, _ in pairs for label in (*ref.labels, *ref.gold)})
    label_index = {label: k for k, label in enumerate(labels)}
    groups = sorted({ref.group for ref, _ in pairs})
    group_index = {group: k for k, group in enumerate(groups)}
    unit_index: dict[str, int] = {}
    openers, aliases = task_openers(task), task.aliases  # once, not per item
    gold, pred, correct, group, unit, samples = [], [], [], [], [], []
    for ref, row in pairs:
        answer, rule = answer_and_rule(row, ref, aliases, openers) if row is not None else (None, None)
        right = answer is not None and answer in ref.gold
        scored_gold = answer if right else (ref.gold[0] if ref.gold else None)
        if scored_gold is None:
            raise BaselinesError(f"reference {ref.id} has no gold answer (unlabelled split?)")
        gold.append(label_index[scored_gold])
        pred.append(label_index[answer] if answer is not None else M.NO_ANSWER)
        correct.append(right)
        group.append(group_index[ref.group])
        unit.append(unit_index.setdefault(ref.unit or ref.id, len(unit_index)))
        samples.append({"id": ref.id, "group": ref.group, "gold": list(ref.gold), "answer": answer,
                        "correct": right, "has_prediction": row is not None})
        if row is not None and "raw" in row and "prediction" not in row:
            samples[-1]["rule"] = rule  # which extraction rule decided (None: none did)
            if cut_off(row):
                samples[-1]["truncated"] = True
    out = M.Outcomes(np.array(gold, dtype=np.int64), np.array(pred, dtype=np.int64), np.array(correct, dtype=bool),
                     np.array(group, dtype=np.int64), np.array(unit, dtype=np.int64), labels, groups)
    return out, samples


def per_group(out: M.Outcomes, samples: list[dict]) -> dict[str, dict]:
    """n, accuracy and coverage of each group."""
    table = {}
    answered = np.array([s["answer"] is not None for s in samples], dtype=bool)
    for k, name in enumerate(out.groups):
        members = out.group == k
        table[name] = {
            "n": int(members.sum()),
            "accuracy": float(out.correct[members].mean()),
            "coverage": float(answered[members].mean()),
        }
    return table


def per_supergroup(groups: dict[str, dict], supergroup) -> dict[str, dict]:
    """Mean over groups and example-weighted accuracy within each supergroup."""
    table: dict[str, dict] = {}
    for name, row in groups.items():
        table.setdefault(supergroup(name), []).append(row)
    return {
        key: {
            "tasks": len(rows),
            "n": sum(r["n"] for r in rows),
            "mean_task_accuracy": float(np.mean([r["accuracy"] for r in rows])),
            "accuracy": sum(r["accuracy"] * r["n"] for r in rows) / sum(r["n"] for r in rows),
        }
        for key, rows in sorted(table.items())
    }


def confusion(out: M.Outcomes) -> dict:
    """Gold-by-predicted counts; the last column counts items with no answer."""
    width = len(out.labels)
    matrix = np.zeros((width, width + 1), dtype=np.int64)
    np.add.at(matrix, (out.gold, np.where(out.pred < 0, width, out.pred)), 1)
    return {"labels": out.labels, "columns": out.labels + ["<none>"], "matrix": matrix.tolist()}


REPLICATES, SEED = 1000, 0  # the bootstrap of every interval the evaluator (and compare) states


def figures(task: Task, out: M.Outcomes, samples: list[dict], metrics=(), replicates: int = REPLICATES,
            seed: int = SEED) -> dict:
    """The figures of a result from per-item outcomes: each metric of the task (and of `metrics`), the main
    metric's bootstrap interval, and the breakdown tables the task keeps."""
    accuracy = task.answer_type == "multiple-choice" or task.grouped
    names = dict.fromkeys([*task.metrics, *(["accuracy"] if accuracy else []), *metrics])
    groups = per_group(out, samples) if task.grouped else {}
    supergroup = task.capability(Subtasks).supergroup if task.grouped else None
    return {
        "metrics": {name: M.point(name, out) for name in names},
        "interval": M.bootstrap_interval(task.main_metric, out, replicates, seed, stratify=task.grouped),
        "per_label": M.per_label(out) if task.per_label else {},
        "per_group": groups,
        "per_supergroup": per_supergroup(groups, supergroup) if groups and supergroup else {},
    }


def score_predictions(task: Task, predictions: list[dict], references: list[Reference], *, system: str = "",
                      split: str = "", missing: str = "error", replicates: int = REPLICATES,
                      seed: int = SEED, failed=(), numbering: str | None = None) -> tuple[Result, list[dict]]:
    """Score predictions against references: the Result and the per-sample log (`failed`: the ids whose request
    failed, a batch API file's errored lines; counted apart among the missing). `numbering` (legalbench or
    letters): how the prompt numbered the choices, for every generation (else each row's own, if it has one)."""
    if not predictions:
        raise BaselinesError("the predictions are empty")
    if numbering is not None:
        if numbering not in NUMBERINGS:
            raise BaselinesError(f"unknown numbering {numbering!r}; valid: {', '.join(NUMBERINGS)}")
        predictions = [{**row, "numbering": numbering} if "raw" in row else row for row in predictions]
    failed = frozenset(map(str, failed))
    pairs, absent = join(predictions, references, missing, failed)
    items = task.capability(ItemsFromPredictions)
    if items is not None:  # e.g. documents -> boundary items
        pairs = items.expand(pairs)
    out, samples = outcomes(task, pairs)
    shown = figures(task, out, samples, replicates=replicates, seed=seed)
    result = Result(
        task=task.name, system=system, split=split, n=out.n,
        coverage=float(np.mean([s["answer"] is not None for s in samples])),
        metrics=shown["metrics"], main_metric=task.main_metric, interval=shown["interval"],
        per_label=shown["per_label"], per_group=shown["per_group"], per_supergroup=shown["per_supergroup"],
        confusion=confusion(out) if task.confusion else None,
        missing=absent, missing_policy=missing, failed=sum(ref.id in failed for ref in references),
        strict=strict_metrics(out, samples, shown["metrics"]),
        truncated=sum(1 for sample in samples if sample.get("truncated")),
        numbering_unknown=sum(1 for sample in samples if base_rule(sample.get("rule") or "") == NUMBERING_UNKNOWN),
    )
    return result, samples
