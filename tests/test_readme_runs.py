"""The README is a test: its code blocks run top to bottom, as a newcomer runs them, in a fresh folder with a data
folder given (BASELINES_DATA). Every shell line runs, and must succeed, except the lines of SKIPPED, each with the
reason it cannot run here (the network, the installation CI has just done, and what needs their output); files of
your own that a command reads (judgment.txt, judgments/, opinions.jsonl) are made from the real data folder; a block
of JSON lines is the file the sentence before it names; the Python block runs last, as written. A line added to
the README runs unless it is added to SKIPPED.

The data folder the commands read is cut down from the real one, in the test's temporary folder
(small_data_folder), to keep CI's time: on the whole data the README's training and evaluation lines made this test
take 11 minutes of a 16-minute CI run. It keeps SCALR whole (linked: the LLM run on 20 questions and the scoring
lines use its questions and ids), LegalEval's first 12 training and 4 dev judgments in the official file format
(the 12 hold all 13 roles), and 2 CaselawQA tasks (CASELAWQA_TASKS) with the first 150 train, 30 val and 30 test
examples of each and only their cases' opinions, in the downloaded layout (tasks.json, examples, opinions). So
this test checks that every line runs and writes what it says, not how well the models do; on the real data that
is asserted by tests/test_rr_real.py::test_small_bilstm_crf_beats_majority_and_round_trips (the BiLSTM-CRF beats
the majority floor on dev judgments and reloads exactly) and tests/test_caselawqa_methods.py::
test_linear_beats_majority_on_real_tasks (the default `linear` beats the per-task majority on real tasks)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SKIPPED = {
    "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu": "the installation CI has just run",
    "pip install .": "the installation CI has just run",
    'pip install ".[llm]"': "the installation CI has just run",
    'pip install -e ".[dev]"': "the installation CI has just run",
    "baselines data download scalr": "the network (the data folder is given instead)",
    "baselines data download rr": "the network (the data folder is given instead)",
    "baselines data download caselawqa": "the network (the data folder is given instead)",
}

FENCE = re.compile(r"^( *)```(\w*)\n(.*?)^\1```", re.MULTILINE | re.DOTALL)
NAMED_FILE = re.compile(r"Write `([^`]+\.jsonl)`")


def readme_blocks() -> list[tuple[str, str, str]]:
    """(kind, body, the text before it) of each fenced block of the README, in order, outside the generated
    headline (whose commands the results pages check)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    text = re.sub(r"<!-- headline:start -->.*?<!-- headline:end -->", "", text, flags=re.DOTALL)
    blocks, last = [], 0
    for match in FENCE.finditer(text):
        body = "\n".join(line[len(match.group(1)):] for line in match.group(3).splitlines())
        lines = [line for line in body.splitlines() if line.strip()]
        kind = match.group(2) or ("jsonl" if lines and all(line.startswith("{") for line in lines) else "shell")
        blocks.append((kind, body, text[last:match.start()]))
        last = match.end()
    return blocks


def shell_lines(body: str) -> list[str]:
    """The commands of a shell block: continued lines joined, comments and repeated spaces dropped."""
    joined = re.sub(r"\\\n\s*", " ", body)
    return [" ".join(line.split("  #")[0].split()) for line in joined.splitlines() if line.split("  #")[0].strip()]


def test_every_line_of_the_readme_runs_or_is_skipped_for_a_stated_reason():
    lines = [line for kind, body, _ in readme_blocks() if kind == "shell" for line in shell_lines(body)]
    assert not set(SKIPPED) - set(lines), f"SKIPPED names lines the README no longer has: {set(SKIPPED) - set(lines)}"
    kinds = [kind for kind, _, _ in readme_blocks()]
    assert kinds.count("python") == 1 and "jsonl" in kinds


@pytest.mark.realdata
@pytest.mark.slow
def test_the_readme_runs_top_to_bottom(data_dir, tmp_path):
    small = small_data_folder(data_dir, tmp_path / "benchmark-data")
    environment = {**os.environ, "BASELINES_DATA": str(small), "PATH": f"{Path(sys.executable).parent}:"
                   f"{os.environ.get('PATH', '')}"}
    ran = []
    _opinions(data_dir, tmp_path / "opinions.jsonl")
    _judgments(data_dir, tmp_path)
    for kind, body, before in readme_blocks():
        if kind == "jsonl":
            (tmp_path / NAMED_FILE.findall(before)[-1]).write_text(body.strip() + "\n", encoding="utf-8")
            continue
        if kind == "python":
            done = subprocess.run([sys.executable, "-c", body], cwd=tmp_path, env=environment, capture_output=True,
                                  text=True)
            assert done.returncode == 0, done.stderr
            assert "my-llm (LLM)" in done.stdout and "tfidf" in done.stdout
            continue
        for line in shell_lines(body):
            if line in SKIPPED:
                continue
            done = subprocess.run(["bash", "-c", line], cwd=tmp_path, env=environment, capture_output=True, text=True)
            assert done.returncode == 0, (line, done.stdout[-2000:], done.stderr[-2000:])
            ran.append(line)
    assert "baselines eval scalr --method tfidf" in ran and "baselines score scalr my_llm.jsonl --name my-llm " \
        "--only-present" in ran and "baselines export lm-eval scalr --out lmeval/scalr" in ran
    _the_real_llm_answered(tmp_path)
    answers = [json.loads(line) for line in (tmp_path / "answers.jsonl").read_text().splitlines()]
    assert [set(row["answers"]) for row in answers] == [set(CASELAWQA_TASKS)] * 2  # the two opinions: every task
    assert (tmp_path / "roles.jsonl").read_text().count("\n") == 2  # the two judgments of the folder, labelled


RR_JUDGMENTS = {"train": 12, "dev": 4}  # the first ones of each LegalEval file
CASELAWQA_TASKS = ("sc_issuearea", "sc_partywinning")
CASELAWQA_EXAMPLES = {"train": 150, "val": 30, "test": 30}  # per task: the first ones of each split


def small_data_folder(data_dir: Path, folder: Path) -> Path:
    """A data folder with the real one's layout and files, cut down (see the module's docstring)."""
    folder.mkdir()
    (folder / "scalr").symlink_to(data_dir / "scalr", target_is_directory=True)
    (folder / "SOURCES.md").symlink_to(data_dir / "SOURCES.md")
    rr = folder / "rr" / "legaleval2023"
    rr.mkdir(parents=True)
    for split, count in RR_JUDGMENTS.items():
        judgments = json.loads((data_dir / "rr" / "legaleval2023" / f"{split}.json").read_text(encoding="utf-8"))
        (rr / f"{split}.json").write_text(json.dumps(judgments[:count]), encoding="utf-8")
    _small_caselawqa(data_dir / "caselawqa", folder / "caselawqa")
    return folder


def _small_caselawqa(source: Path, folder: Path) -> None:
    """CASELAWQA_TASKS with the first CASELAWQA_EXAMPLES of each split, and the opinions of their cases only."""
    import gzip
    from collections import Counter

    folder.mkdir()
    specs = json.loads((source / "tasks.json").read_text(encoding="utf-8"))
    (folder / "tasks.json").write_text(json.dumps({task: specs[task] for task in CASELAWQA_TASKS}), encoding="utf-8")
    kept, counts = [], Counter()
    with gzip.open(source / "examples.jsonl.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row["task"] in CASELAWQA_TASKS and counts[row["task"], row["split"]] < CASELAWQA_EXAMPLES[row["split"]]:
                counts[row["task"], row["split"]] += 1
                kept.append(row)
    assert counts == {(task, split): n for task in CASELAWQA_TASKS for split, n in CASELAWQA_EXAMPLES.items()}, counts
    (folder / "examples.jsonl").write_text("".join(json.dumps(row) + "\n" for row in kept), encoding="utf-8")
    cases = {row["case_id"] for row in kept}
    with gzip.open(source / "opinions.jsonl.gz", "rt", encoding="utf-8") as handle, \
            (folder / "opinions.jsonl").open("w", encoding="utf-8") as out:
        out.writelines(line for line in handle if json.loads(line)["case_id"] in cases)


def _the_real_llm_answered(folder: Path) -> None:
    """The README's LLM, run by the harness on 20 SCALR questions: at least 15 of its 20 generations are read as
    answers, and the run's cost is measured, not estimated."""
    result = json.loads((folder / "results" / "scalr" / "my-smollm2" / "test" /
                         "results.json").read_text(encoding="utf-8"))
    assert result["n"] == 20 and result["coverage"] >= 0.75, result["coverage"]
    assert result["meta"]["cost"]["llm"] and result["meta"]["cost"]["predict"]["cpu_seconds_per_1000"] > 0


def _judgments(data_dir: Path, folder: Path) -> None:
    """Your judgments: judgment.txt and a folder judgments/ of two .txt files, from RR's dev judgments."""
    from baselines.tasks.rr.data import load_rr

    texts = [" ".join(sentence.text for sentence in doc.sentences) for doc in load_rr(data_dir, "dev")[:3]]
    (folder / "judgment.txt").write_text(texts[0], encoding="utf-8")
    (folder / "judgments").mkdir()
    for k, text in enumerate(texts[1:]):
        (folder / "judgments" / f"judgment-{k}.txt").write_text(text, encoding="utf-8")


def _opinions(data_dir: Path, path: Path) -> None:
    """Two CaselawQA opinions of the data folder as {"id", "text"} lines: the user's opinions file."""
    import gzip

    with gzip.open(data_dir / "caselawqa" / "opinions.jsonl.gz", "rt", encoding="utf-8") as handle:
        rows = [json.loads(next(handle)) for _ in range(2)]
    text_key = next(key for key in rows[0] if isinstance(rows[0][key], str) and len(rows[0][key]) > 500)
    path.write_text("".join(json.dumps({"id": f"opinion-{k}", "text": row[text_key]}) + "\n"
                            for k, row in enumerate(rows)), encoding="utf-8")
