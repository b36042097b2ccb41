"""A newcomer's first hour: whole reproduce lines, readable tables and charts."""
from __future__ import annotations

from baselines.core.records import Reference
from baselines.core.paths import results_root
from baselines.evaluation.scoring import score_predictions
from baselines.registry import get_task
from baselines.runs.results_store import Variant, references_digest, write_run


def write_eval_run(name: str, refs, right: int, command: str, trained: bool) -> None:
    task = get_task("scalr")
    rows = [{"id": r.id, "prediction": r.gold[0] if k < right else "4"} for k, r in enumerate(refs)]
    result, samples = score_predictions(task, rows, refs, replicates=200)
    train = {"wall_seconds": 12.0, "cpu_seconds": 20.0, "peak_memory_mib": 300.0, "cpu": "x"} if trained else None
    result.meta = {"method": name, "command": command, "data": "/home/someone/data", "cost": {"train": train}}
    variant = Variant(split=task.eval_split, references=references_digest(refs))
    result.variant = variant.to_dict()
    write_run(results_root() / "scalr" / name / variant.slug(), result.to_dict(), samples, None)


def test_a_method_that_learns_shows_its_train_command_before_its_eval():
    from baselines.comparison.headline import headline_section
    from baselines.comparison.leaderboard import compare
    from baselines.comparison.markdown import to_markdown
    from baselines.comparison.pages import shown_command

    refs = [Reference(id=str(k), gold=(str(k % 4),), labels=("0", "1", "2", "3", "4")) for k in range(8)]
    write_eval_run("learned", refs, 7, "baselines eval scalr --method learned --data-dir /home/someone/data "
                   "--test-file /home/someone/data/scalr/test.jsonl --allow-overlap --name learned", trained=True)
    write_eval_run("tfidf", refs, 3, "baselines eval scalr --method tfidf --data-dir /home/someone/data", trained=False)
    comparison = compare("scalr", replicates=200)
    headline = "\n".join(headline_section(get_task("scalr"), comparison, None, shown_command))
    assert ("- learned: `baselines train scalr --method learned --data-dir DATA --name learned`, then "
            "`baselines eval scalr --method learned --data-dir DATA --test-file DATA/scalr/test.jsonl "
            "--allow-overlap --name learned`") in headline
    page = to_markdown(comparison, shown_command)
    assert "- tfidf: `baselines eval scalr --method tfidf --data-dir DATA`" in page  # nothing to train first


def test_predict_tables_cut_a_sentence_at_a_word_and_never_mid_word():
    from baselines.cli.summary import shortened

    sentence = "The appellant was charged with theft of a cow from the village of Bengaluru in case 12 of 2012."
    cut = shortened(sentence, 40)
    assert cut == "The appellant was charged with theft of…" and len(cut) <= 40
    assert shortened("short", 40) == "short" and shortened("x" * 50, 10) == "x" * 9 + "…"
