"""The README's "From Python" block runs as written, on a tiny SCALR data folder."""
import json
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def readme_block(heading: str) -> str:
    """The first fenced code block under the README's `## <heading>`."""
    section = (REPO / "README.md").read_text(encoding="utf-8").split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_readme_python_block_runs(tmp_path, monkeypatch, capsys):
    data = tmp_path / "data" / "scalr"
    data.mkdir(parents=True)
    questions = [{"index": str(i), "question": f"Which holding decides the {word} question?",
                  **{f"choice_{k}": f"holding {k} on the {word if k == i else 'other'} question" for k in range(5)},
                  "answer": str(i)} for i, word in enumerate(["tax", "venue", "patent", "speech", "search"])]
    (data / "test.jsonl").write_text("".join(json.dumps(row) + "\n" for row in questions), encoding="utf-8")
    (tmp_path / "my_llm.jsonl").write_text("".join(json.dumps({"id": i, "raw": f"The final answer is {letter}"}) + "\n"
                                                   for i, letter in (("0", "A"), ("1", "B"), ("3", "A"))),
                                           encoding="utf-8")
    monkeypatch.setenv("BASELINES_DATA", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    from typer.testing import CliRunner

    from baselines.cli import app

    cli = ["score", "scalr", "my_llm.jsonl", "--name", "my-llm", "--only-present"]  # the README's CLI step first
    assert CliRunner().invoke(app, cli).exit_code == 0

    exec(compile(readme_block("From Python"), "README.md", "exec"), {})

    board = capsys.readouterr().out
    rows = [line for line in board.split("\n") if line.startswith("| 1 |") or line.startswith("| 2 |")]
    assert [row.split(" | ")[1] for row in rows] == ["tfidf", "my-llm (LLM) †"]
    assert "| 66.7 |" in rows[1]  # two of the three answers right, scored on the answered items only
