"""The calibration of the overlap check (baselines.runs.overlap), on the benchmark data (BASELINES_DATA): how much of
lightly edited copies of training documents it catches, edit by edit, beside its false alarms on the splits a model
is scored on (RR dev against train, CaselawQA test against train and val).

Each edit is applied to 30 training documents (seeded), which are then measured against the whole training set, as
`eval` measures a test file: the overlap is the share of their words the check counts as fitted (a near-duplicate
document counts whole), and near-duplicates the documents past the near-duplicate threshold. Run as a script
(`python tests/overlap_calibration.py`) it writes docs/notes/overlap-calibration.json and prints the table of the
evaluator page.
"""
from __future__ import annotations

import json
import random
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

RESULT = Path(__file__).parent.parent / "docs" / "notes" / "overlap-calibration.json"
FILLERS = ("indeed", "moreover", "notably", "furthermore", "basically", "essentially", "really", "certainly")
EDITS = ("verbatim", "sentences reordered", "every sixth word deleted", "filler words inserted",
         "adjacent words swapped", "20 common words replaced by synonyms", "all four edits at once")
SAMPLE = 30


def common_word_synonyms(text: str) -> dict[str, str]:
    """The 20 most common words of four letters or more in a document, each with a made-up synonym."""
    counts = Counter(word for word in (w.lower().strip(".,;:") for w in text.split()) if len(word) > 3)
    return {word: "syn" + word[::-1] for word, _ in counts.most_common(20)}


def edited(text: str, kind: str, rng: random.Random, synonym: dict[str, str]) -> str:
    """`text` under one edit (the families of round five's probes); `synonym` is its document's."""
    words = text.split()
    if kind == "every sixth word deleted":
        words = [word for k, word in enumerate(words) if k % 6 != 5]
    elif kind == "filler words inserted":
        words = [piece for k, word in enumerate(words) for piece in ([word, rng.choice(FILLERS)] if k % 5 == 4
                                                                    else [word])]
    elif kind == "adjacent words swapped":
        for k in range(0, len(words) - 1, 2):
            words[k], words[k + 1] = words[k + 1], words[k]
    elif kind == "20 common words replaced by synonyms":
        words = [synonym.get(word.lower().strip(".,;:"), word) for word in words]
    elif kind == "all four edits at once":
        for step in EDITS[2:6]:
            words = edited(" ".join(words), step, rng, synonym).split()
    return " ".join(words)


def edit_records(task, records, kind: str, rng: random.Random) -> list:
    """Copies of `records` under another id, their texts edited (RR: each sentence, with the synonyms of the whole
    judgment; CaselawQA: the opinion)."""
    out = []
    for record in records:
        if hasattr(record, "sentences"):
            synonym = common_word_synonyms(" ".join(s.text for s in record.sentences))
            sentences = [replace(s, text=edited(s.text, kind, rng, synonym)) for s in record.sentences]
            if kind == "sentences reordered":
                sentences = sentences[::-1]
            out.append(replace(record, id=f"edited-{record.id}", sentences=sentences))
        else:
            text = edited(record.context, kind, rng, common_word_synonyms(record.context))
            if kind == "sentences reordered":
                text = " ".join(reversed(text.split(". ")))
            out.append(replace(record, id=f"edited-{record.id}", context=text))
    return out


SPLITS = {"rr": (("train",), "dev"), "caselawqa": (("train", "val"), "test")}  # fitted, scored


def calibrate(data_dir, tasks: tuple[str, ...] = tuple(SPLITS)) -> dict:
    from baselines.registry import get_task
    from baselines.runs.overlap import fit_units, measure
    from baselines.runs.run import load_split

    table = {}
    for name in tasks:
        fitted_splits, scored_split = SPLITS[name]
        task = get_task(name)
        fitted = [record for split in fitted_splits for record in load_split(task, data_dir, split)]
        units = fit_units(fitted, task.contents)
        rows = {f"{scored_split} (natural)": measure(units, load_split(task, data_dir, scored_split), task.contents)}
        documents = list({task.contents.document(record): record for record in fitted}.values())
        sample = random.Random(0).sample(documents, SAMPLE)
        for kind in EDITS:
            rows[kind] = measure(units, edit_records(task, sample, kind, random.Random(1)), task.contents)
        table[name] = {row: {key: report[key] for key in ("overlap", "near_duplicates", "scored_documents",
                                                            "closest_document", "near_duplicate_threshold")}
                       for row, report in rows.items()}
    return table


def percent(share: float) -> str:
    return f"{100 * share:.1f}%" if share >= 0.01 or share == 0 else f"{100 * share:.2f}%"


def markdown(table: dict) -> str:
    lines = ["| documents measured | RR (train fitted): overlap / near-duplicates | CaselawQA (train and val "
             "fitted): overlap / near-duplicates |", "|---|---|---|"]
    shown = [("the scored split, natural (false alarms)", ("dev (natural)", "test (natural)"))] + \
        [(f"30 training documents, {kind}", (kind, kind)) for kind in EDITS]
    for label, (rr_row, cq_row) in shown:
        cells = [f"{percent(table[task][row]['overlap'])} / {table[task][row]['near_duplicates']} of "
                 f"{table[task][row]['scored_documents']}" for task, row in (("rr", rr_row), ("caselawqa", cq_row))]
        lines.append(f"| {label} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)


def main() -> None:
    from baselines.core.paths import data_location

    table = calibrate(data_location(None)[0])
    from baselines.runs.overlap import OVERLAP_VERSION

    RESULT.write_text(json.dumps({"command": "python tests/overlap_calibration.py", "overlap_version": OVERLAP_VERSION,
                                  "sample": SAMPLE, "table": table}, indent=1) + "\n", encoding="utf-8")
    print(markdown(table))
    print(f"wrote {RESULT}", file=sys.stderr)


if __name__ == "__main__":
    main()
