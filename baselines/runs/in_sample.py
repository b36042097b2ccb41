"""In-sample checks by content: what a model was fit on, and how the items it is scored on overlap it.

A saved model keeps, in FIT_ITEMS_FILE beside its config.json, the digests of the ids and of the texts of the items
it was fit on (`ids`, `texts`: DIGEST_HEX hex digits of sha256 per distinct item, sorted, concatenated), and of
their normalised units and documents (overlap.fit_units). A scored item of the same text as a fitted one is
in-sample, whatever the split or file names, and so is a run whose units overlap the fitted ones past
overlap.OVERLAP_LIMIT (copies cut, reordered or lightly edited); ids alone decide nothing (files that number
their items reuse the same ids for other items). Either is refused unless the caller allows it (--allow-overlap),
and the run then states its overlap. A model saved before the units were kept is checked on whole items only,
and says so.
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

from baselines.core.errors import BaselinesError, DataError
from baselines.core.io import read_json
from baselines.runs.overlap import MEASURED_VERSIONS, UNIT_HEX, describe, fit_units, measure
from baselines.runs.results_store import PREDICTIONS_FILE, RESULTS_FILE, file_digest, run_files

FIT_ITEMS_FILE = "fit_items.json"
DIGEST_HEX = 16  # hex digits (8 bytes) of sha256 kept per item
NOT_CHECKED = ("the model records no digests of its training items (saved by an earlier release): "
               "only its split name was checked")
_HEX_UNITS = re.compile(f"(?:[0-9a-f]{{{UNIT_HEX}}})*")
_HEX_SKETCH = re.compile("(?:[0-9a-f]{8})*")  # 32-bit shingle hashes
WHOLE_ITEMS_ONLY = ("the model records no digests of its training units (saved by an earlier release): only "
                    "whole items of the same text were looked for, not copies cut or edited; retrain it to "
                    "measure them")


def digest_of(text: str) -> str:
    """sha256 of `text`, its first DIGEST_HEX hex digits."""
    return hashlib.sha256(text.encode()).hexdigest()[:DIGEST_HEX]


def text_digests(records, contents) -> list[str]:
    """Per record, a digest of the text that makes it the item it is, whatever its id (`contents`: the benchmark's
    Contents; its `identities`: an RR document's sentences; a question with its choices, context and case)."""
    return [digest_of(text) for text in contents.identities(records)]


def item_digests(records, task) -> dict:
    """{"ids", "texts", and overlap.fit_units' keys}: the distinct digests of the records' ids and of their
    texts, each sorted and concatenated, and of their units and documents: the compact set a model keeps of the
    items it was fit on."""
    return {"ids": "".join(sorted({digest_of(str(record.id)) for record in records})),
            "texts": "".join(sorted(set(text_digests(records, task.contents)))), **fit_units(records, task.contents)}


def _digest_set(packed: str) -> set[str]:
    return {packed[i:i + DIGEST_HEX] for i in range(0, len(packed), DIGEST_HEX)}


def overlap_with(trained_on: dict, records, contents) -> tuple[list[str], list[str]]:
    """(ids of the records of a fitted item's text, ids of the other records that share a fitted item's id)."""
    texts, ids = _digest_set(trained_on.get("texts", "")), _digest_set(trained_on.get("ids", ""))
    same_text = [str(record.id) for record, text in zip(records, text_digests(records, contents)) if text in texts]
    seen = set(same_text)
    return same_text, [str(r.id) for r in records if str(r.id) not in seen and digest_of(str(r.id)) in ids]


def saved_fit(folder: Path | None) -> dict:
    """The `trained_on` record of a model folder with the digests of its FIT_ITEMS_FILE ({} for no folder, a
    stateless method's)."""
    if folder is None or not (Path(folder) / "config.json").is_file():
        return {}
    trained_on = read_json(Path(folder) / "config.json").get("trained_on") or {}
    digests = Path(folder) / FIT_ITEMS_FILE
    fitted = read_json(digests) if digests.is_file() else {}
    if not _readable_fit_items(fitted):
        raise DataError('expected {"ids", "texts", "units": "<hex digests>", "documents": ["<hex sketch>", ...], '
                        '"sketch_size": <int>}', digests)
    return {**trained_on, **fitted}


def _readable_fit_items(fitted) -> bool:
    """Whether a FIT_ITEMS_FILE holds digests of the expected shape (the unit and sketch keys are optional:
    files of earlier releases lack them)."""
    if not isinstance(fitted, dict) or not all(isinstance(fitted.get(key, ""), str) for key in ("ids", "texts")):
        return False
    units, sketches, size = fitted.get("units", ""), fitted.get("documents", []), fitted.get("sketch_size", 1)
    return (isinstance(units, str) and _HEX_UNITS.fullmatch(units) is not None and isinstance(sketches, list)
            and all(isinstance(sketch, str) and _HEX_SKETCH.fullmatch(sketch) for sketch in sketches)
            and isinstance(size, int) and not isinstance(size, bool) and size > 0)


def train_overlap(folder: Path | None, records, task, *, split: str | None, allow_overlap: bool = False) -> dict:
    """What the figures say of the scored items' overlap with the items the model in `folder` was fit on: the
    same items, or units past the limit, are refused unless `allow_overlap`. A model without digests (an
    earlier release) is checked by `split` name only, one without unit digests on whole items only."""
    if folder is None or not (Path(folder) / "config.json").is_file():  # a stateless method: fit on nothing
        return {"checked": True, "overlapping": 0, "train_items": 0}
    return fit_overlap(folder, saved_fit(folder), records, task, split=split, allow_overlap=allow_overlap)


def fit_overlap(folder: Path, trained_on: dict, records, task, *, split: str | None, allow_overlap: bool) -> dict:
    """train_overlap for a model folder whose saved_fit record has been read already (`trained_on`)."""
    if "texts" not in trained_on:
        report = {"checked": False, "reason": NOT_CHECKED}
        if split is not None and trained_on.get("split") == split and not trained_on.get("file"):
            return _past_limit(folder, report, f"was fit on the {split} split itself", allow_overlap)
        return report
    same_text, same_id = overlap_with(trained_on, records, task.contents)
    report = {"checked": True, "overlapping": len(same_text), "train_items": len(trained_on["texts"]) // DIGEST_HEX,
              "same_id_other_text": len(same_id), "model": str(Path(folder).resolve()),
              "fit_set": digest_of(trained_on["texts"])}
    if trained_on.get("overlap_version") in MEASURED_VERSIONS:
        report.update(measure(trained_on, records, task.contents))
    else:
        report["note"] = WHOLE_ITEMS_ONLY
    if same_text:
        return _past_limit(folder, report, f"was fit on {len(same_text)} of the {len(records)} scored items (the "
                                           f"same text; e.g. id {same_text[0]!r})", allow_overlap)
    if report.get("over_limit"):
        return _past_limit(folder, report, f"was fit on {describe(report)}, over the {report['threshold']:.0%} "
                                           "limit", allow_overlap)
    return report


def _past_limit(folder: Path, report: dict, what: str, allow_overlap: bool) -> dict:
    """The report of a run past the limit, marked as allowed; refused unless `allow_overlap`."""
    if not allow_overlap:
        raise in_sample_error(folder, what)
    return {**report, "allowed": True, "allowed_past": what}


def in_sample_error(folder: Path, what: str) -> BaselinesError:
    return BaselinesError(f"{folder} {what}: scoring it there would be an in-sample figure. Evaluate with --cv K, "
                          "or on items it was not fit on, or give --allow-overlap to write the run with its overlap "
                          "stated beside its figures")


def writer_overlap(predictions: Path, records, task, allow_overlap: bool = False, *, results_dir=None) -> dict | None:
    """For the predictions file of an eval run: the scored items' overlap with the items of the model that wrote
    it, refused like eval's; None for any other. The run is the one whose results file sits beside the file, or,
    for a copy moved or renamed elsewhere, the run of `task` whose predictions have the same bytes (its results
    file lists their sha256 in meta.files; runs of earlier releases are hashed). `records`: the scored records,
    or a function giving them (called only when there is a run to check against)."""
    written = _writer_record(Path(predictions), task.name, results_dir)
    if written is None:
        return None
    try:
        folder, fit_set = Path(written["model"]), written["fit_set"]
    except (KeyError, TypeError):  # no model named (stateless, cross-validated)
        return None
    trained_on = saved_fit(folder)
    if digest_of(trained_on.get("texts", "")) != fit_set:
        return {"checked": False, "reason": f"{folder} no longer holds the model that wrote these predictions"}
    records = records() if callable(records) else records  # whole records, loaded only now they are needed
    return fit_overlap(folder, trained_on, records, task, split=None, allow_overlap=allow_overlap)


def _writer_record(predictions: Path, task: str | None, results_dir) -> dict | None:
    """meta.train_overlap of the eval run that wrote `predictions` (beside it, or found by the file's digest)."""
    beside = predictions.parent / RESULTS_FILE
    candidates = [beside] if predictions.name == PREDICTIONS_FILE and beside.is_file() else []
    if not candidates and task is not None and predictions.is_file():
        digest = file_digest(predictions)
        candidates = [path for path in run_files(task, results_dir) if _wrote(path, digest)]
    for path in candidates:
        try:
            return read_json(path)["meta"]["train_overlap"]
        except (DataError, KeyError, TypeError):  # not our file, or a run without a record
            continue
    return None


def _wrote(results: Path, digest: str | None) -> bool:
    """Whether the run of `results` wrote predictions with this sha256 (listed in meta.files, else hashed)."""
    try:
        listed = read_json(results)["meta"].get("files", {})
    except (DataError, KeyError, TypeError, AttributeError):
        return False
    if isinstance(listed, dict) and PREDICTIONS_FILE in listed:
        return listed[PREDICTIONS_FILE] == digest
    return file_digest(results.parent / PREDICTIONS_FILE) == digest
