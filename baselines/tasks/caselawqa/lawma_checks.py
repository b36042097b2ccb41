"""Checking that each Lawma response file is a file of the task it is named after, beyond its ground truth.

A file's `ground_truth` is compared with our gold answers (lawma.GROUND_TRUTH_TOLERANCE). Two more things
betray the responses of another task, and a file is refused (one line naming each file and why) when one
is over its tolerance:

* its cases, in every file: the share of its rows on the cases of our split that are no example of its
  task, over CASE_TOLERANCE. Lawma's test set of each task is its own subset of the cases (capped at 1,000
  examples, majority class at 50%), and our test examples are exactly Lawma's for the 428 cases with text
  here, so a file of the task holds none of those; a file of another task holds the examples of that task.
* its labels, in a file with rows that have no ground truth: the share of its joined responses that are
  none of the task's labels, neither directly nor through the CJK/logprobs rule (lawma.py) -- letters for a
  numbered task, "M" for a task of 7 choices, "150" for one of 125 -- over LABEL_SET_TOLERANCE. (With
  ground truth, free-text responses are let through to the extractor: the ground truth vouches for the file.)

Measured on the four released systems (136 files), `ground_truth` stripped from copies: no response outside
the task's labels and no row on another task's example, in any file (0 of 5,039 joined rows for legalbert, 0
of 3,870 for each Llama-family run): all are accepted and score as with their ground truth. Each file read
under the name of each other task (4,896 readings): 339 are errors already (logprobs offering fewer choices
than the task has), 4,537 are refused -- 2,908 with more than LABEL_SET_TOLERANCE of their responses off the
labels (all of them in the median such reading), 4,496 with more than CASE_TOLERANCE of their rows on other examples (the
least share 2.5%, the median 70%), many by both -- and 20 pass: files of a task with the same labels and the
same cases (sc_caseoriginstate and sc_casesourcestate, 84 cases each; sc_caseorigin, sc_petitioner and
sc_respondent, 301 cases) and the issue files of one or four cases read as tasks of 125 or more numbered
choices. Like swaps among the five state tasks in files with ground truth (lawma.py), such a swap cannot be
told from its file. With their ground truth, the same 4,896 readings give 339 errors, 3,664 refused for their
ground truth, 885 more for their cases (among them the swaps of state tasks that ground truth cannot tell),
and 8 pass: sc_caseoriginstate and sc_casesourcestate read as each other, in each of the four systems.

Answer distributions are not used: a model's answers may lie anywhere from the gold distribution on a
task's own file (total variation distance against the gold answers of the joined items up to 1.0 on the
released files: legalbert answers "125" to all 119 sc_adminaction items and "N" to all 255 sc_issuearea
items, llama-3-70b-instruct codes of other issue areas to all 23 sc_issue_10 items), so no threshold on them
passes those files and refuses a swap.
"""
from __future__ import annotations

from pathlib import Path

from baselines.core.errors import DataError

LABEL_SET_TOLERANCE = 0.05  # share of joined responses that may be none of the task's labels (measured: 0)
CASE_TOLERANCE = 0.02  # share of rows on our cases that may be no example of the task (measured: 0)


def task_counts(rows: int) -> dict:
    """The counts kept for each task file (per_task in the join report)."""
    return {"rows": rows, "joined": 0, "other_examples": 0, "off_labels": 0, "without_ground_truth": 0}


def check_task_files(per_task: dict[str, dict], files: dict[str, Path]) -> dict[str, int]:
    """Refuse the task files that fail the case check, or, with rows without ground truth, the label check (see
    the module docstring), naming each file and its shares; the files accepted with rows without ground truth,
    and how many, for the join report."""
    failed = [(files[task], reasons) for task, counts in sorted(per_task.items()) if (reasons := _failures(counts))]
    if failed:
        shown = ", ".join(f"{file.name} ({'; '.join(reasons)})" for file, reasons in failed)
        raise DataError(f"not a file of the task it is named after: {shown}; refusing to score (a file of another "
                        "task under this task's name?)", failed[0][0].parent)
    return {task: counts["without_ground_truth"] for task, counts in sorted(per_task.items())
            if counts["without_ground_truth"]}


def _failures(counts: dict) -> list[str]:
    """Why a file is not one of its task: its cases, or the labels of its responses, with their shares."""
    reasons = []
    joined, other = counts["joined"], counts["other_examples"]
    if other > CASE_TOLERANCE * (joined + other):
        reasons.append(f"{_share(other, joined + other)} of its rows on our cases are no example of the task, "
                       f"more than {CASE_TOLERANCE:.0%}")
    if counts["without_ground_truth"] and counts["off_labels"] > LABEL_SET_TOLERANCE * joined:
        reasons.append(f"no ground truth, and {_share(counts['off_labels'], joined)} of its responses are none of "
                       f"the task's labels, more than {LABEL_SET_TOLERANCE:.0%}")
    return reasons


def _share(part: int, whole: int) -> str:
    return f"{part:,} of {whole:,} ({part / whole:.1%})"
