"""The rr commands end to end on toy files: train from JSONL, predict raw text, bad documents exit 1, usage errors 2."""
from __future__ import annotations

import json

from typer.testing import CliRunner

from baselines.cli import app

runner = CliRunner()
SENTENCES = ["IN THE HIGH COURT OF KARNATAKA AT BENGALURU", "The appellant was charged with theft of a cow.",
             "We have considered the evidence on record.", "Accordingly, the appeal is dismissed."]
LABELS = ["PREAMBLE", "FAC", "ANALYSIS", "RPC"]
UNSEEN = ["IN THE SUPREME COURT OF INDIA AT NEW DELHI", "The respondent sold the land to a stranger in 1998.",
          "The High Court rightly rejected the plea of limitation."]  # scored items that no model here was fit on


def train_file(tmp_path):
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps({"id": f"d{k}", "sentences": SENTENCES, "labels": LABELS}) + "\n"
                            for k in range(5)))
    return path


def test_train_and_predict_raw_text(tmp_path):
    result = runner.invoke(app, ["train", "rr", "--method", "tfidf_logreg", "--train-file", str(train_file(tmp_path)),
                                 "--set", "min_df=1"])
    assert result.exit_code == 0, result.output
    judgment = tmp_path / "judgment.txt"
    judgment.write_text("IN THE HIGH COURT OF KARNATAKA AT BENGALURU.\n"
                        "The appellant was charged with theft. We have considered the evidence. "
                        "Accordingly, the appeal is dismissed.\n", encoding="utf-8")
    out = tmp_path / "judgment.jsonl"
    result = runner.invoke(app, ["predict", "rr", str(judgment), "--method", "tfidf_logreg", "--segmenter", "rule",
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in out.read_text().splitlines()]  # one record per document
    assert [r["id"] for r in records] == ["judgment"]
    rows = records[0]["sentences"]
    assert [r["label"] for r in rows] == LABELS
    assert rows[1]["text"] == judgment.read_text()[rows[1]["start"]:rows[1]["end"]]
    assert set(rows[0]["probabilities"]) == set(LABELS)
    assert "RPC" in result.output


def test_predict_bad_documents_exit_1_and_usage_errors_2(tmp_path):
    runner.invoke(app, ["train", "rr", "--method", "majority", "--train-file", str(train_file(tmp_path))])
    binary = tmp_path / "bad.txt"
    binary.write_bytes(b"\xff\xfe caf\xe9")
    result = runner.invoke(app, ["predict", "rr", str(binary), "--method", "majority", "--segmenter", "rule"])
    assert result.exit_code == 1 and "UTF-8" in result.output  # a document that failed, named
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n")
    result = runner.invoke(app, ["predict", "rr", str(empty), "--method", "majority", "--segmenter", "rule"])
    assert result.exit_code == 1 and "empty" in result.output
    result = runner.invoke(app, ["predict", "rr", str(tmp_path / "absent.txt"), "--method", "majority"])
    assert result.exit_code == 2 and "no such file or folder" in result.output
    result = runner.invoke(app, ["predict", "scalr", str(empty)])
    assert result.exit_code == 2 and "does not label raw text; `baselines predict` works for: caselawqa, rr" in result.output
    result = runner.invoke(app, ["eval", "segmenter", "--data-dir", str(tmp_path / "nowhere")])
    assert result.exit_code == 2


def test_eval_on_a_test_file_takes_the_label_set_from_the_model(tmp_path):
    assert runner.invoke(app, ["train", "rr", "--method", "majority", "--train-file",
                               str(train_file(tmp_path))]).exit_code == 0
    narrow = tmp_path / "narrow.jsonl"  # its own labels lack ANALYSIS, the majority answer of the model
    narrow.write_text(json.dumps({"id": "x", "sentences": UNSEEN[:2], "labels": LABELS[:2]}) + "\n")
    result = runner.invoke(app, ["eval", "rr", "--method", "majority", "--test-file", str(narrow)])
    assert result.exit_code == 0, result.output
    saved = json.loads(next((tmp_path / "results" / "rr" / "majority").glob("*/results.json")).read_text())
    assert saved["coverage"] == 1.0


def test_the_config_a_model_was_trained_with_evaluates_it(tmp_path):
    config = tmp_path / "small.yaml"
    config.write_text("min_df: 1\n")
    train = train_file(tmp_path)
    args = ["--method", "tfidf-logreg", "--config", str(config)]
    assert runner.invoke(app, ["train", "rr", *args, "--train-file", str(train)]).exit_code == 0
    other = tmp_path / "other.jsonl"  # other items: a model is never scored on the items it was fit on
    other.write_text(json.dumps({"id": "o", "sentences": UNSEEN, "labels": LABELS[:3]}) + "\n")
    result = runner.invoke(app, ["eval", "rr", *args, "--test-file", str(other)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["eval", "rr", *args, "--set", "min_df=2", "--test-file", str(other)])
    assert result.exit_code == 2 and "trained with other values of min_df" in result.output


def test_long_text_without_blank_lines_is_cut_only_at_white_space():
    from baselines.tasks.rr.pipeline import BLOCK_CHARS, segment_text

    class Recorder:
        def __init__(self):
            self.blocks = []

        def segment(self, text):
            self.blocks.append(text)
            return [(0, len(text))]

    words = "appellant respondent judgment evidence".split()
    text = " ".join(words[k % 4] for k in range(3 * BLOCK_CHARS // 8))  # one line, no blank lines
    recorder = Recorder()
    spans = segment_text(text, recorder)
    assert len(recorder.blocks) > 1 and "".join(recorder.blocks) == text
    for start, end in spans[:-1]:
        assert text[end - 1].isspace() or text[end].isspace()  # never inside a word
