"""The comparison's cells and notes beside the leaderboard: a run's cost fields (seconds, dollars), its dollars per
correct answer, its missing references, and the notes under the tables on what the marks and columns mean."""
from __future__ import annotations

from baselines.comparison.compared import Compared
from baselines.comparison.cost import run_cost, run_dollars
from baselines.comparison.measured_costs import measurement_notes
from baselines.comparison.systems import System
from baselines.runs.overlap import OVERLAP_MARK
from baselines.runs.prices import Dollars, money

PARTIAL = "†"  # marks a run scored with --only-present


def cost_fields(system: System) -> dict:
    cost, priced = run_cost(system), run_dollars(system)
    usd = priced if isinstance(priced, Dollars) else None
    return {"cost_seconds_per_1000": cost.seconds if cost else None, "cost_device": cost.device if cost else None,
            "cost_estimated": cost.estimate if cost else None,
            "usd_per_1000": usd.per_1000 if usd else None, "usd_per_correct": usd.per_correct if usd else None,
            "correct_answers": usd.correct if usd else None,
            "usd_priced_by": usd.basis if usd else priced, "usd_estimated": usd.estimate if usd else None,
            "price_date": usd.date if usd else None}


def missing_cell(record: dict) -> str:
    """The references without a prediction, the failed requests apart: "2 wrong", "3 skipped", "2 failed, wrong;
    1 skipped", "0"."""
    failed, missing, skipped = record["failed"], record["missing"], record["skipped"]
    if not missing:
        return "0"
    wrong = missing - skipped
    failed_wrong = min(failed, wrong)  # failed requests count wrong unless the run skipped every missing item
    parts = [f"{failed} failed, {'wrong' if failed_wrong else 'skipped'}"] if failed else []
    others = missing - failed
    if others:
        parts.append(f"{others} {'wrong' if wrong - failed_wrong else 'skipped'}")
    return "; ".join(parts)


def per_correct_cell(record: dict) -> str:
    """The dollars per correct answer ('≈' from estimates), 'no correct answer', or '–' when unpriced."""
    if record["usd_per_1000"] is not None and record["correct_answers"] == 0:
        return "no correct answer"
    if record["usd_per_correct"] is None:
        return "–"
    return ("≈" if record["usd_estimated"] else "") + money(record["usd_per_correct"])


def footer(comparison: Compared) -> list[str]:
    """What the leaderboard's marks and columns mean, when a run needs it."""
    lines = []
    if any(s.partial for s in comparison.systems):
        lines.append(f"{PARTIAL} scored with --only-present: its figures are on the items it answered only, so they "
                     "are not comparable with runs on every reference and it is listed after them; its share of all "
                     "items answered counts the skipped ones as not answered (its coverage, in its scoring summary, "
                     "is the share of the items it scored).")
    for system in comparison.systems:
        if system.overlap_note:
            lines.append(f"{OVERLAP_MARK} {system.name}: {system.overlap_note} (written with --allow-overlap): an "
                         "in-sample figure, not comparable with the others.")
    if any(s.strict_value is not None for s in comparison.systems):
        lines.append(f"strict {comparison.task.main_metric}: the figure when only explicit answers count (a final-"
                     "answer statement, \"the answer is\", a boxed or bare label), as lm-evaluation-harness's "
                     "strict-match; the difference rests on lenient reading of the generations; – for runs that "
                     "give labels.")
    if any(s.figures["missing"] and not s.figures["skipped"] for s in comparison.systems):
        lines.append("missing, \"N wrong\": N references had no prediction; they count as wrong in every figure and as "
                     "not answered in the share of all items answered.")
    if any(s.figures["failed"] for s in comparison.systems):
        lines.append("missing, \"N failed\": N requests of a batch file failed (its errored lines, or the lines of its "
                     "error file): the items were sent and got no answer, unlike items never sent.")
    return lines + measurement_notes(comparison.systems)
