"""The headline's per-group table: our best against the task's plain method (PublishedFigures.headline_versus),
paired on each group's items, beside the best LLM run."""
from __future__ import annotations

import pytest

from baselines.comparison.headline import best_ours, headline_section, per_group_section
from baselines.comparison.leaderboard import compare
from baselines.core.records import Reference
from baselines.registry import PublishedFigures, get_task
from test_compare import write_system

TASKS = ("sc_x", "sc_y", "sc_z")


def refs() -> list[Reference]:
    """Ten items in each of three CaselawQA-like tasks; item k of the list is task k // 10."""
    return [Reference(id=f"{task}/{k}", gold=("A",), labels=("A", "B"), group=task)
            for task in TASKS for k in range(10)]


def right(per_task: tuple[int, int, int]) -> set[int]:
    """The first c items of each task right."""
    return {10 * t + k for t, count in enumerate(per_task) for k in range(count)}


def write_runs(best: str) -> None:
    """`best` (signals or linear) is our best; llm answers tasks sc_x and sc_y only (--only-present)."""
    strong, weak = right((9, 8, 6)), right((5, 8, 3))
    write_system("caselawqa", "signals", refs(), strong if best == "signals" else weak)
    write_system("caselawqa", "linear", refs(), weak if best == "signals" else strong)
    write_system("caselawqa", "llm", refs(), right((10, 7, 0)), external=True, missing="skip", keep=set(range(20)))
    write_system("caselawqa", "small-llm", refs(), right((2, 2, 2)), external=True)


def render() -> list[str]:
    """The per-task section of the results page (the headline names that page)."""
    comparison = compare("caselawqa", replicates=200)
    return per_group_section(get_task("caselawqa"), comparison, best_ours(comparison))


def headline() -> list[str]:
    return headline_section(get_task("caselawqa"), compare("caselawqa", replicates=200), None, lambda system: "cmd")


def table(lines: list[str]) -> dict[str, list[str]]:
    """The per-group table's rows by their first cell (after the heading, a blank line, the columns and the rule)."""
    start = next(k for k, line in enumerate(lines) if line.startswith("Per task:"))
    rows = [line.strip("|").split(" | ") for line in lines[start + 4:] if line.startswith("| ")]
    end = next(k for k, row in enumerate(rows) if row[0].strip().startswith("mean over the"))
    return {row[0].strip(): [cell.strip() for cell in row[1:]] for row in rows[:end + 1]}


def test_table_sets_the_best_of_ours_against_the_plain_method_beside_the_best_llm():
    write_runs(best="signals")
    lines = render()
    assert "Per task: **signals** against **linear** (paired Δ on each task's items) and the best LLM run, " \
           "**llm**:" in lines
    rows = table(lines)
    assert list(rows)[:3] == list(TASKS)
    assert rows["sc_x"][:4] == ["10", "90.0", "50.0", "+40.0"]
    assert rows["sc_y"][:4] == ["10", "80.0", "80.0", "+0.0"]  # same items right: no difference, no interval
    assert rows["sc_y"][4] == "[+0.0, +0.0]"
    assert rows["sc_z"][:4] == ["10", "60.0", "30.0", "+30.0"]
    assert [rows[task][5] for task in TASKS] == ["100.0", "70.0", "–"]  # the LLM has no item of sc_z
    assert rows["mean over all 3 tasks"][:4] == ["30", "76.7", "53.3", "+23.3"]
    assert rows["mean over all 3 tasks"][4].startswith("[+") and rows["mean over all 3 tasks"][5] == "–"
    assert rows["mean over the 2 tasks llm covers"][:4] == ["20", "85.0", "65.0", "+20.0"]
    assert rows["mean over the 2 tasks llm covers"][5] == "85.0"


def test_delta_of_a_task_is_the_difference_of_its_accuracies_and_its_interval_holds_it():
    write_runs(best="signals")
    for task, cells in table(render()).items():
        delta = float(cells[3])
        assert delta == pytest.approx(float(cells[1]) - float(cells[2]), abs=0.1 + 1e-9), task  # three roundings
        low, high = (float(x) for x in cells[4].strip("[]").split(", "))
        assert low <= delta <= high, task


def test_mean_row_is_the_comparisons_paired_difference_turned_round():
    write_runs(best="signals")
    comparison = compare("caselawqa", replicates=200)
    paired = comparison.paired["linear"]  # linear − signals
    row = table(render())["mean over all 3 tasks"]
    assert float(row[3]) == pytest.approx(-100 * paired.difference, abs=0.051)
    assert row[4] == f"[{-100 * paired.interval[1]:+.1f}, {-100 * paired.interval[0]:+.1f}]"


def test_no_table_when_the_best_of_ours_is_the_plain_method():
    write_runs(best="linear")
    assert render() == []
    lines = headline()
    assert lines[2].startswith("| system | items |") and lines[4].startswith("| **linear** (ours, best) |")
    assert not any("results page" in line for line in lines)


def test_the_headline_names_the_page_of_the_per_task_table():
    write_runs(best="signals")
    assert "Per task, signals against linear and the best LLM run: the caselawqa results page." in headline()


def test_no_table_for_a_task_without_a_plain_method_or_its_run():
    write_system("caselawqa", "signals", refs(), right((9, 8, 6)))
    comparison = compare("caselawqa", replicates=200)
    assert per_group_section(get_task("caselawqa"), comparison, comparison.reference) == []  # no linear run
    scalr = get_task("scalr")
    assert scalr.capability(PublishedFigures).headline_versus is None
    assert per_group_section(scalr, None, None) == []


def test_two_renders_are_identical():
    write_runs(best="signals")
    assert render() == render()
