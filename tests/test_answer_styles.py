"""The answers LLMs really give to SCALR: LegalBench's own numbering (0-4), our letters (A-E), base-model
continuations of a few-shot prompt, and refusals, scored through the one evaluator as a user would."""
from __future__ import annotations

import json

import pytest
from conftest import run_results
from typer.testing import CliRunner

from baselines.cli import app
from baselines.evaluation.scoring import score_predictions
from baselines.registry import get_task
from baselines.tasks.scalr.data import load_scalr

LETTERS = "ABCDE"
REFUSALS = ("I'm sorry, but I can't determine which holding applies without the full opinion.",
            "I cannot answer this question.\n\nQuestion: Whether a State may tax the sale?\nChoices:\n0: holding "
            "that it may\n1: holding that it may not\nAnswer: 1",
            "None of these holdings clearly answers the question presented.")


def continuation(other, answer: int) -> str:
    """The next example of LegalBench's prompt, as a base model writes it after its answer."""
    choices = "\n".join(f"{k}: {choice}" for k, choice in enumerate(other.choices))
    return f"\n\nQuestion: {other.question}\nChoices:\n{choices}\nAnswer: {answer}"


def styled_answer(item, other, style: int) -> str:
    """Item's right answer in one of 13 styles; `other` is the question a continuation goes on with."""
    k = int(item.answer[0])
    letter, choice = LETTERS[k], item.choices[k]
    wrong = (k + 2) % 5  # the continuation's own answer is never this item's
    return [
        f"{k}", f" {k}", f"Answer: {k}", f'{k}: "{choice}"', f"{k}{continuation(other, wrong)}",
        f"{letter}", f"({letter})", f"The final answer is {letter}", f"**Answer:** {letter}",
        f"{letter}. {choice}", f" {k}\n\nGiven the following question presented in a court case, select the most "
        f"relevant holding:{continuation(other, wrong)}", f"Answer: {k}{continuation(other, wrong)}",
        f"{k}: {choice}{continuation(other, wrong)}",
    ][style]


def generations(items) -> list[dict]:
    """One generation per item: every 14th a refusal, the others stating the right answer in turn of style."""
    rows = []
    for n, item in enumerate(items):
        other = items[(n + 1) % len(items)]
        raw = REFUSALS[n // 14 % len(REFUSALS)] if n % 14 == 13 else styled_answer(item, other, n % 14)
        rows.append({"id": item.id, "raw": raw})
    return rows


def tiny_items(tmp_path):
    path = tmp_path / "scalr.jsonl"
    with open(path, "w", encoding="utf-8") as handle:
        for k in range(28):
            row = {"index": str(k), "question": f"Whether rule {k} applies to agency {k}?", "answer": str(k % 5),
                   **{f"choice_{c}": f"holding that rule {k} binds party {c} of the agency" for c in range(5)}}
            handle.write(json.dumps(row) + "\n")
    return path, load_scalr(None, path=path)


def test_every_style_scores_its_answer_and_refusals_are_no_answer(tmp_path):
    _, items = tiny_items(tmp_path)
    rows = generations(items)
    references = [item.reference() for item in items]
    result, samples = score_predictions(get_task("scalr"), rows, references, replicates=20, numbering="legalbench")
    assert result.metrics["accuracy"] == result.coverage == 26 / 28 and result.numbering_unknown == 0
    cut = [sample["rule"] for sample in samples if sample["rule"] and sample["rule"].endswith("+cut")]
    assert len(cut) == 9  # four continuation styles, twice each, and the refusal followed by one


def test_bare_numbers_are_counted_not_read_while_their_numbering_is_unknown(tmp_path):
    _, items = tiny_items(tmp_path)
    rows, references = generations(items), [item.reference() for item in items]
    result, samples = score_predictions(get_task("scalr"), rows, references, replicates=20)
    digits = [row for row in rows if row["raw"].strip()[:1].isdigit() or row["raw"].startswith("Answer: ")
              and row["raw"][8:9].isdigit()]
    assert result.numbering_unknown == len(digits) > 0 and result.coverage == (26 - len(digits)) / 28
    assert all(sample["answer"] is None for sample in samples if sample["rule"] and "numbering_unknown" in sample["rule"])


@pytest.mark.realdata
def test_real_scalr_questions_score_exactly_the_answers_stated(tmp_path, data_dir):
    """All SCALR questions here, each answered in one style in turn, every 14th refused: the score is exactly the
    share of stated answers, at that coverage, through `baselines score` as a user runs it."""
    items = load_scalr(data_dir, "test")
    rows = generations(items)
    path = tmp_path / "llm.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    outcome = CliRunner().invoke(app, ["score", "scalr", str(path), "--data-dir", str(data_dir), "--name", "styles",
                                       "--numbering", "legalbench"])
    assert outcome.exit_code == 0, outcome.output
    saved = run_results("scalr", "styles")
    stated = sum(1 for n in range(len(items)) if n % 14 != 13)
    assert saved["metrics"]["accuracy"] == saved["coverage"] == stated / len(items)
