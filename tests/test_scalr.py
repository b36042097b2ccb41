"""SCALR: loaders for both distributed formats, bad input, choosers on real data."""
import json

import pytest

from baselines.tasks.scalr.data import load_scalr
from baselines.core.errors import DataError
from baselines.methods.floors import MajorityChooser, RandomChooser
from baselines.tasks.scalr.similarity import TfidfChooser
from baselines.api import evaluate

HEADER = "index\tquestion\tchoice_0\tchoice_1\tchoice_2\tchoice_3\tchoice_4\tanswer"


def write_tsv(path, rows):
    path.write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
    return path


def test_tsv_and_jsonl_give_the_same_items(tmp_path):
    row = ["7", "Whether a search of a car needs a warrant", "holding that a dog sniff is no search",
           "holding that a warrant is needed to search a car", "holding x", "holding y", "holding z", "1"]
    tsv = write_tsv(tmp_path / "test.tsv", ["\t".join(row)])
    jsonl = tmp_path / "test.jsonl"
    jsonl.write_text(json.dumps(dict(zip(HEADER.split("\t"), row))) + "\n")
    assert load_scalr(None, path=tsv) == load_scalr(None, path=jsonl)
    item = load_scalr(None, path=tsv)[0]
    assert item.id == "7" and item.answer == [1] and len(item.choices) == 5


@pytest.mark.parametrize("row, message", [
    ("1\tq\ta\tb\tc\td\te\t5", "answer '5' is not one of the choices"),
    ("1\tq\ta\tb\tc\td\te", "7 fields where the header has 8"),
])
def test_bad_rows_name_file_and_line(tmp_path, row, message):
    path = write_tsv(tmp_path / "test.tsv", ["0\tq\ta\tb\tc\td\te\t0", row])
    with pytest.raises(DataError, match=rf"test.tsv:3: .*{message}"):
        load_scalr(None, path=path)


def test_malformed_json_line(tmp_path):
    path = tmp_path / "test.jsonl"
    path.write_text('{"index": "0"}\n{not json\n')
    with pytest.raises(DataError, match=r"test.jsonl:1: missing column"):
        load_scalr(None, path=path)
    path.write_text('{"index": "0", "question": "q", "choice_0": "a", "choice_1": "b", "choice_2": "c", '
                    '"choice_3": "d", "choice_4": "e", "answer": "0"}\n{not json\n')
    with pytest.raises(DataError, match=r"test.jsonl:2: invalid JSON"):
        load_scalr(None, path=path)


def test_floors_follow_the_estimator_contract(tmp_path):
    items = load_scalr(None, path=write_tsv(tmp_path / "t.tsv", [
        f"{i}\tq{i}\ta\tb\tc\td\te\t{i % 2}" for i in range(5)]))
    majority = MajorityChooser().fit(items)
    assert majority.answer() == "0"
    majority.save(tmp_path / "m")
    reloaded = MajorityChooser.load(tmp_path / "m")
    assert reloaded.predict(items) == majority.predict(items)
    assert RandomChooser(seed=1).predict(items) == RandomChooser(seed=1).predict(list(reversed(items)))[::-1]


def test_tfidf_prefers_the_choice_sharing_words(tmp_path):
    items = load_scalr(None, path=write_tsv(tmp_path / "t.tsv", [
        "0\tWhether the warrant requirement applies to cell phone searches\tholding that tax is due\t"
        "holding that police need a warrant to search a cell phone\tholding that a contract is void\t"
        "holding that speech is protected\tholding that damages are capped\t1"]))
    assert TfidfChooser().predict(items)[0]["prediction"] == "1"


def test_real_scalr_loads_all_rows_and_tfidf_beats_random(data_dir):
    items = load_scalr(data_dir, "test")
    assert len(items) == 399 and len({i.id for i in items}) == 399
    tfidf, _ = evaluate("scalr", "tfidf", data_dir)
    random, _ = evaluate("scalr", "random", data_dir)
    assert tfidf.n == random.n == 399
    assert tfidf.metrics["accuracy"] > random.interval[1]
