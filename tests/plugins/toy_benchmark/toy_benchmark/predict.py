"""The toy benchmark on raw text (`baselines predict toy`): the role of each sentence given, by the saved model
loaded once per process."""
from __future__ import annotations

from baselines.methods.saved import load_trained_model
from baselines.registry import get_task
from baselines.runs.corpus import Labeller

from toy_benchmark.data import LABELS, ROLES, RoleSentence


def role_labeller(*, model=None, method_name: str | None = None, models_dir=None, data_dir=None) -> Labeller:
    """The task's `RawText` predict: the model of --model, else models/toy/<method>, ready to label batches.
    A record's `answers` hold one answer, `role`: {label, choice, probability}."""
    method_name = method_name or get_task("toy").default_method
    method = load_trained_model("toy", model, method_name, models_dir,
                                train_command=f"baselines train toy --method {method_name}")
    return Labeller(label=lambda texts: [answer(row) for row in method.predict(items_of(texts))], unit="answers")


def items_of(texts: list) -> list[RoleSentence]:
    """Each CorpusText as an unlabelled sentence, identified by its position in the batch."""
    return [RoleSentence(id=str(k), text=text.text) for k, text in enumerate(texts)]


def answer(row: dict) -> dict:
    """A record's fields from a prediction row: the label, the role it stands for, and its probability (None for
    a method without scores)."""
    index = LABELS.index(row["prediction"])
    scores = row.get("scores")
    return {"answers": {"role": {"label": row["prediction"], "choice": ROLES[index],
                                 "probability": round(float(scores[index]), 4) if scores else None}}}
