"""A harness log checked against our references: each document's own gold answer and choices, as the log wrote
them, compared with our item's, like Lawma's ground truth (baselines/evaluation/ground_truth.py).

A log whose documents carry our ids but other gold answers or choices (choices in another order, another release
of the data, another task) would be scored against our gold and give a figure about nothing. What a sample says:

* its gold: the document's `gold_indexes` (our exports), else the sample's `target` (a choice's position, or its
  label, or its text), else the document's `targets`. A label is read as one of our item's labels, else by its
  position among the document's own `labels` (our SCALR export's letters), else as the text of one of our choices;
  a gold that is none of these (a free-text target) is not compared.
* its choices: the document's `choices`, else its `choice_0`, `choice_1`, ... fields (LegalBench), else, for a
  multiple-choice sample, the texts it scored, when one of them at least is the text of one of our choices (not
  option letters). They are compared with our item's choice texts, in order, ignoring case and runs of spaces.

A log file whose documents disagree with our references on more than GROUND_TRUTH_TOLERANCE of the compared ones
is refused, naming the first ids that differ; documents of items we do not score are not compared.
"""
from __future__ import annotations

from pathlib import Path

from baselines.core.errors import DataError
from baselines.core.records import Reference
from baselines.evaluation.ground_truth import GROUND_TRUTH_TOLERANCE, over_tolerance
from baselines.evaluation.predictions import shown_id

SHOWN_IDS = 5  # the ids named in a refusal


class HarnessRows(list):
    """Predictions rows read from harness logs, with what each document says of itself: `logged`, id ->
    (file, line, {"gold": ..., "choices": ..., "labels": ...})."""

    def __init__(self, rows=(), logged: dict | None = None):
        super().__init__(rows)
        self.logged = dict(logged or {})


def logged_key(sample: dict, answer: dict) -> dict:
    """What one sample says of its item: its gold ("indexes" or "texts"), its choices, its labels."""
    doc = sample["doc"]
    labels = _texts(doc.get("labels"))
    key = {"labels": labels}
    indexes = doc.get("gold_indexes")
    target = sample.get("target", doc.get("targets"))
    if isinstance(indexes, list) and indexes and all(_is_int(k) for k in indexes):
        key["gold"] = ("indexes", frozenset(indexes))
    elif _is_int(target) or (isinstance(target, list) and target and all(_is_int(k) for k in target)):
        key["gold"] = ("indexes", frozenset(target if isinstance(target, list) else [target]))
    elif _texts(target if isinstance(target, list) else [target]):
        key["gold"] = ("texts", frozenset(_texts(target if isinstance(target, list) else [target])))
    choices = _texts(doc.get("choices")) or _numbered_choices(doc)
    scored = _scored_texts(sample) if "choice" in answer else None
    if not choices and scored and [s.strip() for s in scored] != [s.strip() for s in labels or []]:
        key["scored"] = scored
    if choices:
        key["choices"] = choices
    return key


def check_logged_answers(predictions, references: list[Reference]) -> None:
    """Refuse a harness log whose documents' gold answers or choices differ from our references on more than
    GROUND_TRUTH_TOLERANCE of the compared documents, naming the file and the first ids that differ."""
    logged = getattr(predictions, "logged", None)
    if not logged:
        return
    compared: dict[Path, int] = {}
    differing: dict[Path, list[str]] = {}
    for reference in references:
        if reference.id not in logged:
            continue
        path, _, key = logged[reference.id]
        verdict = disagrees(key, reference)
        if verdict is None:
            continue
        compared[path] = compared.get(path, 0) + 1
        if verdict:
            differing.setdefault(path, []).append(reference.id)
    for path, ids in differing.items():
        if over_tolerance(len(ids), compared[path]):
            shown = ", ".join(shown_id(item) for item in ids[:SHOWN_IDS]) + (", ..." if len(ids) > SHOWN_IDS else "")
            raise DataError(f"the log's own gold answers or choices differ from our references on {len(ids):,} of "
                            f"{compared[path]:,} compared documents (more than {GROUND_TRUTH_TOLERANCE:.0%}), first "
                            f"ids {shown}: refusing to score (a log of other data or another task, or its choices in "
                            "another order?)", path)


def disagrees(key: dict, reference: Reference) -> bool | None:
    """Whether the document differs from our item in its gold or its choices; None when neither can be compared."""
    verdicts = [_gold_differs(key, reference), _choices_differ(key, reference)]
    known = [verdict for verdict in verdicts if verdict is not None]
    return any(known) if known else None


def _gold_differs(key: dict, reference: Reference) -> bool | None:
    if "gold" not in key or not reference.gold:
        return None
    ours = {reference.labels.index(label) for label in reference.gold if label in reference.labels}
    kind, values = key["gold"]
    if kind == "indexes":
        return set(values) != ours
    theirs = {_position(text, key.get("labels"), reference) for text in values}
    return None if None in theirs else theirs != ours


def _position(text: str, labels: list[str] | None, reference: Reference) -> int | None:
    """The position a gold label or text names among our item's choices, or None when it names none."""
    text = text.strip()
    if text in reference.labels:
        return reference.labels.index(text)
    own = [label.strip() for label in labels or []]
    if text in own and len(own) == len(reference.labels):
        return own.index(text)
    plain = [_plain(choice) for choice in reference.choices]
    return plain.index(_plain(text)) if _plain(text) in plain else None


def _choices_differ(key: dict, reference: Reference) -> bool | None:
    if not reference.choices:
        return None
    if "choices" in key:
        return [_plain(c) for c in key["choices"]] != [_plain(c) for c in reference.choices]
    scored = [_plain(text) for text in key.get("scored") or []]
    ours = [_plain(choice) for choice in reference.choices]
    if not set(scored) & set(ours):  # option letters or numbers, or texts spelled otherwise: not choice texts
        return None
    return scored != ours


def _scored_texts(sample: dict) -> list[str] | None:
    """The texts a multiple-choice sample scored, one per choice ({"gen_args_k": {"arg_1": ...}} or
    [[context, text], ...]), or None."""
    arguments = sample.get("arguments")
    if isinstance(arguments, dict):
        texts = [(arguments.get(f"gen_args_{k}") or {}).get("arg_1") for k in range(len(arguments))]
    elif isinstance(arguments, list):
        texts = [item[1] if isinstance(item, list) and len(item) > 1 else None for item in arguments]
    else:
        return None
    return _texts(texts)


def _plain(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def _texts(value) -> list[str] | None:
    if isinstance(value, list) and value and all(isinstance(item, str) for item in value):
        return value
    return None


def _numbered_choices(doc: dict) -> list[str] | None:
    """LegalBench's choice_0, choice_1, ... fields, in order, while they run."""
    found = []
    while isinstance(doc.get(f"choice_{len(found)}"), str):
        found.append(doc[f"choice_{len(found)}"])
    return found or None


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
