"""LegalEval's Label Studio JSON: documents with annotated sentence spans, every field checked.

A malformed field is one DataError naming the file, the document id and the field as a path within the
document (e.g. `annotations[0].result[3].value.start`).
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from baselines.core.errors import DataError
from baselines.core.io import read_json
from baselines.tasks.rr.documents import Documents, make_document, shown, skipped_note


def _field_error(path, doc_id: str, field: str, problem: str) -> DataError:
    """One line naming the file, the document and the malformed field (a JSON path within the document)."""
    return DataError(f"document {doc_id!r}, {field}: {problem}", path)


def _document_id(raw, position: int, path) -> str:
    if not isinstance(raw, dict):
        raise DataError(f"document #{position} of the list: expected a JSON object, got {shown(raw)}", path)
    doc_id = raw.get("id", position)
    if isinstance(doc_id, bool) or not isinstance(doc_id, (int, str)) or doc_id == "":
        raise DataError(f"document #{position} of the list, id: expected a number or a non-empty string, "
                        f"got {shown(doc_id)}", path)
    return str(doc_id)


def _document_text(raw: dict, doc_id: str, path) -> str:
    data = raw.get("data")
    if not isinstance(data, dict) or "text" not in data:
        raise _field_error(path, doc_id, "data.text", "missing")
    if not isinstance(data["text"], str):
        raise _field_error(path, doc_id, "data.text", f"expected a string, got {shown(data['text'])}")
    return data["text"]


def _document_group(raw: dict, doc_id: str, path) -> str:
    meta = raw.get("meta")
    if meta is None:
        return ""
    if not isinstance(meta, dict):
        raise _field_error(path, doc_id, "meta", f"expected an object, got {shown(meta)}")
    group = meta.get("group")
    if group is not None and not isinstance(group, str):
        raise _field_error(path, doc_id, "meta.group", f"expected a string, got {shown(group)}")
    return group or ""


def _annotation_results(raw: dict, doc_id: str, path) -> list:
    """The result list of the document's first annotation (empty when it has none)."""
    annotations = raw.get("annotations")
    if annotations is None or annotations == []:
        return []
    if not isinstance(annotations, list):
        raise _field_error(path, doc_id, "annotations", f"expected a list, got {shown(annotations)}")
    if not isinstance(annotations[0], dict):
        raise _field_error(path, doc_id, "annotations[0]", f"expected an object, got {shown(annotations[0])}")
    results = annotations[0].get("result")
    if results is not None and not isinstance(results, list):
        raise _field_error(path, doc_id, "annotations[0].result", f"expected a list, got {shown(results)}")
    return results or []


def _span(result, index: int, text: str, doc_id: str, path) -> tuple[int, int, str | None]:
    """(start, end, label) of one annotated span, every field checked."""
    field = f"annotations[0].result[{index}]"
    if not isinstance(result, dict):
        raise _field_error(path, doc_id, field, f"expected an object, got {shown(result)}")
    value = result.get("value")
    if not isinstance(value, dict):
        raise _field_error(path, doc_id, f"{field}.value", "missing" if value is None else
                           f"expected an object, got {shown(value)}")
    for name in ("start", "end"):
        if name not in value:
            raise _field_error(path, doc_id, f"{field}.value.{name}", "missing")
        if isinstance(value[name], bool) or not isinstance(value[name], int):
            raise _field_error(path, doc_id, f"{field}.value.{name}", f"expected an integer character offset, "
                               f"got {shown(value[name])}")
    start, end = value["start"], value["end"]
    if not 0 <= start < end <= len(text):
        raise _field_error(path, doc_id, f"{field}.value", f"span [{start}, {end}) is out of range: need "
                           f"0 <= start < end <= {len(text)} (the length of data.text)")
    expected = value.get("text")
    if expected is not None and not isinstance(expected, str):
        raise _field_error(path, doc_id, f"{field}.value.text", f"expected a string, got {shown(expected)}")
    if expected is not None and text[start:end] != expected:
        raise _field_error(path, doc_id, f"{field}.value.text", f"span [{start}, {end}) does not match it "
                           "(offsets into a different text?)")
    return start, end, _label_of(value.get("labels"), f"{field}.value.labels", doc_id, path)


def _label_of(labels, field: str, doc_id: str, path) -> str | None:
    if labels is None or labels == []:
        return None
    if not isinstance(labels, list) or len(labels) > 1:
        raise _field_error(path, doc_id, field, f"needs a list of at most one label, got {shown(labels)}")
    if not isinstance(labels[0], str) or not labels[0].strip():
        raise _field_error(path, doc_id, field, f"the label must be a non-empty string, got {shown(labels[0])}")
    return labels[0]


def load_label_studio(path: Path) -> Documents:
    """LegalEval JSON: documents with annotated spans; duplicate ids get '#2'...; span-less ones are skipped
    (counted in `notes` and listed in `skipped`). A malformed field is a DataError naming document and field."""
    data = read_json(path)
    if not isinstance(data, list):
        raise DataError("expected a JSON list of documents", path)
    seen: Counter = Counter()
    docs, notes, skipped = [], [], []
    for position, raw in enumerate(data):
        original_id = doc_id = _document_id(raw, position, path)
        seen[doc_id] += 1
        if seen[doc_id] > 1:
            notes.append(f"duplicate document id {doc_id} renamed {doc_id}#{seen[doc_id]}")
            doc_id = f"{doc_id}#{seen[doc_id]}"
        text = _document_text(raw, doc_id, path)
        group = _document_group(raw, doc_id, path)
        results = _annotation_results(raw, doc_id, path)
        if not results:
            skipped.append(doc_id)
            continue
        doc = make_document(doc_id, text, [_span(r, k, text, doc_id, path) for k, r in enumerate(results)], path)
        doc.meta = {"group": group}
        if doc_id != original_id:
            doc.meta["original_id"] = original_id
        docs.append(doc)
    if skipped:
        notes.append(skipped_note(skipped, len(data), path))
    return Documents(docs, notes, skipped)
