"""The scale page from a scale report (baselines.runs.scale): per step, its growth with the examples as a
log-log plot with the fitted exponent, and its figures at the task's full size, measured where a size reached it,
else extrapolated along the fitted exponent from the largest measured size."""
from __future__ import annotations

import math
from pathlib import Path

from baselines.core.errors import BaselinesError
from baselines.runs.scale import commands_of, read_report

WIDE = "---\nhide:\n  - toc\n---\n"  # MkDocs front matter, as the results pages have: the tables get the table of contents' width

FIGURES = (("wall_s", "wall s"), ("cpu_s", "CPU s"), ("peak_mib", "peak MiB"))


TEST_STEPS = ("score", "compare")  # steps that read the test split's answers only: they grow with its examples


def case_series(report: dict) -> list[dict]:
    """The sizes that grow the cases (the fewest task copies, every split written), by examples."""
    full = [size for size in report["sizes"] if not size.get("test_only")]
    fewest = min((size["task_copies"] for size in full), default=0)
    return sorted((s for s in full if s["task_copies"] == fewest), key=lambda s: s["examples"])


def size_of(size: dict, step: str) -> int:
    """What a step grows with: the test examples for TEST_STEPS, else the examples of every split."""
    return size["splits"].get("test", 0) if step in TEST_STEPS else size["examples"]


def series(report: dict, step: str) -> list[dict]:
    """The sizes a step's growth is fitted on: every size for TEST_STEPS, else the case series."""
    if step in TEST_STEPS:
        return sorted(report["sizes"], key=lambda s: size_of(s, step))
    return case_series(report)


def steps_of(report: dict) -> list[str]:
    return list(dict.fromkeys(name for size in report["sizes"] for name in size["steps"]))


def exponent(points: list[tuple[float, float]]) -> float | None:
    """The slope of log(value) on log(examples) by least squares; None from fewer than two distinct sizes."""
    points = [(x, y) for x, y in points if x > 0 and y > 0]
    if len({x for x, _ in points}) < 2:
        return None
    xs, ys = [math.log(x) for x, _ in points], [math.log(y) for _, y in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def step_points(sizes: list[dict], step: str, figure: str) -> list[tuple[float, float]]:
    return [(size_of(s, step), s["steps"][step][figure]) for s in sizes
            if step in s["steps"] and s["steps"][step]["exit"] == 0]


def largest_measured(report: dict, step: str) -> dict | None:
    """The largest size (by what the step grows with) at which the step ran to the end: of any number of task
    copies, test-only sizes for TEST_STEPS only."""
    sizes = [s for s in report["sizes"] if (step in TEST_STEPS or not s.get("test_only"))
             and step in s["steps"] and s["steps"][step]["exit"] == 0]
    return max(sizes, key=lambda s: (size_of(s, step), s["tasks"]), default=None)


def full_size(report: dict, step: str, figure: str) -> tuple[float | None, str, float | None]:
    """(value at the full size, "measured" or "extrapolated", the fitted exponent). The exponent is fitted on the
    sizes that copy the cases (series); the value is extrapolated along it from the largest size measured, of
    however many tasks (closest to the full size: Lawma's task count reached by copies of the tasks)."""
    slope = exponent(step_points(series(report, step), step, figure))
    full = report["full"]["test" if step in TEST_STEPS else "examples"]
    largest = largest_measured(report, step)
    if largest is None:
        return None, "not measured", slope
    x, y = size_of(largest, step), largest["steps"][step][figure]
    if x >= full:
        return y, "measured", slope
    if slope is None:
        return None, "not measured", slope
    if figure == "wall_s":  # the load of the machine sways it: the CPU time is extrapolated instead
        return None, "not extrapolated", slope
    return y * (full / x) ** slope, "extrapolated", slope


def growth_ratios(report: dict, step: str, figure: str) -> tuple[float | None, float | None, float | None]:
    """(the figure at one copy of the cases more / at the fewest, at the next number of task copies / at the
    fewest, how many times the tasks that is), each None where the sizes were not both run."""
    sizes = [s for s in report["sizes"] if step in s["steps"] and s["steps"][step]["exit"] == 0]
    if not sizes:
        return None, None, None
    base_c, base_t = min(s["copies"] for s in sizes), min(s["task_copies"] for s in sizes)
    base = next((s for s in sizes if s["copies"] == base_c and s["task_copies"] == base_t), None)
    more_cases = next((s for s in sizes if s["copies"] == base_c + 1 and s["task_copies"] == base_t), None)
    more_tasks = min((s for s in sizes if s["copies"] == base_c and s["task_copies"] > base_t),
                     key=lambda s: s["task_copies"], default=None)

    def ratio(other):
        return other["steps"][step][figure] / base["steps"][step][figure] if base and other else None

    return ratio(more_cases), ratio(more_tasks), more_tasks["tasks"] / base["tasks"] if base and more_tasks else None


def few_tasks_note(report: dict) -> list[str]:
    """A note under the full-size table when some steps are extrapolated from far fewer tasks than others."""
    starts = {step: largest_measured(report, step) for step in steps_of(report) if step not in TEST_STEPS}
    most = max((size["tasks"] for size in starts.values() if size), default=0)
    few = [step for step, size in starts.items() if size and size["tasks"] < most]
    if not few:
        return []
    return [f"{', '.join(few)}: extrapolated from a size of few tasks, along the growth of copies of the cases "
            "(each new example a new opinion); tasks that share their opinions grow memory less than new opinions "
            f"do (more tasks, above): read these beside the steps measured at {most} tasks.", ""]


def shown(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def table(report: dict) -> list[str]:
    lines = ["| step | wall s | CPU s | peak MiB | from (examples, tasks) | exponent (wall, CPU, memory) "
             "| ×2 cases (CPU, memory) | more tasks (CPU, memory) |", "|---|---|---|---|---|---|---|---|"]
    for step in steps_of(report):
        cells, slopes = [], []
        for figure, _ in FIGURES:
            value, how, slope = full_size(report, step, figure)
            cells.append(f"{shown(value, 0)} ({how})" if value is not None else "–")
            slopes.append(shown(slope, 2))
        cpu_cases, cpu_tasks, _ = growth_ratios(report, step, "cpu_s")
        memory_cases, memory_tasks, times = growth_ratios(report, step, "peak_mib")
        largest = largest_measured(report, step)
        start = f"{size_of(largest, step):,}, {largest['tasks']}" if largest else "–"
        lines.append(f"| {step} | {' | '.join(cells)} | {start} | {', '.join(slopes)} | {shown(cpu_cases, 2)}, "
                     f"{shown(memory_cases, 2)} | {shown(cpu_tasks, 2)}, {shown(memory_tasks, 2)}"
                     + (f" (×{times:g} tasks)" if times else "") + " |")
    return lines


LARGEST_PROCESS_NOTE = ("* the largest single process's peak (a size measured before the step's processes were "
                        "added together): a floor of the step's memory where it ran worker processes.")


def memory_mark(figures: dict) -> str:
    """"*" for a peak of the largest single process (reports that did not add the step's processes together)."""
    return "" if figures.get("memory") == "processes together" else "*"


def measured_table(report: dict) -> list[str]:
    lines = ["| copies of the cases, of the tasks (tasks) | examples (test) | data MiB | step | wall s | CPU s "
             "| peak MiB | load |", "|---|---|---|---|---|---|---|---|"]
    for size in report["sizes"]:
        data = size.get("disk_bytes", {}).get("data", size.get("bytes", 0)) / 2 ** 20
        alone = ", test only" if size.get("test_only") else ""
        for step, figures in size["steps"].items():
            failed = "" if figures["exit"] == 0 else f" (exit {figures['exit']})"
            lines.append(f"| {size['copies']}, {size['task_copies']} ({size['tasks']} tasks{alone}) "
                         f"| {size['examples']:,} ({size['splits'].get('test', 0):,}) | {data:,.0f} | {step}{failed} "
                         f"| {figures['wall_s']} | {figures['cpu_s']} | {figures['peak_mib']}{memory_mark(figures)} "
                         f"| {shown(figures.get('load'))} |")
    return lines


def plot(report: dict, path: Path) -> Path:
    """Log-log CPU time and peak memory of each step against the examples, with the fitted exponents."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(12, 4.8))
    for axis, (key, label) in zip(axes, (FIGURES[1], FIGURES[2])):  # CPU time: the load sways wall time
        for step in steps_of(report):
            points = step_points(series(report, step), step, key)
            if not points:
                continue
            slope = exponent(points)
            line, = axis.plot([x for x, _ in points], [y for _, y in points], marker="o",
                              label=f"{step} ({'b=' + format(slope, '.2f') if slope is not None else 'one size'})")
            largest = largest_measured(report, step)
            if largest is not None and largest not in series(report, step):  # more tasks: a point apart
                axis.plot([size_of(largest, step)], [largest["steps"][step][key]], marker="s", linestyle="none",
                          markerfacecolor="none", color=line.get_color())
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("examples (all splits; score and compare: test)")
        axis.set_ylabel(label)
        axis.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7)
    figure.suptitle(f"{report['task']}: growth with the copies of the cases (fitted exponent b: value ∝ examples^b; "
                    "□: the largest size measured, with more tasks)")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def page(report: dict, image: str, source: str) -> str:
    """The page's Markdown; `image`, the plot's file name; `source`, the report's file name as the command names it."""
    full, machine = report["full"], report["machine"]
    trained = [size for size in report["sizes"] if not size.get("test_only")]
    largest = max(trained, key=lambda size: (size["examples"], size["tasks"]), default=None)
    largest_text = f"{largest['examples']:,} examples in {largest['tasks']} tasks" if largest else "none"
    alone = [size["splits"].get("test", 0) for size in report["sizes"] if size.get("test_only")]
    alone_text = f" (and the test split alone, scored and compared, up to {max(alone):,} examples)" if alone else ""
    return WIDE + "\n".join([
        f"# {report['task']} at scale", "",
        f"Generated from `{source}` by `baselines speed scale-page {source} --page PAGE`; do not edit by hand. "
        f"The report is written by `baselines speed scale {report['task']} --out DIR` (see the "
        "[command-line reference](../cli.md#baselines-speed-scale)).", "",
        *(["Run by " + ", then ".join(f"`{command}`" for command in report["commands"]) + ".", ""]
          if report.get("commands") else []),
        f"Data: {report.get('layout', '')}. Sizes run here, written {local_tasks_text(report)}: up to {largest_text}"
        f"{alone_text}; the full size is {full['examples']:,} examples ({full.get('test', 0):,} test) in "
        f"{full.get('tasks', 0)} tasks. Figures at the full size are **extrapolated** from the largest size "
        "measured, along the exponent fitted on the sizes that copy the cases, wherever no size reached it: they "
        "are estimates, not measurements; wall time is not extrapolated (it follows the load of the machine more "
        "than the size: see the CPU time).", "",
        f"Machine: {machine.get('cpu')}, {machine.get('cores')} usable cores, 1-minute load average between "
        f"{machine.get('load_before')} and {machine.get('load_after')} at the runs' start and end (other work "
        "shared the cores: wall times are longer than on an idle machine; CPU times much less so). "
        f"Methods trained: {', '.join(report['methods'])}.", "",
        f"![growth of each step]({image})", "",
        "## At the full size", "",
        "Exponent: the slope of log(figure) on log(examples) over the sizes that copy the cases (≤ 1: grows at "
        "most linearly); score and compare grow with the test examples, over every size, test-only sizes included. "
        "From: the largest size the step was measured at, where its figures are measured or extrapolated from. ×2 cases: the figure at two copies of the cases over one; more tasks: at the next number of "
        "copies of the tasks over the fewest (the copies share their cases); CPU time, which the load sways less "
        "than wall time. Peak MiB: the resident memory of the step's processes (its workers included) added "
        "together, sampled twice a second.", "",
        *table(report), "",
        *few_tasks_note(report),
        "## Measured", "",
        *measured_table(report), "",
        *([LARGEST_PROCESS_NOTE, ""] if any(memory_mark(f) for size in report["sizes"] for f in size["steps"].values())
          else []),
    ])


def local_tasks_text(report: dict) -> str:
    """Which local tasks the sizes were written from: each report's subset (or all its tasks), in order."""
    subsets = list(dict.fromkeys(tuple(size.get("subtasks") or ()) for size in report["sizes"]))
    return " and ".join(f"from the local tasks {', '.join(subset)}" if subset else "from every local task"
                        for subset in subsets)


def merged(reports: list[dict], paths: list[Path]) -> dict:
    """One report of the sizes (and commands) of several of one task: runs made apart, e.g. side by side."""
    tasks = {report["task"] for report in reports}
    if len(tasks) > 1:
        raise BaselinesError(f"scale reports of several tasks ({', '.join(sorted(tasks))}): give one task's")
    first = dict(reports[0])
    first["sizes"] = [{**size, "subtasks": report.get("subtasks")} for report in reports for size in report["sizes"]]
    first["commands"] = [command for report in reports for command in commands_of(report)]
    first["methods"] = list(dict.fromkeys(m for report in reports for m in report["methods"]))
    loads = [report["machine"].get(key) for report in reports for key in ("load_before", "load_after")]
    first["machine"] = {**first["machine"], "load_before": min((x for x in loads if x is not None), default=None),
                        "load_after": max((x for x in loads if x is not None), default=None)}
    first["sources"] = [Path(path).name for path in paths]
    return first


def write_page(report_paths, page_path: Path) -> tuple[Path, Path]:
    """The page and its plot (<page stem>.png beside it) from one report or several of one task."""
    paths = [report_paths] if isinstance(report_paths, (str, Path)) else list(report_paths)
    report = merged([read_report(path) for path in paths], paths)
    page_path = Path(page_path)
    if page_path.suffix != ".md":
        raise BaselinesError(f"--page {page_path}: give a .md file")
    image = page_path.with_suffix(".png")
    page_path.parent.mkdir(parents=True, exist_ok=True)
    plot(report, image)
    page_path.write_text(page(report, image.name, " ".join(Path(path).name for path in paths)))
    return page_path, image
