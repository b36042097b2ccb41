"""Never a wrong number: malformed input is one clear error, concurrent or killed writes leave no damage,
suspicious items are counted, and a first run finds (or fetches) its data."""
from __future__ import annotations

import gzip
import json
import logging
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from baselines.cli import app
from baselines.tasks.rr.data import load_rr, read_documents
from baselines.tasks.scalr.data import load_scalr
from baselines.core.errors import DataError
from baselines.core.io import atomic_path, read_json, read_jsonl, read_text
from baselines.core.paths import MissingData, data_home, data_root

REPO = Path(__file__).resolve().parent.parent
TEXT = "PREAMBLE text here. The facts were these. We hold so."
SPANS = [(0, 19, "PREAMBLE"), (20, 41, "FAC"), (42, 53, "RATIO")]


def invoke(*args):
    return CliRunner().invoke(app, [str(arg) for arg in args])


def legaleval(doc_id=42, spans=SPANS, text=TEXT):
    return {"id": doc_id, "meta": {"group": "Tax"}, "data": {"text": text},
            "annotations": [{"result": [{"id": f"r{k}", "value": {"start": s, "end": e, "text": text[s:e],
                                                                "labels": [label]}}
                                        for k, (s, e, label) in enumerate(spans)]}]}


def write_json_file(path: Path, obj) -> Path:
    path.write_text(json.dumps(obj), encoding="utf-8")
    return path


# 1. LegalEval JSON: every malformed field is one error naming file, document and field

def _set(doc, dotted: str, value):
    """Set (or with value=KeyError, delete) a field given as 'annotations.0.result.1.value.start'."""
    *parents, last = dotted.split(".")
    node = doc
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    key = int(last) if isinstance(node, list) else last
    if value is KeyError:
        del node[key]
    else:
        node[key] = value


@pytest.mark.parametrize("field, value, named", [
    ("annotations.0.result.1.value.start", "20", r"annotations\[0\]\.result\[1\]\.value\.start: expected an integer"),
    ("annotations.0.result.1.value.end", 20.5, r"annotations\[0\]\.result\[1\]\.value\.end: expected an integer"),
    ("annotations.0.result.1.value.start", True, r"annotations\[0\]\.result\[1\]\.value\.start: expected an integer"),
    ("annotations.0.result.1.value.end", 10, r"annotations\[0\]\.result\[1\]\.value: span \[20, 10\) is out of range"),
    ("annotations.0.result.1.value.end", KeyError, r"annotations\[0\]\.result\[1\]\.value\.end: missing"),
    ("annotations.0.result.1.value", KeyError, r"annotations\[0\]\.result\[1\]\.value: missing"),
    ("annotations.0.result.1.value", "FAC", r"annotations\[0\]\.result\[1\]\.value: expected an object"),
    ("annotations.0.result.1", ["x"], r"annotations\[0\]\.result\[1\]: expected an object"),
    ("annotations.0.result.1.value.labels", "FAC", r"annotations\[0\]\.result\[1\]\.value\.labels: needs a list"),
    ("annotations.0.result.1.value.labels", [7], r"annotations\[0\]\.result\[1\]\.value\.labels: the label must be a non-empty string"),
    ("annotations.0.result.1.value.text", 3, r"annotations\[0\]\.result\[1\]\.value\.text: expected a string"),
    ("annotations.0.result", {"a": 1}, r"annotations\[0\]\.result: expected a list"),
    ("annotations.0", "x", r"annotations\[0\]: expected an object"),
    ("annotations", "x", r"annotations: expected a list"),
    ("data.text", 12, r"data\.text: expected a string"),
    ("data", KeyError, r"data\.text: missing"),
    ("meta", ["Tax"], r"meta: expected an object"),
    ("meta.group", 5, r"meta\.group: expected a string"),
])
def test_malformed_legaleval_field_names_file_document_and_field(tmp_path, field, value, named):
    doc = legaleval()
    _set(doc, field, value)
    path = write_json_file(tmp_path / "bad.json", [legaleval(1), doc])
    with pytest.raises(DataError, match=rf"bad\.json: document '42', {named}"):
        read_documents(path)


def test_malformed_document_id_names_its_position(tmp_path):
    path = write_json_file(tmp_path / "bad.json", [legaleval(1), legaleval(doc_id=[4])])
    with pytest.raises(DataError, match=r"bad\.json: document #1 of the list, id: expected a number"):
        read_documents(path)


def test_malformed_legaleval_file_is_one_line_and_exit_2(tmp_path):
    doc = legaleval()
    doc["annotations"][0]["result"][0]["value"]["start"] = "0"
    data = write_json_file(tmp_path / "bad.json", [doc])
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps({"id": f"42/{k}", "prediction": "FAC"}) + "\n" for k in range(3)))
    result = invoke("score", "rr", predictions, "--test-file", data)
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "document '42', annotations[0].result[0].value.start" in result.output


# 2. Replacing a folder: safe under concurrency; leftovers of killed writers cleaned, never listed

def _save_repeatedly(args) -> list[str]:
    target, writer, times = args
    errors = []
    for attempt in range(times):
        try:
            with atomic_path(Path(target)) as tmp:
                tmp.mkdir()
                (tmp / "config.json").write_text(json.dumps({"writer": writer, "attempt": attempt}))
                (tmp / "state.txt").write_text(f"{writer} {attempt}")
        except Exception as exc:  # noqa: BLE001 - every failure is the finding
            errors.append(repr(exc))
    return errors


def test_concurrent_saves_of_one_folder_never_fail_nor_leave_anything(tmp_path):
    target = tmp_path / "models" / "rr" / "same"
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        errors = pool.map(_save_repeatedly, [(str(target), writer, 25) for writer in range(4)])
    assert [e for found in errors for e in found] == []
    assert sorted(os.listdir(target.parent)) == ["same"]
    assert sorted(os.listdir(target)) == ["config.json", "state.txt"]
    config = json.loads((target / "config.json").read_text())
    assert (target / "state.txt").read_text() == f"{config['writer']} {config['attempt']}"  # one writer's whole folder


def _leftover_of_a_killed_save(target: Path) -> Path:
    """Run a save that is SIGKILLed halfway; return what it left beside `target`."""
    code = ("import os, sys; from pathlib import Path; from baselines.core.io import atomic_path\n"
            "with atomic_path(Path(sys.argv[1])) as tmp:\n"
            "    tmp.mkdir(); (tmp / 'half.bin').write_bytes(b'x'); os.kill(os.getpid(), 9)\n")
    done = subprocess.run([sys.executable, "-c", code, str(target)], cwd=REPO, capture_output=True)
    assert done.returncode == -9, done.stderr
    leftovers = [p for p in target.parent.iterdir() if p.name.startswith(f".{target.name}.")]
    assert len(leftovers) == 1 and leftovers[0].name.endswith(".tmp")
    return leftovers[0]


def _age(path: Path, seconds: float) -> None:
    past = time.time() - seconds
    os.utime(path, (past, past))


def test_leftovers_of_killed_saves_are_removed_by_the_next_write(tmp_path):
    target = tmp_path / "same"
    leftover = _leftover_of_a_killed_save(target)
    with atomic_path(target) as tmp:  # a fresh leftover may be a writer still at work: kept
        tmp.mkdir()
    assert leftover.exists()
    _age(leftover, 120)
    lookalike = tmp_path / ".same.old"  # a name this tool never writes: a user's, kept
    lookalike.mkdir()
    _age(lookalike, 120)
    other = tmp_path / ".same.json.legal-baselines.host.1.0123456789abcdef.tmp"  # another target's: not this write's
    other.write_text("x")
    _age(other, 120)
    with atomic_path(target) as tmp:
        tmp.mkdir()
        (tmp / "config.json").write_text("{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".same.json.legal-baselines.host.1.0123456789abcdef.tmp",
                                                          ".same.old", "same"]


def test_a_live_writers_temporary_is_never_removed(tmp_path):
    target = tmp_path / "same"
    with atomic_path(target) as slow:
        slow.mkdir()
        _age(slow, 3600)
        with atomic_path(target) as other:
            other.mkdir()
        assert slow.is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["same"]


def test_hidden_leftovers_are_never_listed_as_runs(tmp_path):
    from baselines.runs.results_store import run_files

    for run in ("sys/dev", ".sys.host_1_0123abcd.tmp/dev", "sys/.dev.host_1_0123abcd.old"):
        folder = tmp_path / "scalr" / run
        folder.mkdir(parents=True)
        (folder / "results.json").write_text("{}")
    assert run_files("scalr", tmp_path) == [tmp_path / "scalr" / "sys" / "dev" / "results.json"]


# 3. Bytes that are not UTF-8: the line, and the byte within that line

def test_jsonl_bad_byte_names_line_and_byte_within_it(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"a": 1}\n\n{"a": "caf\xe9"}\n')
    with pytest.raises(DataError, match=r"x\.jsonl:3: not UTF-8 text \(byte 0xe9 at byte 11 of the line"):
        list(read_jsonl(path))
    gz = tmp_path / "x.jsonl.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    with pytest.raises(DataError, match=r"x\.jsonl\.gz:3: .*byte 11 of the line"):
        list(read_jsonl(gz))


def test_whole_file_reads_name_line_and_byte_within_it(tmp_path):
    path = tmp_path / "x.json"
    path.write_bytes(b'[\n  {"text": "ok"},\n  {"text": "\xc3("}\n]\n')
    with pytest.raises(DataError, match=r"x\.json:3: not UTF-8 text \(byte 0xc3 at byte 13 of the line"):
        read_json(path)
    with pytest.raises(DataError, match=r"x\.json:3: .*byte 13 of the line"):
        read_text(path)
    (tmp_path / "ok.txt").write_bytes(b"a\r\nb\rc\n")
    assert read_text(tmp_path / "ok.txt") == "a\nb\nc\n"  # line endings as open() reads them


def test_loaders_report_bad_bytes_by_line(tmp_path):
    tsv = tmp_path / "test.tsv"
    tsv.write_bytes(b"index\tquestion\tchoice_0\tchoice_1\tchoice_2\tchoice_3\tchoice_4\tanswer\n"
                    b"0\tq\ta\tb\tc\td\te\t0\n1\tq\xff\ta\tb\tc\td\te\t0\n")
    with pytest.raises(DataError, match=r"test\.tsv:3: not UTF-8 text \(byte 0xff at byte 4 of the line"):
        load_scalr(None, path=tsv)
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.tsv").write_bytes(b"Fine.\tFAC\nCaf\xe9.\tFAC\n")
    with pytest.raises(DataError, match=r"a\.tsv:2: not UTF-8 text \(byte 0xe9 at byte 4 of the line"):
        read_documents(folder)


# 4. SCALR: empty questions and duplicate choices are warned about once and counted

def test_suspicious_scalr_items_are_warned_about_once_and_counted(tmp_path, caplog):
    rows = [{"index": str(i), "question": "" if i in (1, 3) else f"question {i}", "answer": "0",
             **{f"choice_{k}": f"holding {k}" for k in range(5)}} for i in range(6)]
    rows[4]["choice_3"] = " Holding  0 "
    path = tmp_path / "test.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    with caplog.at_level(logging.WARNING, logger="baselines"):
        items = load_scalr(None, path=path)
    assert len(items) == 6
    assert items.flagged == {"empty_question": ["1", "3"], "duplicate_choices": ["4"]}
    assert items.notes == ["2 of 6 questions have an empty question (scored as given): index 1, 3",
                           "1 of 6 questions have duplicate choices (scored as given): index 4"]
    assert len(caplog.records) == 1 and "index 1, 3" in caplog.text and "index 4" in caplog.text


def test_real_scalr_has_nothing_to_flag(data_dir):
    items = load_scalr(data_dir, "test")
    assert len(items) == 399 and items.flagged == {} and items.notes == []


# 5. RR: evaluated documents without annotations are counted, not dropped silently

def test_unannotated_rr_documents_are_counted_in_notes(tmp_path, caplog):
    root = tmp_path / "rr" / "legaleval2023"
    root.mkdir(parents=True)
    write_json_file(root / "train.json", [legaleval(1), {"id": 2, "data": {"text": "x"}}])
    bare = [{"id": 7, "data": {"text": "x"}, "annotations": []}, {"id": 8, "data": {"text": "y"}}]
    write_json_file(root / "dev.json", [legaleval(5), *bare, legaleval(6)])
    with caplog.at_level(logging.WARNING, logger="baselines"):
        train = load_rr(tmp_path, "train")
    assert train.skipped == ["2"] and caplog.records == []  # training quietly ignores them (noted)
    assert train.notes == ["1 of 2 documents in train.json have no annotated sentences and were left out "
                           "(not scored): 2"]
    with caplog.at_level(logging.WARNING, logger="baselines"):
        dev = load_rr(tmp_path, "dev")
    assert [d.id for d in dev] == ["5", "6"] and dev.skipped == ["7", "8"]
    assert dev.notes == ["2 of 4 documents in dev.json have no annotated sentences and were left out "
                         "(not scored): 7, 8"]
    assert len(caplog.records) == 1 and "2 of 4 documents" in caplog.text


def test_real_train_split_notes_its_two_empty_documents(data_dir):
    train = load_rr(data_dir, "train")
    assert len(train.skipped) == 2
    assert any(note.startswith("2 of 247 documents in train.json") for note in train.notes)


# 6. A first run: the per-user data folder, the command that fills it, --download

@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """No data folder given: the per-user default under a fresh XDG_DATA_HOME."""
    monkeypatch.delenv("BASELINES_DATA", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "legal-baselines"


def fake_scalr_download(calls: list):
    def download(dest: Path) -> Path:
        calls.append(Path(dest))
        folder = Path(dest) / "scalr"
        folder.mkdir(parents=True, exist_ok=True)
        rows = [{"index": str(i), "question": f"question {i} about warrants", "answer": str(i % 5),
                 **{f"choice_{k}": f"holding {k} about {'warrants' if k == i % 5 else 'taxes'}" for k in range(5)}}
                for i in range(6)]
        (folder / "test.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
        return folder
    return download


def test_data_home_is_the_default_data_folder(home, monkeypatch):
    assert data_home() == home
    with pytest.raises(MissingData, match="does not exist yet"):
        data_root(None)
    home.mkdir(parents=True)
    assert data_root(None) == home
    monkeypatch.setenv("XDG_DATA_HOME", "relative/path")  # not absolute: ignored, as the XDG rules say
    assert data_home() == Path.home() / ".local" / "share" / "legal-baselines"


@pytest.mark.parametrize("exists", [False, True])
def test_missing_benchmark_names_the_command_that_fetches_it(home, exists):
    if exists:
        home.mkdir(parents=True)
    result = invoke("eval", "scalr", "--method", "tfidf")
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert f"`baselines data download scalr` fetches it into {home}" in result.output
    assert "--download" in result.output and "--data-dir" in result.output


def test_missing_benchmark_in_a_given_folder_names_the_destination(tmp_path, home):
    result = invoke("train", "rr", "--method", "majority", "--data-dir", tmp_path)
    assert result.exit_code == 2
    assert f"`baselines data download rr --dest {tmp_path}` fetches it into {tmp_path}" in result.output


def test_download_flag_fetches_into_the_data_home_and_continues(home, monkeypatch):
    import baselines.tasks.scalr.download as download

    calls = []
    monkeypatch.setattr(download, "download_scalr", fake_scalr_download(calls))
    result = invoke("eval", "scalr", "--method", "tfidf", "--download")
    assert result.exit_code == 0, result.output
    assert calls == [home] and (home / "scalr" / "test.jsonl").is_file()
    again = invoke("eval", "scalr", "--method", "tfidf", "--name", "again")
    assert again.exit_code == 0 and calls == [home]  # found there from now on


def test_data_download_defaults_to_the_data_home(home, monkeypatch):
    import baselines.tasks.scalr.download as download

    calls = []
    monkeypatch.setattr(download, "download_scalr", fake_scalr_download(calls))
    result = invoke("data", "download", "scalr")
    assert result.exit_code == 0 and calls == [home] and "--data-dir" not in result.output


def test_download_flag_offline_is_one_line(home, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    result = invoke("eval", "scalr", "--method", "tfidf", "--download")
    assert result.exit_code == 2 and result.output.count("\n") == 1 and "unreachable" in result.output
    assert not (home / "scalr").exists()
