"""The reasoning-outputs corpus (fixtures/reasoning/): generations written in the styles models write, each with
the answer a careful reader takes, or none.

- generations.jsonl, 890: 430 from hand-written templates on SCALR, CaselawQA and RR label sets ("source":
  "templates"), and 460 written apart from the reader's code, by writers who never read it ("independent").
- families.jsonl, 1,297: three sets written apart from the code for reader version 6, each by a writer who saw
  neither the code nor the other sets ("families-a", "-b", "-c"): reasoning sections, someone else's choice,
  verdicts in unusual words, other languages, checklists and rankings, repeated statements, corrections, quoted
  choice texts, small-model noise, structured outputs. Set c was read once before any change it prompted; its
  first reading is on the evaluator page. A row marked "disputed" says why its reading is open to question.

Read here by our reader, and by lm-evaluation-harness's own filters as its generative multiple-choice tasks
configure them (mmlu flan_cot_zeroshot's strict-match regex, and the flexible-extract multi_choice_regex of mmlu
and gpqa, each followed by take_first).

Run as a script (`python tests/reading_corpus.py`, with the dev extra installed) it writes the counts by source and
style to docs/notes/reading-corpus.json and prints the table of the evaluator page."""
from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

FOLDER = Path(__file__).parent / "fixtures" / "reasoning"
RESULT = Path(__file__).parent.parent / "docs" / "notes" / "reading-corpus.json"
HARNESS_STRICT = (r"((?<=The answer is )(.*)(?=.)|(?<=answer is )(.*)(?=.)|(?<=The answer: )(.*)(?=.)"
                  r"|(?<=The final answer: )(.*)(?=.))")  # mmlu flan_cot_zeroshot, strict-match
HARNESS_FLEXIBLE = {"regex_pattern": r"(\([A-Z]\))", "group_select": -1, "ignore_case": True,
                    "ignore_punctuation": True}  # mmlu flan_cot_zeroshot and gpqa, flexible-extract
READERS = ("ours", "harness strict-match", "harness flexible-extract")
SOURCES = ("templates", "independent", "families-a", "families-b", "families-c")


FILES = ("generations.jsonl", "families.jsonl")


def corpus() -> tuple[dict, list[dict]]:
    """(contexts by name, generations): each generation names its context (task, labels, spellings, choices)."""
    contexts = json.loads((FOLDER / "contexts.json").read_text(encoding="utf-8"))
    rows = [json.loads(line) for name in FILES for line in (FOLDER / name).read_text(encoding="utf-8").splitlines()]
    return contexts, rows


def ours(row: dict, context: dict) -> tuple[str | None, str | None]:
    """(answer, rule) of our extractor, as `baselines score` reads the row."""
    from baselines.evaluation.reading import extract_with_rule
    from baselines.evaluation.scoring import task_openers
    from baselines.registry import get_task

    task = get_task(context["task"])
    return extract_with_rule(row["raw"], context["labels"], task.aliases, context["choices"],
                             openers=task_openers(task), truncated=row.get("truncated", False),
                             numbering=row.get("numbering", context.get("numbering")))


def harness(rows: list[dict], contexts: dict) -> dict[str, list[str | None]]:
    """Each generation read by the harness's two filter pipelines, mapped to a label (None: "[invalid]" or no
    label): strict-match's text by spelling, flexible-extract's "(C)" by the choice's position."""
    import lm_eval.filters  # noqa: F401  (registers the filters)
    from lm_eval.api.registry import get_filter

    strict, flexible, first = (get_filter("regex")(regex_pattern=HARNESS_STRICT),
                               get_filter("multi_choice_regex")(**HARNESS_FLEXIBLE), get_filter("take_first")())
    docs = [{"choices": contexts[row["context"]]["choices"] or contexts[row["context"]]["labels"]} for row in rows]
    responses = [[row["raw"]] for row in rows]
    read = {"harness strict-match": list(first.apply(strict.apply(responses, docs), docs)),
            "harness flexible-extract": list(first.apply(flexible.apply(responses, docs), docs))}
    out = {}
    for name, values in read.items():
        out[name] = [_label(value, contexts[row["context"]], by_position=name.endswith("extract"))
                     for value, row in zip(values, rows)]
    return out


def _label(value: str, context: dict, by_position: bool) -> str | None:
    text = value.strip().strip("().*: ").strip()
    if by_position:
        match = re.fullmatch(r"[A-Z]", text)
        index = ord(text) - ord("A") if match else -1
        return context["labels"][index] if 0 <= index < len(context["labels"]) else None
    spelled = {spelling.casefold(): label for spelling, label in zip(context["spellings"], context["labels"])}
    return spelled.get(text.casefold())


def outcome(got: str | None, expected: str | None) -> str:
    return "right" if got == expected else ("none" if got is None else "wrong")


def tally(rows: list[dict], readings: dict[str, list[str | None]]) -> dict[str, dict]:
    """{group: {"n": n, reader: {"right", "none", "wrong"}}}: each source, each style of the first corpus, "all"."""
    table: dict[str, dict] = {}
    for k, row in enumerate(rows):
        styles = (row["style"],) if row["source"] in ("templates", "independent") else ()
        for style in (*styles, f"all {row['source']}", "all"):
            entry = table.setdefault(style, {"n": 0, **{reader: Counter() for reader in readings}})
            entry["n"] += 1
            for reader, answers in readings.items():
                entry[reader][outcome(answers[k], row["answer"])] += 1
    return {style: {key: dict(value) if isinstance(value, Counter) else value for key, value in entry.items()}
            for style, entry in table.items()}


def markdown(table: dict[str, dict]) -> str:
    """The evaluator page's table: per style, right / none / wrong of each reader."""
    header = ["style", "n", *(f"{reader}: right / none / wrong" for reader in READERS)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    order = {f"all {source}": rank for rank, source in enumerate(SOURCES)}
    for style, entry in sorted(table.items(), key=lambda item: (item[0].startswith("all"), order.get(item[0], 9),
                                                                -item[1]["n"], item[0])):
        cells = [f"{entry[reader].get('right', 0)} / {entry[reader].get('none', 0)} / {entry[reader].get('wrong', 0)}"
                 for reader in READERS]
        lines.append("| " + " | ".join([f"**{style}**" if style.startswith("all") else style, str(entry["n"]), *cells])
                     + " |")
    return "\n".join(lines)


def main() -> None:
    contexts, rows = corpus()
    readings = {"ours": [ours(row, contexts[row["context"]])[0] for row in rows], **harness(rows, contexts)}
    table = tally(rows, readings)
    import lm_eval

    record = {"command": "python tests/reading_corpus.py", "generations": len(rows),
              "lm_eval_version": getattr(lm_eval, "__version__", "unknown"), "by_style": table}
    RESULT.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(markdown(table))
    print(f"wrote {RESULT.relative_to(Path.cwd()) if RESULT.is_relative_to(Path.cwd()) else RESULT}", file=sys.stderr)


if __name__ == "__main__":
    main()
