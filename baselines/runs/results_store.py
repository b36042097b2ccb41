"""Where results live: results/<task>/<system>/<run>/, apart from models, one folder per evaluation run.

A run folder holds `results.json` (metrics, intervals, breakdowns, and the `variant` it was computed
on), `samples.jsonl` (per-item log: id, gold, answer, correct) and, for our methods,
`predictions.jsonl`. What a run was computed on is recorded as fields in `results.json`, never read
from names: `variant` = {split, cv, seed, segmenter, test_file, references}, where `references` is a
digest of the scored references (ids and gold answers), so runs on different items never pair.
The run folder's name is only a readable, unique slug of the variant.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from baselines.core.config import with_former_defaults
from baselines.core.leftovers import interrupted_target, pending_backup, restore_interrupted
from baselines.core.errors import BaselinesError, DataError
from baselines.core.io import atomic_path, read_json, write_json, write_jsonl
from baselines.core.manifest import file_digest
from baselines.core.safe_write import check_replaceable_folder, settled
from baselines.core.paths import results_root

SYSTEM_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+@=-]*")
MAX_NAME = 100  # characters of a system name: a folder name, with room for the hidden temporaries beside it
RESULTS_FILE, SAMPLES_FILE, PREDICTIONS_FILE = "results.json", "samples.jsonl", "predictions.jsonl"
MODEL_FILE = "config.json"  # what marks a model folder (methods/base.py writes it)


@dataclass(frozen=True)
class Variant:
    """What one run was computed on."""

    split: str | None  # None when the references came from --test-file
    references: str  # digest of the references' ids and gold answers
    cv: int | None = None  # K of K-fold cross-validation (out-of-fold predictions)
    seed: int | None = None  # the fold seed of a cross-validated run
    segmenter: str | None = None  # RR end to end: the segmenter that cut the raw text
    test_file: str | None = None  # the file name (no folder) of --test-file references

    def slug(self) -> str:
        """A readable run-folder name: 'dev', 'train-cv3', 'dev-e2e-trained', 'file-x-1a2b3c4d'."""
        parts = [self.split] if self.split else ["file", _slug(Path(self.test_file or "file").stem),
                                                 self.references[:8]]
        if self.cv:
            parts.append(f"cv{self.cv}" + (f"-seed{self.seed}" if self.seed else ""))
        if self.segmenter:
            parts.append(f"e2e-{_slug(Path(self.segmenter).name)}")
        return "-".join(parts)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Variant:
        """The variant a results file records; a field it lacks is None."""
        return cls(**{name: data.get(name) for name in cls.__dataclass_fields__})


def _slug(text: str) -> str:
    """A plain, short folder-name part (the references digest keeps cut names apart)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:60] or "x"


def references_digest(references) -> str:
    """sha256 (first 16 hex digits) of the references' ids and gold answers, in id order."""
    lines = sorted(f"{ref.id}\t{'|'.join(ref.gold)}" for ref in references)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def check_system_name(name: str) -> str:
    """A system name that is one plain folder name (letters, digits, . _ - + @ =) of at most MAX_NAME characters."""
    if name == "":
        raise BaselinesError("the system name is empty: give --name a name, or leave --name out for the default")
    if not isinstance(name, str) or not SYSTEM_NAME.fullmatch(name) or name in (".", ".."):
        raise BaselinesError(f"system name {name!r} is not a plain name: use letters, digits and . _ - + @ = "
                             "(no folders, no spaces)")
    if len(name) > MAX_NAME:
        raise BaselinesError(f"system name {name[:40]}... has {len(name)} characters; at most {MAX_NAME}")
    return name


def run_folder(task: str, system: str, variant: Variant, results_dir=None) -> Path:
    """results/<task>/<system>/<variant slug>/."""
    return results_root(results_dir) / task / check_system_name(system) / variant.slug()


def check_replace(folder: Path, *, scored: bool, force: bool, variant: Variant, config: dict | None = None) -> None:
    """Refuse to replace a folder that is not a run this tool wrote (`check_run_owned`), whatever --force says;
    without --force, refuse to replace a scored (external) run, to let `score` replace anything, or to let `eval`
    replace a run computed on other references or with another configuration. A run that a killed rewrite left
    only as its previous copy has been put back first (`check_writable` before the work, the write's own lock at
    the swap), and is judged as it stands."""
    path = folder / RESULTS_FILE
    if not path.is_file():
        return
    previous = read_json(path)
    check_run_owned(folder, previous)
    if force:
        return
    was_scored = previous["meta"].get("method") == "external"
    if scored or was_scored:
        what = "a scored run (`baselines score`)" if was_scored else "an evaluation run (`baselines eval`)"
        raise BaselinesError(f"{folder} already holds {what}; choose another --name, or pass --force to replace it")
    differs = [what for what, old, new in (
        ("references (other items or gold answers)", previous.get("variant", {}).get("references"), variant.references),
        ("configuration", *_shared_keys(previous["meta"].get("config"), config)))
        if old is not None and new is not None and old != new]
    if differs:
        raise BaselinesError(f"{folder} holds a run on other {' and '.join(differs)}; choose another --name "
                             "(or --config NAME, which names the system), or pass --force to replace it")


RUN_FILES = (RESULTS_FILE, SAMPLES_FILE, PREDICTIONS_FILE)


def check_run_owned(folder: Path, result) -> None:
    """A run folder is ours only when its results.json has the shape this tool writes, it holds no file this tool
    does not write there, and each file results.json lists (`meta.files`, name -> sha256) is unchanged; a folder
    that is not (a forged results.json, a user's notes beside a copy of a run, an edited samples file) is refused
    whatever --force says: this tool never deletes what it did not write."""
    path = folder / RESULTS_FILE
    problem = results_problem(result)
    if problem:
        raise DataError(f"is not a results file this tool wrote ({problem}: damaged, or someone else's); its folder "
                        "is kept: choose another --name, or move the folder away", path)
    strangers = sorted(entry.name for entry in os.scandir(folder) if entry.name not in RUN_FILES)
    if strangers:
        raise DataError(f"holds {', '.join(strangers[:3])}{' ...' if len(strangers) > 3 else ''}, which this tool "
                        "never writes in a run folder: refusing to replace the folder (move them away, or choose "
                        "another --name)", folder)
    changed = changed_since_written(folder, result)
    if changed:
        raise DataError(f"{changed}: refusing to replace the folder, whatever --force says (move it away, or choose "
                        "another --name)", folder)


def changed_since_written(folder: Path, result: dict) -> str | None:
    """What of a run folder changed after this tool wrote it, or None: a file its results.json lists (`meta.files`,
    name -> sha256) with other bytes, or results.json itself, any field of it (its `results_sha256` no longer
    matches its content). A run written before results files carried their digest is judged by its files alone."""
    listed = result["meta"].get("files")
    for name, digest in (listed.items() if isinstance(listed, dict) else ()):
        if name not in RUN_FILES or file_digest(folder / name) != digest:
            return f"{name} is not the file this tool wrote there (changed since)"
    recorded = result["meta"].get(RESULTS_DIGEST)
    if recorded is not None and recorded != results_digest(result):
        return (f"{RESULTS_FILE} has been edited since this tool wrote it (its {RESULTS_DIGEST} no longer matches "
                "its content)")
    return None


MODEL_SHAPE = ("task", "method", "class", "params")  # what every config.json of a saved model holds


def check_model_owned(folder: Path) -> None:
    """A model folder is ours only when its config.json has the shape Method.save writes: a folder holding a
    forged or damaged one is refused before any training."""
    path = Path(folder) / MODEL_FILE
    if not path.is_file():
        return
    config = read_json(path)
    if not isinstance(config, dict) or any(key not in config for key in MODEL_SHAPE):
        raise DataError("is not a model configuration this tool wrote (damaged, or someone else's): refusing to "
                        "replace its folder (move it away, or choose another --name)", path)


def check_no_links(folder: Path, root: Path) -> None:
    """Refuse an output folder with a symbolic link anywhere from below `root` (the results or models folder the
    user chose) down to it, whatever --force says: a write through it would replace what the link names."""
    folder, root = Path(folder), Path(root)
    try:
        parts = folder.relative_to(root).parts
    except ValueError:
        parts = ()
    current = root
    for part in parts:
        current = current / part
        if os.path.islink(current):
            raise DataError("is a symbolic link on the output path: refusing to write through it, whatever --force "
                            "says (remove the link, or choose another name)", current)


RESULT_SHAPE = {"task": str, "system": str, "split": str, "n": int, "coverage": (int, float), "metrics": dict,
                "main_metric": str, "interval": list, "meta": dict}  # what every run writes


def results_problem(result) -> str | None:
    """What keeps a parsed results.json from being one this tool wrote (None: it has its shape), whatever JSON
    it holds: `[]`, `{}`, a string, or keys of the wrong kind."""
    if not isinstance(result, dict):
        return f"a JSON {type(result).__name__}, not an object"
    for key, kind in RESULT_SHAPE.items():
        if not isinstance(result.get(key), kind) or isinstance(result.get(key), bool):
            return f"no {key}" if key not in result else f"{key} is not a {getattr(kind, '__name__', 'number')}"
    if not isinstance(result.get("variant", {}), dict):  # runs of the earliest releases have none
        return "variant is not an object"
    config = result["meta"].get("config")
    return None if config is None or isinstance(config, dict) else "meta.config is not an object"


def _shared_keys(old: dict | None, new: dict | None) -> tuple:
    """Both configurations on the parameters both name (a parameter added since is no difference, unless its
    default changed: then the old configuration had the former default), as JSON."""
    if old is None or new is None:
        return None, None
    old = with_former_defaults(old, new)
    shared = sorted(set(old) & set(new))
    return _as_json({k: old[k] for k in shared}), _as_json({k: new[k] for k in shared})


def _as_json(value):
    """`value` as it reads back from JSON (tuples become lists), for comparing a config with a saved one."""
    return json.loads(json.dumps(value)) if value is not None else None


def check_writable(folder: Path, markers: tuple[str, ...] = (RESULTS_FILE, MODEL_FILE)) -> None:
    """Fail before any work when an output folder (results or model) cannot be created or written, or may not
    be replaced: a symbolic link (replacing it would empty the folder it names), a file, or a folder that
    holds none of `markers` (results.json for a run, config.json for a model), written by someone else. A folder
    whose killed rewrite left only its previous copy is put back first, or refused while that writer may still run
    (`settled`)."""
    settled(folder)
    check_replaceable_folder(folder, markers)
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not os.access(existing, os.W_OK | os.X_OK):
        raise BaselinesError(f"cannot write {folder}: {existing} is not writable (choose another folder with "
                             "--results-dir / --models-dir)")


def write_run(folder: Path, result: dict, samples: list[dict], predictions: list[dict] | None,
              check: Callable[[], None] | None = None) -> Path:
    """The whole run folder, written to a temporary folder first and renamed into place; `check` (whether
    the folder may still be replaced) runs under the lock of that rename, after the check that the folder
    there is a run folder (it holds results.json) and no symbolic link."""
    with atomic_path(folder, check, marker=RESULTS_FILE) as tmp:
        tmp.mkdir(parents=True)
        if predictions is not None:
            write_jsonl(tmp / PREDICTIONS_FILE, predictions)
        write_jsonl(tmp / SAMPLES_FILE, samples)
        files = {name: file_digest(tmp / name) for name in (SAMPLES_FILE, PREDICTIONS_FILE) if (tmp / name).is_file()}
        written = {**result, "meta": {**result.get("meta", {}), "files": files}}
        written["meta"][RESULTS_DIGEST] = results_digest(written)
        write_json(tmp / RESULTS_FILE, written)
    return folder


def restore_runs(root: Path) -> list[Path]:
    """Put back every run of `root` (results/<task>) that a rewrite killed between its two renames left only as
    its previous copy (a hidden `.old` folder of this tool, its writer gone): the last complete run stands again,
    and nothing is deleted. Returns the runs put back."""
    restored = []
    for system in (root.iterdir() if root.is_dir() else ()):
        for entry in (system.iterdir() if system.is_dir() and not system.is_symlink() else ()):
            name = interrupted_target(entry.name)
            if name and restore_interrupted(system / name) is not None:
                restored.append(system / name)
    return restored


def pending_runs(task: str, results_dir=None) -> dict[Path, str]:
    """The runs of a task that are not there because a rewrite moved them aside and cannot be known to have ended
    (its writer on another host, or still running): run folder -> why, naming the hidden backup that holds the
    last complete copy (leftovers.pending_backup)."""
    root, found = results_root(results_dir) / task, {}
    for system in (root.iterdir() if root.is_dir() else ()):
        for entry in (system.iterdir() if system.is_dir() and not system.is_symlink() else ()):
            name = interrupted_target(entry.name)
            pending = pending_backup(system / name) if name else None
            if pending is not None:
                backup, host, pid = pending
                found[system / name] = (f"its last complete copy is the hidden backup {backup.name}, moved aside by a "
                                        f"rewrite (process {pid} on host {host}) that may still be running; if it "
                                        f"was killed, rename the backup to {name}")
    return found


RESULTS_DIGEST = "results_sha256"  # meta key: the digest of results.json's own content, that key left out


def results_digest(result: dict) -> str:
    """sha256 of the results file's content, its own digest left out: a hand edit changes it."""
    meta = {key: value for key, value in result.get("meta", {}).items() if key != RESULTS_DIGEST}
    canonical = json.dumps({**result, "meta": meta}, sort_keys=True, ensure_ascii=False, allow_nan=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def run_files(task: str, results_dir=None) -> list[Path]:
    """Every results.json of a task (results/<task>/<system>/<run>/results.json), temporaries skipped; a run whose
    rewrite was killed between its two renames is first put back as it was before (`restore_runs`)."""
    root = results_root(results_dir) / task
    restore_runs(root)
    return sorted(path for path in root.glob(f"*/*/{RESULTS_FILE}")
                  if not any(part.startswith(".") for part in path.relative_to(root).parts))
