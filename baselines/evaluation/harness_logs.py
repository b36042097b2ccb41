"""Reading lm-evaluation-harness per-sample logs (`samples_<task>_<date>.jsonl`) as predictions rows.

The harness writes one JSON object per (document, filter) with `doc_id` (position in its dataset),
`doc` (the dataset row), `target`, `arguments`, `resps` (the model's output per request), and
`filtered_resps` (the same after the task's filters) and `filter` (the filter's name). Since v0.4.3
responses are written as strings ("-1.25", "False"); older logs keep numbers and booleans.

* id: a field of `doc` (`id_field`; by default the first of id, index, idx that the doc has; SCALR
  from LegalBench has `index`), or the harness's own `doc_id` when `id_field="doc_id"`.
* generate_until samples become {"id", "raw"}: the text of `filtered_resps` (else `resps`), read by
  the one answer extractor like any other generation; with "offered", the doc's `labels` when it lists
  them (our exports do), the spellings its prompt offered: only those are read.
* loglikelihood (multiple-choice) samples, one [logprob, is_greedy] per choice, become
  {"id", "choice", "n_choices", "continuation"}: the most likely choice. The evaluator takes its
  scored text when that is one of the item's labels (CaselawQA-style " A"), else the item's label
  at the same position, after checking that the number of choices matches. A log-likelihood is a
  finite number of at most 0 (the log of a probability); when any of a sample's is not (NaN, `inf`,
  `-inf`, 1e309, or above 0), or the best one is shared by several choices (two equal maxima), no
  choice is the model's: "choice" is None and the item counts as no answer.
* a folder (the harness's --output_path): every samples_*.jsonl under it, one log per task, read
  together; an id in two files, or generations beside scored choices, is an error, and so is a folder holding
  the runs of two models (harness_models.py).
* each document's own gold answer and choices are kept beside the rows (HarnessRows.logged), and `score` refuses a
  log whose documents disagree with our references past a small share (harness_gold.py).
"""
from __future__ import annotations

import math
from pathlib import Path

from baselines.core.errors import BaselinesError, DataError
from baselines.core.io import read_jsonl
from baselines.evaluation.harness_gold import HarnessRows, logged_key
from baselines.evaluation.harness_models import check_one_model
from baselines.evaluation.predictions import shown_id

ID_FIELDS = ("id", "index", "idx")
_BOOLEANS = {"true": True, "false": False}


def rows_from_lm_eval(rows: list[tuple[int, dict]], path: Path, id_field: str | None = None,
                      filter_name: str | None = None) -> list[dict]:
    """Predictions rows ({"id", "raw"} or {"id", "choice", "n_choices"}) from numbered lm-eval samples."""
    for line, row in rows:
        if not isinstance(row.get("doc"), dict) or not ("filtered_resps" in row or "resps" in row):
            raise DataError("mixed formats: not an lm-evaluation-harness sample (needs 'doc' and "
                            "'resps' or 'filtered_resps')", path, line)
    rows = _one_filter(rows, path, filter_name)
    field = id_field or _default_id_field(rows[0][1], path, rows[0][0])
    out, seen, kind = HarnessRows(), {}, None
    for line, row in rows:
        key = _id_of(row, field, path, line)
        if key in seen:
            raise DataError(f"duplicate id {shown_id(key)} (first on line {seen[key]})", path, line)
        seen[key] = line
        answer = _answer(row, path, line)
        this_kind = "choice" if "choice" in answer else "raw"
        if kind is not None and this_kind != kind:
            raise DataError(f"mixed formats: earlier samples are {kind}, this one {this_kind}", path, line)
        kind = this_kind
        out.append({"id": key, **answer, **_offered(row["doc"], answer)})
        out.logged[key] = (path, line, logged_key(row, answer))
    return out


def rows_from_lm_eval_folder(folder: Path, id_field: str | None = None,
                             filter_name: str | None = None) -> list[dict]:
    """Predictions rows of every samples_*.jsonl (or .jsonl.gz, as kept compressed) under `folder` (the harness
    writes one per task), as one list.

    Each file is read as one log; an id found in two files, or generations in one file and scored
    choices in another, is an error naming both files."""
    files = sorted([*Path(folder).rglob("samples_*.jsonl"), *Path(folder).rglob("samples_*.jsonl.gz")])
    if not files:
        raise DataError("no lm-evaluation-harness samples_*.jsonl file under this folder", folder)
    check_one_model(Path(folder), files)
    out, source, first = HarnessRows(), {}, None
    for path in files:
        rows = list(read_jsonl(path))
        if not rows:
            raise DataError("the samples file is empty", path)
        read = rows_from_lm_eval(rows, path, id_field, filter_name)
        out.logged.update(read.logged)
        for row in read:
            kind = "scored choices" if "choice" in row else "generations"
            first = first or (kind, path)
            if kind != first[0]:
                raise DataError(f"mixed formats: {first[1]} holds {first[0]}, this file {kind}", path)
            if row["id"] in source:
                raise DataError(f"duplicate id {shown_id(row['id'])} (also in {source[row['id']]})", path)
            source[row["id"]] = path
            out.append(row)
    return out


def _offered(doc: dict, answer: dict) -> dict:
    """{"offered": the document's labels} for a generation, when the document lists them (our exports do): the
    spellings its prompt offered, so the extractor reads those alone (SCALR: "0".."4" or "A".."E"): the numbering
    of a bare number is the prompt's."""
    labels = doc.get("labels")
    if "raw" in answer and isinstance(labels, list) and labels and all(isinstance(label, str) for label in labels):
        return {"offered": labels}
    return {}


def _one_filter(rows: list[tuple[int, dict]], path: Path, filter_name: str | None) -> list[tuple[int, dict]]:
    """The samples of one filter: the only one in the log, or the one named."""
    names = list(dict.fromkeys(str(row.get("filter", "none")) for _, row in rows))
    if filter_name is None:
        if len(names) > 1:
            raise DataError(f"the log holds several filters ({', '.join(names)}); choose one with "
                            "--lm-eval-filter NAME", path)
        return rows
    kept = [(line, row) for line, row in rows if str(row.get("filter", "none")) == filter_name]
    if not kept:
        raise DataError(f"no samples for filter {filter_name!r}; the log has: {', '.join(names)}", path)
    return kept


def _default_id_field(row: dict, path: Path, line: int) -> str:
    for name in ID_FIELDS:
        if name in row["doc"]:
            return name
    fields = ", ".join(sorted(row["doc"])) or "(none)"
    raise DataError(f"the doc has none of the id fields {', '.join(ID_FIELDS)}; pass --id-field NAME "
                    f"(doc fields: {fields}; or doc_id, the harness's position)", path, line)


def _id_of(row: dict, field: str, path: Path, line: int) -> str:
    if field in row["doc"]:
        value = row["doc"][field]
    elif field == "doc_id" and "doc_id" in row:
        value = row["doc_id"]
    else:
        raise DataError(f"the doc has no field {field!r}", path, line)
    if value is None or isinstance(value, (dict, list)):
        raise DataError(f"doc field {field!r} is not an id: {value!r}", path, line)
    return str(value)


def _answer(row: dict, path: Path, line: int) -> dict:
    """{"raw": text} for a generation, {"choice", "n_choices"} for scored choices."""
    filtered = "filtered_resps" in row
    responses = row["filtered_resps"] if filtered else row["resps"]
    if not isinstance(responses, list) or not responses:
        raise DataError("empty or malformed responses", path, line)
    items = [_first(item) if not filtered else item for item in responses]
    pairs = [_loglikelihood(item) for item in items]
    if all(pair is not None for pair in pairs):
        if len(pairs) < 2:
            raise DataError("a single loglikelihood request is not a multiple-choice answer", path, line)
        best = _best_choice([pair[0] for pair in pairs])
        continuation = _continuation(row, best) if best is not None else None
        return {"choice": best, "n_choices": len(pairs), "continuation": continuation}
    if len(items) != 1:
        raise DataError(f"{len(items)} generation requests in one sample; expected 1", path, line)
    text = _first(items[0]) if isinstance(items[0], list) else items[0]
    if text is not None and not isinstance(text, str):
        raise DataError(f"the response is not text: {text!r}", path, line)
    return {"raw": text}


def _best_choice(scores: list[float]) -> int | None:
    """The position of the highest log-likelihood; None when one is no log-likelihood (NaN, infinite, or above 0:
    a probability above 1, so the run that wrote it is broken) or the highest is tied."""
    if not all(math.isfinite(score) and score <= 0 for score in scores):
        return None
    best = max(scores)
    return scores.index(best) if scores.count(best) == 1 else None


def _continuation(row: dict, index: int) -> str | None:
    """The text scored for choice `index` (arguments as {"gen_args_k": {"arg_1": ...}} or [[context, text]])."""
    arguments = row.get("arguments")
    try:
        if isinstance(arguments, dict):
            text = arguments[f"gen_args_{index}"]["arg_1"]
        else:
            text = arguments[index][1]
    except (KeyError, IndexError, TypeError):
        return None
    return text.strip() if isinstance(text, str) else None


def _first(value):
    """The first of repeated responses (generations sampled several times)."""
    return value[0] if isinstance(value, list) and value else value


def _loglikelihood(item) -> tuple[float, bool] | None:
    """(logprob, is_greedy) when `item` is one scored choice, else None."""
    if isinstance(item, list) and len(item) == 1 and isinstance(item[0], list):
        item = item[0]
    if not isinstance(item, list) or len(item) != 2:
        return None
    value, greedy = item
    if isinstance(greedy, str):
        greedy = _BOOLEANS.get(greedy.strip().lower())
    if not isinstance(greedy, bool) or isinstance(value, bool):
        return None
    try:
        return float(value), greedy
    except (TypeError, ValueError):
        return None


def choice_label(row: dict, reference) -> str | None:
    """The chosen option's text when it is one of the item's labels (" A"), else the label at its position;
    None when the log chose none (a value that is no log-likelihood, or tied ones).

    Mapping by position needs as many options in the log as the item has labels."""
    count, index = row.get("n_choices"), row.get("choice")
    if index is None and "choice" in row:  # the log's logprobs chose none
        return None
    if row.get("continuation") in reference.labels:
        return row["continuation"]
    if count != len(reference.labels):
        raise BaselinesError(f"id {shown_id(reference.id)}: the log scores {count} choices but the item has "
                             f"{len(reference.labels)} labels; cannot map the chosen option to a label")
    if not isinstance(index, int) or not 0 <= index < count:
        raise BaselinesError(f"id {shown_id(reference.id)}: chosen option {index!r} is out of range")
    return reference.labels[index]
