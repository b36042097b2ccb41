"""Every row of the evaluator page's input table (docs/evaluator.md, "Every input, benchmark by benchmark") read
back: a file in the row's format answers a benchmark's items in the row's prompt, and the score shows the labels,
ids and missing items the row states. A row whose cells this test does not know fails: the table says only what
is tested."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from baselines.registry import get_task
from baselines.api import score
from baselines.runs.run import load_split
from baselines.tasks.caselawqa.prompts import caselawqa_document
from baselines.tasks.rr.prompts import rr_documents
from baselines.tasks.scalr.prompts import scalr_document

DOCS = Path(__file__).resolve().parent.parent / "docs" / "evaluator.md"
HEADING = "## Every input, benchmark by benchmark"
COLUMNS = ["benchmark", "prompt", "input", "labels read", "id", "missing"]
LETTERS = "ABCDE"


def table_rows() -> list[dict]:
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index(HEADING):].split("\n## ")[0]  # up to the next section
    table = [line for line in section.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in table[0].strip("|").split("|")]
    assert header == COLUMNS
    return [dict(zip(header, (cell.strip() for cell in line.strip("|").split("|")))) for line in table[2:]]


# --- tiny benchmarks in their real layouts ----------------------------------------------------------------

def scalr_data(root: Path) -> Path:
    (root / "scalr").mkdir(parents=True)
    rows = [{"index": str(k), "question": f"Whether rule {k} binds the agency?", "answer": str((k + 3) % 5),
             **{f"choice_{c}": f"holding that rule {k} binds party {c} of the agency" for c in range(5)}}
            for k in range(4)]
    (root / "scalr" / "test.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return root


def caselawqa_data(root: Path) -> Path:
    folder = root / "caselawqa"
    folder.mkdir(parents=True)
    task = {"instruction": "What follows is an opinion from the Supreme Court. Decide.", "question": "Which outcome?",
            "choices": ["affirmed", "reversed", "vacated"], "labels": ["A", "B", "C"], "court": "sc"}
    (folder / "tasks.json").write_text(json.dumps({"sc_direction": task}))
    cases = [f"2000-{k:03d}" for k in range(4)]
    with gzip.open(folder / "examples.jsonl.gz", "wt") as handle:
        handle.writelines(json.dumps({"id": f"sc_direction/{case}", "task": "sc_direction", "case_id": case,
                                      "answer": [k % 3], "split": "test"}) + "\n" for k, case in enumerate(cases))
    with gzip.open(folder / "opinions.jsonl.gz", "wt") as handle:
        handle.writelines(json.dumps({"case_id": case, "cap_case_id": str(9000 + k),
                                      "text": f"The judgment below is {task['choices'][k % 3]}."}) + "\n"
                          for k, case in enumerate(cases))
    return root


def rr_data(root: Path) -> Path:
    folder = root / "rr" / "legaleval2023"
    folder.mkdir(parents=True)
    labels = ["PREAMBLE", "FAC", "ANALYSIS", "RPC"]
    text, results = "", []
    for k, label in enumerate(labels):
        sentence = f"Sentence {k} of the judgment."
        results.append({"id": f"r{k}", "value": {"start": len(text), "end": len(text) + len(sentence),
                                                 "text": sentence, "labels": [label]}})
        text += sentence + "\n"
    document = {"id": 7, "meta": {"group": "Tax"}, "data": {"text": text}, "annotations": [{"result": results}]}
    for split in ("train", "dev"):
        (folder / f"{split}.json").write_text(json.dumps([document]))
    return root


BENCHMARKS = {"scalr": scalr_data, "caselawqa": caselawqa_data, "rr": rr_data}


def harness_documents(benchmark: str, prompt: str, records) -> dict[str, dict]:
    """Our export's document of each item, in the row's prompt."""
    if benchmark == "scalr":
        return {item.id: scalr_document(item, "legalbench" if prompt.startswith("LegalBench") else "ours")
                for item in records}
    if benchmark == "caselawqa":
        return {item.id: caselawqa_document(item, 0) for item in records}
    return {document["id"]: document for doc in records for document in rr_documents(doc, 1)}


# --- what each row says, as answers and expectations ---------------------------------------------------------

def answers(benchmark: str, prompt: str, references) -> tuple[list[str], list[bool]]:
    """Generations for the first two items, and whether each must be read: the first in the prompt's own
    spelling, the second in the other numbering (SCALR) or followed by a continuation of the prompt."""
    first, second = references[0], references[1]
    if benchmark == "scalr":
        digit = prompt.startswith("LegalBench")
        own = f"Answer: {first.gold[0]}" if digit else f"The final answer is {LETTERS[int(first.gold[0])]}"
        other = f"({LETTERS[int(second.gold[0])]})" if digit else f"{second.gold[0]}"
        return [own, other], [True, None]  # None: as the labels-read cell says
    opener = "Question: Which outcome?\nA. affirmed" if benchmark == "caselawqa" else "Roles:\nFAC: facts"
    wrong = next(label for label in second.labels if label not in second.gold)
    return [f" {first.gold[0]}", f"{second.gold[0]}\n\n{opener}\nAnswer: {wrong}"], [True, True]


def second_is_read(row: dict) -> bool:
    cell = row["labels read"]
    known = {"A-E; 0-4 with `--numbering legalbench`": False, "0-4 and A-E, with `--numbering legalbench`": True,
             "A-E": False, "0-4": False, "the task's labels": True, "the role names": True}
    assert cell in known, f"unknown 'labels read' cell {cell!r}"
    return known[cell]


def custom_id(row: dict, item_id: str) -> str:
    cell = row["id"]
    prefix = f"{row['benchmark']}-"
    known = {f"`custom_id` less `{prefix}`": prefix + item_id,
             f"`custom_id` less `{prefix}`, `__` for `/`": prefix + item_id.replace("/", "__")}
    assert cell in known, f"unknown batch 'id' cell {cell!r}"
    return known[cell]


def write_file(row: dict, folder: Path, references, records, texts: list[str]) -> tuple[Path, dict]:
    """The row's input format holding `texts` for the first items, and nothing, or a failed request, for the
    third; the score options it needs."""
    kind, ids = row["input"], [ref.id for ref in references]
    if kind == "JSONL":
        assert row["id"] == "`id`" and row["missing"] == "no row"
        return jsonl(folder / "llm.jsonl", [{"id": key, "raw": text} for key, text in zip(ids, texts)]), {}
    if kind == "harness log":
        assert row["id"] == "the doc's `id`" and row["missing"] == "no sample"
        documents = harness_documents(row["benchmark"], row["prompt"], records)
        samples = [{"doc_id": k, "doc": documents[key], "target": "", "arguments": [], "resps": [[text]],
                    "filtered_resps": [text], "filter": "none"} for k, (key, text) in enumerate(zip(ids, texts))]
        return jsonl(folder / "samples_task_2026-01-01T00-00-00.jsonl", samples), {}
    if kind == "Lawma folder":
        assert row["id"] == "the case's CAP id in `<task>.json`" and row["missing"] == "no response"
        by_id = {item.id: item for item in records}
        (folder / "model").mkdir()
        responses = [{"id": by_id[key].meta["cap_case_id"], "model_response": text, "ground_truth": f" {gold}"}
                     for key, text, gold in zip(ids, texts, (ref.gold[0] for ref in references))]
        (folder / "model" / "sc_direction.json").write_text(json.dumps(responses))
        return folder / "model", {"format": "lawma"}
    assert row["missing"] == "no line, or a failed request", row["missing"]
    keys = [custom_id(row, key) for key in ids[:3]]
    if kind == "OpenAI batch":
        lines = [{"id": f"batch_req_{k}", "custom_id": key, "error": None,
                  "response": {"status_code": 200, "request_id": f"req_{k}", "body": {"object": "chat.completion",
                               "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                            "finish_reason": "stop"}]}}}
                 for k, (key, text) in enumerate(zip(keys, texts))]
        lines.append({"id": "batch_req_2", "custom_id": keys[2], "response": None,
                      "error": {"code": "batch_expired", "message": "This request could not be executed."}})
    else:
        assert kind == "Anthropic batch", f"unknown input {kind!r}"
        lines = [{"custom_id": key, "result": {"type": "succeeded", "message": {
            "type": "message", "role": "assistant", "content": [{"type": "text", "text": text}]}}}
            for key, text in zip(keys, texts)]
        lines.append({"custom_id": keys[2], "result": {"type": "expired"}})
    return jsonl(folder / "batch.jsonl", lines), {}


def jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_the_table_has_a_row_for_every_benchmark_prompt_and_input():
    rows = table_rows()
    keys = [(row["benchmark"], row["prompt"], row["input"]) for row in rows]
    assert len(keys) == len(set(keys)) == 17
    assert {row["benchmark"] for row in rows} == set(BENCHMARKS)


@pytest.mark.parametrize("row", table_rows(), ids=lambda row: f"{row['benchmark']}|{row['prompt']}|{row['input']}")
def test_each_row_reads_back_from_a_file_in_its_format(row, tmp_path):
    benchmark = row["benchmark"]
    data = BENCHMARKS[benchmark](tmp_path / "data")
    records = load_split(get_task(benchmark), data, get_task(benchmark).eval_split)
    references = get_task(benchmark).references(records)
    texts, read = answers(benchmark, row["prompt"], references)
    read = [second_is_read(row) if expected is None else expected for expected in read]
    path, options = write_file(row, tmp_path, references, records, texts)
    if row["labels read"] == "0-4 and A-E, with `--numbering legalbench`":  # a file that does not say its numbering
        options["numbering"] = "legalbench"
    result, folder = score(benchmark, path, data, name="table", missing="skip", **options)
    samples = {sample["id"]: sample for sample in map(json.loads, (folder / "samples.jsonl").open())}
    assert set(samples) == {references[0].id, references[1].id}  # the third: missing, not scored
    assert result.missing == len(references) - 2
    assert [samples[ref.id]["correct"] for ref in references[:2]] == read
    assert [samples[ref.id]["answer"] is not None for ref in references[:2]] == read
