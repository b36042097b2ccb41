"""Probes of malformed inputs, contradictory options and unsafe output targets: each is refused in one line
with exit code 2 (nothing written), or gives the right number; never a traceback or a wrong number."""
from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from baselines.cli import app
from baselines.tasks.scalr.data import load_scalr
from baselines.core.errors import DataError
from baselines.core.source_text import SourceText
from conftest import refused, run_results

runner = CliRunner()
FIELDS = ["index", "question", "choice_0", "choice_1", "choice_2", "choice_3", "choice_4", "answer"]
SENTENCES = ["IN THE HIGH COURT OF KARNATAKA AT BENGALURU", "The appellant was charged with theft of a cow.",
             "We have considered the evidence on record.", "Accordingly, the appeal is dismissed."]
LABELS = ["PREAMBLE", "FAC", "ANALYSIS", "RPC"]


def invoke(*args):
    return runner.invoke(app, [str(arg) for arg in args])




def scalr_rows(n: int) -> list[dict]:
    return [{"index": str(k), "question": f'Whether "rule {k}" applies\nacross lines', **{
        f"choice_{c}": f"holding that {k}-{c}" for c in range(5)}, "answer": str(k % 5)} for k in range(n)]


def write_tsv(path: Path, rows: list[dict], broken: int | None = None) -> Path:
    """LegalBench-style TSV (quoted where needed); row `broken` gets a question with an unclosed quote."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS, delimiter="\t")
        writer.writeheader()
        for k, row in enumerate(rows):
            if k == broken:
                handle.write("\t".join([row["index"], '"unclosed ' + row["question"].replace('"', "").replace("\n", " "),
                                        *(row[f"choice_{c}"] for c in range(5)), row["answer"]]) + "\r\n")
            else:
                writer.writerow(row)
    return path


def start_line(path: Path, index: str) -> int:
    """The physical line where the row of `index` starts."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, start=1) if line.startswith(f"{index}\t"))


# 3. a SCALR TSV with an unclosed quote: refused at the line where that row starts, never n = 59

def test_tsv_round_trip_keeps_every_question(tmp_path):
    """A well-formed TSV with quoted multi-line fields reads back all its questions."""
    items = load_scalr(None, path=write_tsv(tmp_path / "test.tsv", scalr_rows(60)))
    assert len(items) == 60 and items[13].question == 'Whether "rule 13" applies\nacross lines'


@pytest.mark.parametrize("broken", [12, 13, 58])
def test_unclosed_quote_is_refused_at_its_row(tmp_path, broken):
    """An unclosed quote swallowing the next rows is an error naming the row's first line."""
    path = write_tsv(tmp_path / "test.tsv", scalr_rows(60), broken=broken)
    with pytest.raises(DataError, match=rf"test.tsv:{start_line(path, str(broken))}: "):
        load_scalr(None, path=path)


def test_unclosed_quote_in_the_answer_field_is_refused(tmp_path):
    """A quote opened in the last field takes the tabs of the rows after it: refused, not merged."""
    path = tmp_path / "test.tsv"
    path.write_text("\t".join(FIELDS) + "\n0\tq\ta\tb\tc\td\te\t\"1\n1\tq\ta\tb\tc\td\te\t2\n2\tq\ta\tb\tc\td\te\t3\"\n")
    with pytest.raises(DataError, match=r"test.tsv:2: .*(holds a tab|fields where the header has)"):
        load_scalr(None, path=path)


def test_tsv_row_with_an_extra_field_is_refused(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text("\t".join(FIELDS) + "\n0\tq\ta\tb\tc\td\te\t1\textra\n")
    with pytest.raises(DataError, match=r"test.tsv:2: 9 fields where the header has 8"):
        load_scalr(None, path=path)


# 4. predict rr: offsets into the file as given (BOM, CRLF)

def test_source_text_offsets_slice_the_file_as_given():
    """Every character of the read text maps back to itself (or, for a line break, to its LF) in the file."""
    given = "\ufeffFirst line.\r\nSecond line.\r\n\r\nThird\rFourth."
    source = SourceText.of(given)
    assert source.text == "First line.\nSecond line.\n\nThird\nFourth."
    for position, char in enumerate(source.text):
        assert given[source.given_offset(position)] == char or (char == "\n" and given[source.given_offset(position)] == "\r")
    start = source.text.index("Second")
    assert given.__getitem__(slice(*source.given_span(start, start + len("Second line.")))) == "Second line."


def train_tiny_rr(tmp_path: Path) -> None:
    train = tmp_path / "train.jsonl"
    train.write_text("".join(json.dumps({"id": f"d{k}", "sentences": SENTENCES, "labels": LABELS}) + "\n"
                             for k in range(5)))
    assert invoke("train", "rr", "--method", "tfidf-logreg", "--train-file", train, "--set", "min_df=1").exit_code == 0


def test_predict_offsets_point_into_a_crlf_file_with_a_bom(tmp_path):
    """Slicing the original file (decoded, newlines untouched) with start/end gives each row's text."""
    train_tiny_rr(tmp_path)
    judgment = tmp_path / "judgment.txt"
    judgment.write_bytes("\ufeffIN THE HIGH COURT OF KARNATAKA AT BENGALURU.\r\n\r\nThe appellant was charged with "
                         "theft.\r\nWe have considered the evidence.\r\nAccordingly, the appeal is dismissed.\r\n"
                         .encode("utf-8"))
    out = tmp_path / "judgment.jsonl"
    result = invoke("predict", "rr", judgment, "--method", "tfidf-logreg", "--segmenter", "rule", "--out", out,
                    "--quiet")
    assert result.exit_code == 0, result.output
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]  # one record per document
    rows = record["sentences"]
    with open(judgment, encoding="utf-8", newline="") as handle:
        given = handle.read()
    assert len(rows) >= 3 and rows[0]["start"] == 1  # after the BOM
    for row in rows:
        assert given[row["start"]:row["end"]] == row["text"]
    assert rows[-1]["text"].startswith("Accordingly")


# 13 and 9. one safe write path: never the input, never a device or FIFO

def test_predict_out_equal_to_the_input_is_refused(tmp_path):
    train_tiny_rr(tmp_path)
    judgment = tmp_path / "judgment.txt"
    judgment.write_text("The appellant was charged with theft. The appeal is dismissed.\n")
    before = judgment.read_bytes()
    result = invoke("predict", "rr", judgment, "--method", "tfidf-logreg", "--segmenter", "rule", "--out", judgment)
    refused(result, "input")
    assert judgment.read_bytes() == before


def test_predict_out_to_a_fifo_is_refused_before_any_work(tmp_path):
    train_tiny_rr(tmp_path)
    judgment = tmp_path / "judgment.txt"
    judgment.write_text("The appellant was charged with theft.\n")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    refused(invoke("predict", "rr", judgment, "--method", "tfidf-logreg", "--out", fifo), "not a regular file")
    assert Path(fifo).is_fifo()


def test_a_device_out_is_refused_and_kept(tmp_path):
    """/dev/null stays a device: compare and benchmark refuse it before their work."""
    refused(invoke("compare", "scalr", "--results-dir", tmp_path, "--out", "/dev/null"), "not a regular file")
    refused(invoke("speed", "encoders", "--out", "/dev/null", "--n", "1"), "not a regular file")
    assert not Path("/dev/null").is_file() and Path("/dev/null").is_char_device()


def test_a_symlinked_out_is_written_through(tmp_path):
    """A symlink --out stays a link; the file it names receives the output."""
    train_tiny_rr(tmp_path)
    judgment = tmp_path / "judgment.txt"
    judgment.write_text("The appellant was charged with theft. We have considered the evidence.\n")
    real = tmp_path / "real.jsonl"  # not there yet: the link names where the output goes
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    result = invoke("predict", "rr", judgment, "--method", "tfidf-logreg", "--segmenter", "rule", "--out", link,
                    "--quiet")
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and json.loads(real.read_text().splitlines()[0])["sentences"][0]["label"] in LABELS


def test_an_out_folder_below_a_file_is_one_line(tmp_path):
    """The operating system's refusal (a folder that is a file) is one line with exit 2."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    train = tmp_path / "train.jsonl"
    train.write_text(json.dumps({"id": "d", "sentences": SENTENCES, "labels": LABELS}) + "\n")
    refused(invoke("train", "rr", "--method", "majority", "--train-file", train, "--models-dir", blocker / "models"))


# 6. contradictory options are refused

def test_missing_wrong_with_only_present_is_refused(tmp_path):
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(json.dumps({"id": "0", "prediction": "0"}) + "\n")
    test_file = write_tsv(tmp_path / "test.tsv", scalr_rows(3))
    refused(invoke("score", "scalr", predictions, "--test-file", test_file, "--missing", "wrong", "--only-present"),
            "--only-present", "--missing wrong")
    assert not (tmp_path / "results").exists()


# crashes become one line: parameters, YAML, nesting

@pytest.mark.parametrize("setting, words", [
    ("stop_words=123", ["stop_words must be one of"]),
    ("stop_words=french", ["stop_words must be one of"]),
    ("stop_words=[[1]]", ["stop_words must be one of"]),
    ("ngram_max=0", ["ngram_max must be at least 1"]),
    ("ngram_max=-1", ["ngram_max must be at least 1"]),
    ("ngram_max=null", ["ngram_max cannot be null"]),
    ("ngram_max=[1]", ["ngram_max must be a whole number"]),
])
def test_bad_parameter_values_are_one_line(tmp_path, setting, words):
    test_file = write_tsv(tmp_path / "test.tsv", scalr_rows(3))
    refused(invoke("eval", "scalr", "--method", "tfidf", "--test-file", test_file, "--set", setting), *words)


@pytest.mark.parametrize("setting, words", [
    ("window_weights=[]", ["window_weights needs at least one value"]),
    ("head_weights=[abc]", ["head_weights must be a number", "'abc'"]),
    ("prior_weights=[-1]", ["prior_weights values must be at least 0"]),
    ("Cs=[true]", ["Cs must be a number"]),
])
def test_bad_candidate_grids_are_refused_before_any_work(tmp_path, setting, words):
    from caselawqa_fixtures import write_normalized

    root = write_normalized(tmp_path / "data")
    refused(invoke("train", "caselawqa", "--method", "signals", "--data-dir", root, "--models-dir",
                   tmp_path / "models", "--set", setting), *words)
    assert not (tmp_path / "models").exists()


def test_null_resets_a_parameter_whose_default_is_null(tmp_path):
    """`--set stop_words=null` sets the value null (its default), never silently dropped: over a --config that
    says 'english', the run uses and records null."""
    test_file = write_tsv(tmp_path / "test.tsv", scalr_rows(3))
    config = tmp_path / "config.yaml"
    config.write_text("stop_words: english\n")
    result = invoke("eval", "scalr", "--method", "tfidf", "--test-file", test_file, "--config", config,
                    "--set", "stop_words=null")
    assert result.exit_code == 0, result.output
    recorded = run_results("scalr", "tfidf")["meta"]["config"]
    assert "stop_words" in recorded and recorded["stop_words"] is None, recorded


@pytest.mark.parametrize("text, words", [
    ("a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n", ["config.yaml:2", "aliases"]),
    ("ngram_max: [\n  1,\n stop: :\n", ["config.yaml:3", "invalid YAML"]),
    ("x: " + "[" * 20000 + "]" * 20000 + "\n", ["nested too deeply"]),
    ("x: " + "y" * 70000 + "\n", ["at most 64 KiB"]),
])
def test_hostile_yaml_configs_are_one_line(tmp_path, text, words):
    config = tmp_path / "config.yaml"
    config.write_text(text)
    test_file = write_tsv(tmp_path / "test.tsv", scalr_rows(3))
    refused(invoke("eval", "scalr", "--method", "tfidf", "--test-file", test_file, "--config", config), *words)


def test_deeply_nested_predictions_are_one_line(tmp_path):
    predictions = tmp_path / "p.jsonl"
    predictions.write_text('{"id": "0", "raw": ' + "[" * 100000 + "]" * 100000 + "}\n")
    test_file = write_tsv(tmp_path / "test.tsv", scalr_rows(3))
    refused(invoke("score", "scalr", predictions, "--test-file", test_file), "p.jsonl:1", "nested too deeply")


def test_long_names_are_refused_before_any_work(tmp_path):
    """A system name of 250 characters is refused before training, not after it."""
    train = tmp_path / "train.jsonl"
    train.write_text(json.dumps({"id": "d", "sentences": SENTENCES, "labels": LABELS}) + "\n")
    refused(invoke("train", "rr", "--method", "majority", "--train-file", train, "--name", "n" * 250),
            "250 characters")
    assert not (tmp_path / "models").exists()


def test_a_long_test_file_name_gets_a_short_run_folder(tmp_path):
    """A --test-file named with 200 characters still gives a run folder the file system accepts."""
    test_file = write_tsv(tmp_path / ("t" * 200 + ".tsv"), scalr_rows(3))
    result = invoke("eval", "scalr", "--method", "tfidf", "--test-file", test_file)
    assert result.exit_code == 0, result.output
    (run_folder,) = (tmp_path / "results" / "scalr" / "tfidf").iterdir()
    assert len(run_folder.name) < len(test_file.name), run_folder.name
    assert run_results("scalr", "tfidf")["n"] == 3


def test_an_over_long_generation_is_refused_naming_its_id(tmp_path):
    """A generation over the extractor's documented limit is one line naming the item, never cut."""
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps({"id": str(k), "raw": "The answer is A."}) + "\n" for k in range(2))
                           + json.dumps({"id": "2", "raw": "x " * 1_100_000}) + "\n")
    test_file = write_tsv(tmp_path / "test.tsv", scalr_rows(3))
    refused(invoke("score", "scalr", predictions, "--test-file", test_file), "id 2:", "at most 2,000,000")
