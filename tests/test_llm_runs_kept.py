"""The LLM runs made here are kept as their sample logs (docs/results/llm-runs/<task>/<model>/), so that the pages
can be regenerated without running the model again: scored from there, each gives the figure and the measured cost
its headline row shows."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from baselines import score

REPO = Path(__file__).resolve().parent.parent
KEPT = sorted(record.parent for record in (REPO / "docs" / "results" / "llm-runs").rglob("llm_run.json"))


def headline_section(task: str) -> list[str]:
    """The lines of the task's section of the generated headline."""
    headline = (REPO / "docs" / "results" / "headline.md").read_text(encoding="utf-8")
    return headline.split(f"### {task} (")[1].split("\n### ")[0].split("\n")


def cells_of(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def headline_cells(task: str, system: str) -> dict[str, str]:
    """The system's row of the task's headline table, by column."""
    section = headline_section(task)
    header = next(line for line in section if line.startswith("| system |"))
    row = next(line for line in section if line.startswith(f"| {system} (LLM) |"))
    return dict(zip(cells_of(header), cells_of(row)))


@pytest.mark.parametrize("task", ["scalr", "rr", "caselawqa"])
def test_the_headline_has_an_llm_run_here_with_its_log_kept(task):
    section = headline_section(task)
    assert [line for line in section if line.startswith("| ") and "(LLM)" in line and "(measured) |" in line]
    assert not any("No LLM run yet" in line for line in section)
    assert any(folder.parent.name == task for folder in KEPT), f"{task}: the run's sample logs are not kept"


@pytest.mark.parametrize("folder", KEPT, ids=lambda folder: f"{folder.parent.name}/{folder.name}")
def test_a_kept_run_scores_to_the_figure_and_cost_of_its_headline_row(folder, data_dir):
    task, system = folder.parent.name, folder.name
    result, _ = score(task, folder, data_dir, name=system, only_present=True, quiet=True)
    cells = headline_cells(task, system)
    assert cells[f"{result.main_metric} %"].split()[0] == f"{100 * result.metrics[result.main_metric]:.1f}"
    cost = result.meta["cost"]
    assert cost["measured_by"] == "baselines llm run"
    assert cells["cost / 1k items"] == f"{cost['predict']['cpu_seconds_per_1000']:,.0f} CPU-s (measured)"


LOAD_RUNS = sorted(path for path in (REPO / "docs" / "results" / "llm-load").iterdir() if path.is_dir())


def cost_page_row(run: str) -> list[str]:
    """The cells of the cost page's row of a run of the load spread (docs/results/llm-load/RUN)."""
    lines = (REPO / "docs" / "cost.md").read_text(encoding="utf-8").splitlines()
    return next(cells_of(line) for line in lines if line.startswith(f"| {run} |"))


def test_the_load_spread_has_three_runs_of_one_generation():
    digests = {next(iter(json.loads(next(path.rglob("llm_run.json")).read_text())["samples"].values()))
               for path in LOAD_RUNS}
    assert [path.name for path in LOAD_RUNS] == ["load0", "load2", "load2-threads2"] and len(digests) == 1


@pytest.mark.parametrize("folder", LOAD_RUNS, ids=lambda folder: folder.name)
def test_a_load_spread_run_scores_to_the_cost_on_the_cost_page(folder, data_dir):
    result, _ = score("scalr", folder, data_dir, name=folder.name, only_present=True, quiet=True)
    cost = result.meta["cost"]
    assert cost["measured_by"] == "baselines llm run"
    cells = cost_page_row(folder.name)
    assert cells[3].split()[0] == f"{cost['predict']['cpu_seconds_per_1000']:,.0f}"
    assert cells[4].split()[0] == f"{cost['predict']['wall_seconds_per_1000']:,.0f}"
    assert cells[1].split()[0] == f"{cost['machine']['others_cores']:.2f}"
