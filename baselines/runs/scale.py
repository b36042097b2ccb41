"""The scale benchmark (`baselines speed scale TASK`): the task's data written at growing sizes (its ScaleData
capability), and at each size the real commands run, each as a subprocess measured for wall time, CPU time
(user + system, its child processes included) and peak memory (the resident sets of the process and all its
children added, sampled twice a second; at least the largest single one's peak), with the disk the data, models and runs take: loading every split; `train` of each method; `eval` of
each; `predict` of raw texts with the last method; `score` of an LLM answers file of the test size ("The answer
is X", drawn from the references: right for about 60% of them); `compare` of the runs. The figures are kept in
a JSON file that baselines.runs.scale_page turns into a page."""
from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

from baselines.core import progress
from baselines.core.errors import BaselinesError, DataError
from baselines.core.machine import cpu_model, load_1min, usable_cores
from baselines.core.tree_memory import TreePeak
from baselines.registry import ReferencesOnly, ScaleData, Task, get_task

CLI = "import sys; from baselines.cli import app; sys.argv[0] = 'baselines'; app()"
LOAD = ("import sys; from baselines.registry import get_task; task = get_task(sys.argv[1]); "
        "print(sum(len(task.load(sys.argv[2], split, None)) for split in task.splits))")
LAUNCH = ("import json, resource, subprocess, sys; code = subprocess.call(sys.argv[2:]); "
          "usage = resource.getrusage(resource.RUSAGE_CHILDREN); "
          "open(sys.argv[1], 'w').write(json.dumps([usage.ru_utime + usage.ru_stime, usage.ru_maxrss])); "
          "sys.exit(code)")
PREDICT_TEXTS = 200  # distinct test documents `predict` labels at each size


def scale_capability(task_name: str) -> tuple[Task, ScaleData]:
    task = get_task(task_name)
    found = task.capability(ScaleData)
    if found is None:
        from baselines.registry import tasks_with

        raise BaselinesError(f"task {task_name!r} has no scale benchmark; tasks with one: "
                             f"{', '.join(tasks_with(ScaleData))}")
    return task, found


def measured(command: list[str], log: Path) -> dict:
    """Run `command`, its output into `log`: wall and CPU seconds, peak MiB, exit code. The command is started by
    a small launcher (LAUNCH) whose resource usage of its children is read: a child forked from this process
    would count this process's memory as its own peak. Peak memory: the step's processes together (TreePeak,
    sampled), at least the largest single one's peak (kept apart as `largest_process_mib`)."""
    usage_file = log.with_suffix(".usage.json")
    started = time.perf_counter()
    with open(log, "w") as out:
        launched = subprocess.Popen([sys.executable, "-c", LAUNCH, str(usage_file), *command], stdout=out,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        with TreePeak(launched.pid) as tree:
            code = launched.wait()
    wall = time.perf_counter() - started
    cpu, peak_kib = json.loads(usage_file.read_text()) if usage_file.is_file() else (None, None)
    largest = None if peak_kib is None else round(peak_kib / 1024, 1)
    together = tree.peak_mib
    return {"wall_s": round(wall, 2), "cpu_s": None if cpu is None else round(cpu, 2),
            "peak_mib": max(filter(None, (largest, together)), default=None), "largest_process_mib": largest,
            "memory": "processes together" if together else "largest process", "exit": code}


def cli(*args: str) -> list[str]:
    return [sys.executable, "-c", CLI, *map(str, args)]


def size_plan(copies: list[int], task_copies: list[int]) -> list[tuple[int, int]]:
    """The sizes run: each number of case copies with the fewest task copies, then each further number of task
    copies with the fewest case copies (one thing grows at a time)."""
    if not copies or not task_copies:
        return []
    base_cases, base_tasks = min(copies), min(task_copies)
    plan = [(c, base_tasks) for c in sorted(set(copies))]
    return plan + [(base_cases, t) for t in sorted(set(task_copies)) if t != base_tasks]


def check_sizes(copies: list[int], task_copies: list[int], test_only) -> None:
    """Refuse a size no data can be written at, before any folder is made."""
    for case_copies, tasks in [*((c, 0) for c in copies), *((1, t) for t in task_copies), *test_only]:
        if case_copies < 1:
            raise BaselinesError(f"--copies {case_copies}: give 1 or more")
        if tasks < 0:
            raise BaselinesError(f"--task-copies {tasks}: give 0 or more")


def run_scale(task_name: str, data_dir, work: Path, *, copies: list[int], task_copies: list[int],
              methods: list[str] | None = None, subtasks: list[str] | None = None,
              test_only: list[tuple[int, int]] = (), add: bool = False) -> dict:
    """Every size of the plan measured, then each (copies, task copies) of `test_only` with its test split alone
    written and only `score` and `compare` run (the LLM side at sizes training would not reach); returns the
    report (also written as `work`/scale.json after each size). `add`: the sizes are added to the report
    already there (of the same task)."""
    task, scale = scale_capability(task_name)
    from baselines.core.paths import data_root

    work = Path(work)
    check_sizes(copies, task_copies, test_only)
    work.mkdir(parents=True, exist_ok=True)
    chosen = list(methods or scale.methods)
    plan = [(*size, False) for size in size_plan(copies, task_copies)] + [(*size, True) for size in test_only]
    report = {"task": task.name, "methods": chosen, "subtasks": subtasks, "full": dict(scale.full),
              "layout": scale.layout, "machine": {"cpu": cpu_model(), "cores": usable_cores(),
                                                 "load_before": load_1min()}, "sizes": []}
    if add:  # a size run again replaces its earlier figures
        report = earlier_report(work / "scale.json", task.name)
        again = set(plan)
        report["sizes"] = [size for size in report["sizes"]
                           if (size["copies"], size["task_copies"], bool(size.get("test_only"))) not in again]
    report.setdefault("commands", []).append(shown_command(task.name, copies, task_copies, chosen, subtasks,
                                                           test_only, add))
    for number_of_copies, number_of_task_copies, alone in plan:
        with progress.stage(f"size: {number_of_copies} copies of the cases, {number_of_task_copies} of the tasks"
                            + (", test split only" if alone else "")):
            report["sizes"].append(run_size(task, scale, data_root(data_dir), work, number_of_copies,
                                            number_of_task_copies, [] if alone else chosen, subtasks))
        write_report(report, work / "scale.json")
    report["machine"]["load_after"] = load_1min()
    write_report(report, work / "scale.json")
    return report


def run_size(task: Task, scale: ScaleData, data_dir: Path, work: Path, copies: int, task_copies: int,
             methods: list[str], subtasks: list[str] | None) -> dict:
    """One size: its data written, then each step measured (a failed step is recorded, and stops the size).
    Without `methods`: the test split alone, scored and compared."""
    here = work / (f"copies{copies}-tasks{task_copies}" + ("" if methods else "-test"))
    data, models, results, logs = (here / name for name in ("data", "models", "results", "logs"))
    logs.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    written = scale.write(data_dir, data, copies=copies, task_copies=task_copies,
                          **({"subtasks": subtasks} if subtasks else {}),
                          **({} if methods else {"splits": (task.eval_split,)}))
    size = {"copies": copies, "task_copies": task_copies, "write_s": round(time.perf_counter() - started, 2),
            **{k: v for k, v in written.items() if k not in ("folder", "copies", "task_copies")},
            "test_only": not methods, "steps": {}}
    answers = answers_file(task, data, here)
    steps = []
    if methods:
        texts = predict_texts(task, data, here)
        steps.append(("load", [sys.executable, "-c", LOAD, task.name, str(data)]))
        steps += [(f"train {method}", cli("train", task.name, "--method", method, "--data-dir", data,
                                          "--models-dir", models)) for method in methods]
        steps += [(f"eval {method}", cli("eval", task.name, "--method", method, "--data-dir", data,
                                         "--models-dir", models, "--results-dir", results, "--force"))
                  for method in methods]
        steps.append((f"predict {methods[-1]}", cli("predict", task.name, texts, "--method", methods[-1],
                                                    "--data-dir", data, "--models-dir", models,
                                                    "--out", here / "predicted.jsonl")))
    steps += [("score", cli("score", task.name, answers, "--name", "llm-answers", "--data-dir", data,
                            "--results-dir", results, "--force")),
              ("compare", cli("compare", task.name, "--results-dir", results))]
    run_steps(size, steps, logs)
    size["disk_bytes"] = {name: folder_bytes(folder) for name, folder in
                          (("data", data), ("models", models), ("results", results))}
    return size


def shown_command(task: str, copies, task_copies, methods, subtasks, test_only, add: bool) -> str:
    """The command line that runs these sizes (DATA and DIR for the folders)."""
    parts = [f"baselines speed scale {task} --out DIR --data-dir DATA",
             f"--copies {','.join(map(str, copies)) or repr('')}",
             f"--task-copies {','.join(map(str, task_copies)) or repr('')}", f"--methods {','.join(methods)}"]
    parts += [f"--subtasks {','.join(subtasks)}"] if subtasks else []
    parts += [f"--test-only {','.join(f'{c}x{t}' for c, t in test_only)}"] if test_only else []
    return " ".join(parts + (["--add"] if add else []))


def read_report(path: Path) -> dict:
    """A report that `baselines speed scale` wrote, refused naming the file if it is none."""
    try:
        report = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError) as error:
        raise DataError(f"not a scale report: {error}", path) from None
    if not isinstance(report, dict) or not report.get("sizes"):
        raise DataError("a scale report holds 'sizes' (written by `baselines speed scale`)", path)
    return report


def earlier_report(path: Path, task: str) -> dict:
    report = read_report(path)
    if report.get("task") != task:
        raise BaselinesError(f"{path} is a scale report of {report.get('task')!r}, not of {task!r}")
    report.setdefault("commands", commands_of(report))
    return report


def commands_of(report: dict) -> list[str]:
    """The commands a report holds, or for one without (an earlier release's), the command its sizes tell."""
    if report.get("commands"):
        return list(report["commands"])
    full = [size for size in report["sizes"] if not size.get("test_only")]
    alone = [(size["copies"], size["task_copies"]) for size in report["sizes"] if size.get("test_only")]
    return [shown_command(report["task"], sorted({s["copies"] for s in full}), sorted({s["task_copies"] for s in full}),
                          report["methods"], report.get("subtasks"), alone, False)]


def run_steps(size: dict, steps: list[tuple[str, list[str]]], logs: Path) -> None:
    """Each step measured, with the load average before it; the first that fails stops the size."""
    for name, command in steps:
        with progress.stage(f"{name} ({size['examples']:,} examples)") as step:
            load = load_1min()
            size["steps"][name] = {**measured(command, logs / f"{name.replace(' ', '-')}.log"), "load": load}
            step.note = f"{size['steps'][name]['wall_s']} s, {size['steps'][name]['peak_mib']} MiB"
        if size["steps"][name]["exit"] != 0:
            size["failed"] = f"{name} exited {size['steps'][name]['exit']}: see {logs}"
            break


def predict_texts(task: Task, data: Path, here: Path) -> Path:
    """A JSONL of the first PREDICT_TEXTS distinct test documents, for `predict`."""
    documents = {}
    for record in task.load(data, task.eval_split, None):
        documents.setdefault(task.contents.document(record), None)
        if len(documents) >= PREDICT_TEXTS:
            break
    texts = here / "texts.jsonl"
    texts.write_text("".join(json.dumps({"id": f"doc{k}", "text": text}) + "\n"
                             for k, text in enumerate(documents)))
    return texts


def answers_file(task: Task, data: Path, here: Path) -> Path:
    """An LLM answers file of the whole test split: "The answer is X", the gold label for about 60% of the items
    (the references read as `score` reads them: without their texts where the task allows)."""
    light = task.capability(ReferencesOnly)
    records = (light.load if light else task.load)(data, task.eval_split, None)
    rng = random.Random(0)
    answers = here / "answers.jsonl"
    with open(answers, "w") as handle:
        for ref in task.references(records):
            label = ref.gold[0] if ref.gold and rng.random() < 0.6 else rng.choice(ref.labels)
            handle.write(json.dumps({"id": ref.id, "raw": f"The answer is {label}"}) + "\n")
    return answers


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in Path(folder).rglob("*") if path.is_file())


def write_report(report: dict, path: Path) -> Path:
    path.write_text(json.dumps(report, indent=1) + "\n")
    return path
