"""Fitted state as plain files: <stem>.json (structure, parameters, vocabularies) and <stem>.npz (arrays).

A state is a tree of dicts, lists, tuples, numbers, strings, numpy arrays and fitted objects of the classes
in PLAIN_CLASSES or in a task record's `plain_classes`, saved attribute by attribute. Reading it back gives the
same values, dtypes and bytes (numpy integer scalars come back as Python ints of the same value), so
predictions are bit-identical.
Arrays are read with `allow_pickle=False` and objects are rebuilt only from the listed classes, so reading
runs no code from the files. Model folders of earlier releases hold the same tree as a joblib pickle, read
by `load_state_file` only when the plain files are absent: a pickle runs code when loaded, so such a folder
must be trusted like code.
"""
from __future__ import annotations

import contextlib
import json
import zipfile
from pathlib import Path

import numpy as np

from baselines.core.errors import BaselinesError, DataError
from baselines.core.io import atomic_path, read_json

FORMAT = "plain-state/1"
PLAIN_CLASSES = {  # with the tasks' own (PlainClasses), the only classes a state may hold: name -> target
    "TfidfVectorizer": "sklearn.feature_extraction.text:TfidfVectorizer",
    "TfidfTransformer": "sklearn.feature_extraction.text:TfidfTransformer",
    "TruncatedSVD": "sklearn.decomposition:TruncatedSVD",
    "LogisticRegression": "sklearn.linear_model:LogisticRegression",
    "LinearSVC": "sklearn.svm:LinearSVC",
    "OneVsRestClassifier": "sklearn.multiclass:OneVsRestClassifier",
    "LabelBinarizer": "sklearn.preprocessing:LabelBinarizer",
}
TAGS = ("__array__", "__tuple__", "__pairs__", "__scalar__", "__dtype__", "__object__")


def plain_classes() -> dict[str, str]:
    """Every class a state may hold: PLAIN_CLASSES and those the records of the tasks loaded so far register (a
    plugin's model is read once its task was asked for, so its classes are known by then)."""
    from baselines.registry import KNOWN_TASKS, PlainClasses

    classes = dict(PLAIN_CLASSES)
    for task in KNOWN_TASKS.values():
        if task.capability(PlainClasses):
            classes.update(task.capability(PlainClasses).classes)
    return classes


def _plain_class(name: str) -> type:
    from baselines.core.lazy import import_object

    if name not in plain_classes():
        raise ValueError(f"holds an object of class {name!r}, which a plain state may not hold")
    return import_object(plain_classes()[name])


def _encode(value, arrays: dict):
    """JSON for `value`; its arrays are moved into `arrays` and referenced by key."""
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise ValueError("holds an array of Python objects")
        key = f"a{len(arrays)}"
        arrays[key] = value
        return {"__array__": key}
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()  # read back as a Python int or bool of the same value
    if isinstance(value, np.floating):
        return {"__scalar__": [value.dtype.str, value.item()]}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(v, arrays) for v in value]}
    if isinstance(value, list):
        return [_encode(v, arrays) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value) and not (len(value) == 1 and next(iter(value)) in TAGS):
            return {k: _encode(v, arrays) for k, v in value.items()}
        return {"__pairs__": [[_encode(k, arrays), _encode(v, arrays)] for k, v in value.items()]}
    if isinstance(value, type) and issubclass(value, np.generic):
        return {"__dtype__": np.dtype(value).str}
    name = type(value).__name__
    if name in plain_classes() and _plain_class(name) is type(value):
        return {"__object__": [name, _encode(dict(vars(value)), arrays)]}
    raise ValueError(f"holds a {type(value).__module__}.{type(value).__qualname__}, which has no plain format")


def _decode(value, arrays: dict):
    """The value that _encode turned into `value`."""
    if isinstance(value, list):
        return [_decode(v, arrays) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) != 1 or next(iter(value)) not in TAGS:
        return {k: _decode(v, arrays) for k, v in value.items()}
    tag, content = next(iter(value.items()))
    if tag == "__array__":
        if content not in arrays:
            raise ValueError(f"refers to array {content!r}, which the .npz file does not hold")
        return arrays[content]
    if tag == "__tuple__":
        return tuple(_decode(v, arrays) for v in content)
    if tag == "__pairs__":
        return {_decode(k, arrays): _decode(v, arrays) for k, v in content}
    if tag == "__scalar__":
        return _numeric_type(content[0])(content[1])
    if tag == "__dtype__":
        return _numeric_type(content)
    klass = _plain_class(content[0])
    obj = klass.__new__(klass)
    obj.__dict__.update(_decode(content[1], arrays))
    return obj


def _numeric_type(code: str) -> type:
    dtype = np.dtype(code)
    if dtype.hasobject:
        raise ValueError("names the Python object type")
    return dtype.type


def save_plain(folder: Path, stem: str, tree) -> None:
    """Write `tree` as <stem>.npz (its arrays) then <stem>.json, each atomically."""
    arrays: dict = {}
    try:
        text = json.dumps({"format": FORMAT, "tree": _encode(tree, arrays)}, ensure_ascii=True)
    except (ValueError, TypeError) as exc:
        raise BaselinesError(f"cannot save the fitted state as plain files: it {exc}") from None
    folder = Path(folder)
    with atomic_path(folder / f"{stem}.npz") as tmp, open(tmp, "wb") as handle:
        np.savez(handle, **arrays)
    with atomic_path(folder / f"{stem}.json") as tmp:
        tmp.write_text(text, encoding="ascii")


def load_plain(folder: Path, stem: str):
    """The tree that save_plain(folder, stem, tree) wrote; a damaged or foreign file is a DataError naming it."""
    folder = Path(folder)
    json_path, npz_path = folder / f"{stem}.json", folder / f"{stem}.npz"
    document = read_json(json_path)
    if not isinstance(document, dict) or document.get("format") != FORMAT or "tree" not in document:
        raise DataError(f"not a fitted-state file (expected format {FORMAT!r})", json_path)
    try:
        with np.load(npz_path, allow_pickle=False) as npz:
            arrays = {key: npz[key] for key in npz.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise DataError(f"not a readable array file ({' '.join(str(exc).split())})", npz_path) from None
    try:
        return _decode(document["tree"], arrays)
    except (ValueError, TypeError, IndexError, KeyError, ImportError, AttributeError, RecursionError) as exc:
        raise DataError(f"not a valid fitted state: it {exc}", json_path) from None


def load_state_file(folder: Path, stem: str, legacy: str):
    """The tree saved as <stem>.json/.npz, or in a folder of an earlier release, the joblib file `legacy`
    holding the same tree (a pickle: it runs code when loaded, so such a folder must be trusted)."""
    folder = Path(folder)
    if (folder / f"{stem}.json").is_file():
        return load_plain(folder, stem)
    if (folder / legacy).is_file():
        import joblib

        with former_modules():
            return joblib.load(folder / legacy)
    raise BaselinesError(f"{folder}: no fitted state ({stem}.json, or {legacy} in older folders); train again")


@contextlib.contextmanager
def former_modules():
    """While an earlier release's pickle is read, its classes' former modules name their current ones."""
    import importlib
    import sys

    from baselines.registry import former_modules as current_homes

    moved = current_homes()
    added = [old for old in moved if old not in sys.modules]
    try:
        for old in added:
            sys.modules[old] = importlib.import_module(moved[old])
        yield
    finally:
        for old in added:
            sys.modules.pop(old, None)
