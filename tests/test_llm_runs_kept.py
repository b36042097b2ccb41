"""The LLM runs made here are kept as their sample logs (docs/results/llm-runs/<task>/<model>/), so that the pages
can be regenerated without running the model again: scored from there, each gives the figure and the measured cost
its headline row shows."""
from __future__ import annotations

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
