"""One contract for every registered method: estimator shape, fit/predict, save/load round trip."""
import dataclasses
import json

import pytest

from baselines.evaluation.scoring import score_predictions
from baselines.methods import method_class, method_table
from baselines.methods.base import Method
from baselines.core.records import ChoiceItem, letter_labels
from baselines.registry import get_task

WORDS = ["warrant", "search", "tax", "contract", "speech", "damages", "appeal", "jury", "statute", "agency"]


def scalr_items(n=20):
    items = []
    for i in range(n):
        answer = i % 5
        choices = [f"holding that the {WORDS[(i + k) % 10]} rule applies to {WORDS[(i + 2 * k) % 10]}" for k in range(5)]
        question = f"Whether the {WORDS[(i + answer) % 10]} rule applies to {WORDS[(i + 2 * answer) % 10]} cases"
        items.append(ChoiceItem(id=str(i), question=question, choices=choices, labels=["0", "1", "2", "3", "4"],
                                answer=[answer]))
    return items


def caselawqa_items(n=24):
    items = []
    for task, width in (("sc_toy_a", 2), ("sc_toy_b", 3)):
        for i in range(n):
            answer = i % width
            opinion = f"Opinion {i}. The court considered the {WORDS[answer]} issue. " * 5 + WORDS[i % 10]
            items.append(ChoiceItem(id=f"{task}/{i}", question="Which?", choices=[f"choice {k}" for k in range(width)],
                                    labels=letter_labels(width), answer=[answer], group=task, context=opinion,
                                    split="train", meta={"case_id": str(i), "court": "sc"}))
    return items


def rr_documents(n=6):
    from baselines.tasks.rr.data import load_rr

    import tempfile
    from pathlib import Path

    rows = []
    for d in range(n):
        sentences = ["IN THE HIGH COURT OF KARNATAKA", "The appellant was charged with theft.",
                     "The witness saw the accused at night.", "We have considered the evidence.",
                     "Accordingly, the appeal is dismissed."]
        labels = ["PREAMBLE", "FAC", "FAC", "ANALYSIS", "RPC"]
        rows.append({"id": f"doc{n - d}", "sentences": sentences, "labels": labels})  # ids not in sorted order
    folder = Path(tempfile.mkdtemp())
    (folder / "docs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return load_rr(None, "train", folder / "docs.jsonl")


FIXTURES = {"scalr": scalr_items, "caselawqa": caselawqa_items, "rr": rr_documents, "segmenter": rr_documents}
ALL = [(task, name) for task, methods in method_table().items() for name in methods]
# quick settings so the contract runs in seconds; keys must be real parameters of the method
FAST = {"bilstm-crf": {"max_epochs": 2}, "bilstm-crf-ft": {"max_epochs": 2, "tune_epochs": 1, "max_seq_length": 16},
        "bilstm-crf-ft-ensemble": {"max_epochs": 2, "tune_epochs": 1, "max_seq_length": 16, "members": 2}, "learned": {}, "embed-linear": {}, "trained": {"epochs": 1, "val_docs": 1}}


@pytest.mark.parametrize("task, name", ALL)
def test_method_contract(task, name, tmp_path):
    klass = method_class(task, name)
    assert issubclass(klass, Method) and dataclasses.is_dataclass(klass)
    assert klass.task == task and klass.name == name
    fields = {f.name for f in dataclasses.fields(klass)}
    params = {k: v for k, v in FAST.get(name, {}).items() if k in fields}
    method = klass(**params)
    assert not [a for a in vars(method) if a.endswith("_")], "fitted state before fit"
    records = FIXTURES[task]()
    fitted = method.fit(records, None) if method.needs_fit else method
    assert fitted is method
    predictions = method.predict(records)
    assert [p["id"] for p in predictions] == expected_ids(task, records)
    result, _ = score_predictions(get_task(task), predictions, get_task(task).references(records), replicates=50)
    assert result.coverage == 1.0 and result.missing == 0
    if get_task(task).answer_type != "segmentation":  # a segmentation run is scored on boundary items, not documents
        assert result.n == len(get_task(task).references(records))
    method.save(tmp_path / "model")
    config = json.loads((tmp_path / "model" / "config.json").read_text())
    assert config["params"] == as_json(method.get_params())
    assert "versions" in config and config["method"] == name
    reloaded = Method.load(tmp_path / "model")
    assert type(reloaded) is klass and as_json(reloaded.get_params()) == as_json(method.get_params())
    again = reloaded.predict(records)
    assert [answer_of(p) for p in again] == [answer_of(p) for p in predictions]


def task_references(task, records):
    return get_task(task).references(records)


def expected_ids(task, records):
    """The ids of a method's rows in order: for rhetorical roles one row per sentence, document by document
    (the order of the gold sentences); for the other tasks one row per reference, in the references' order."""
    if task == "rr":
        return [sentence.id for doc in records for sentence in doc.sentences]
    return [r.id for r in task_references(task, records)]


def answer_of(row):
    """What a prediction row answers: its id and label (or, for a segmenter, its spans)."""
    return row["id"], row.get("prediction", row.get("spans"))


def as_json(value):
    return json.loads(json.dumps(value))
