"""Command-line bodies of the rhetorical-role extras: segmenter train/eval, end-to-end eval, predict."""
from __future__ import annotations

from pathlib import Path

import typer


def train_segmenter_command(data_dir, models_dir) -> None:
    """`baselines train segmenter`: fit the spaCy senter on LegalEval train and save it."""
    from segmentation.run import train_segmenter

    from .cli import guarded

    folder = guarded(train_segmenter, data_dir, models_dir=models_dir, log=typer.echo)
    typer.echo(f"saved {folder}")


def eval_segmenter_command(data_dir, split: str | None, models_dir) -> None:
    """`baselines eval segmenter`: boundary P/R/F1 of the rule and trained segmenters on dev."""
    from rich.console import Console
    from rich.table import Table

    from segmentation.run import evaluate_segmenters

    from .cli import guarded
    from .io import read_json

    results, path = guarded(evaluate_segmenters, data_dir, split=split or "dev", models_dir=models_dir)
    table = Table(title=f"sentence boundaries on {split or 'dev'}", title_justify="left")
    for column in ("segmenter", "precision", "recall", "f1", "gold", "predicted", "seconds"):
        table.add_column(column, justify="left" if column == "segmenter" else "right")
    for name, row in results.items():
        table.add_row(name, *(f"{row[k]:.4f}" for k in ("precision", "recall", "f1")),
                      str(row["gold"]), str(row["predicted"]), f"{row['seconds']:.1f}")
    Console().print(table)
    record = read_json(path)
    cues, numbered = record["gold_boundaries_after_cue"], record["gold_breaks_at_numbered_lines"]
    typer.echo(f"{cues['after_cue']} of {cues['gold']} gold boundaries ({cues['share']:.1%}) follow a line break or "
               "sentence punctuation; the rest lie where no cue marks them")
    typer.echo("gold breaks at lines opening with a paragraph number: "
               + ", ".join(f"{key} the number {value}" if key in ("before", "after") else f"{key} {value}"
                           for key, value in numbered.items()))
    typer.echo(f"wrote {path}")


def eval_end_to_end_command(method, data_dir, *, segmenter: str, split, model, models_dir, name, seed) -> None:
    """`baselines eval rr --segmenter S`: raw text -> segmenter -> tagger, scored on the gold sentences."""
    from .cli import guarded
    from .report import print_result
    from .rr_pipeline import evaluate_end_to_end

    result, folder = guarded(evaluate_end_to_end, method, data_dir, segmenter=segmenter, split=split, model=model,
                             models_dir=models_dir, name=name, seed=seed)
    print_result(result)
    typer.echo(f"wrote {folder}/{result.split}.results.json")


def predict_command(task: str, file: Path, *, out, model, method, segmenter, models_dir, quiet: bool) -> None:
    """`baselines predict rr FILE`: labelled sentences of a raw judgment as a table and optional JSONL."""
    from .cli import fail, guarded
    from .rr_pipeline import predict_file, print_predictions

    if task != "rr":
        fail(f"predict supports the task 'rr' only, not {task!r}")
    rows = guarded(predict_file, file, model=model, method_name=method, segmenter=segmenter,
                   models_dir=models_dir, out=out)
    if not quiet:
        print_predictions(rows)
    if out:
        typer.echo(f"wrote {len(rows)} sentences to {out}")
