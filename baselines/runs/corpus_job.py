"""The job of a `baselines predict` output: its manifest records the task, the model's digest and the options that
change the records, and an output is resumed only by the job that wrote it (baselines.runs.corpus_output)."""
from __future__ import annotations

from pathlib import Path

from baselines.core.errors import BaselinesError, DataError
from baselines.core.io import read_json, write_json

MANIFEST = "predict_manifest.json"  # .<MANIFEST> in a folder output, .<name>.<MANIFEST> beside a JSONL output
WRITTEN_BY = "baselines predict"


def job_difference(had: dict, asked: dict, out) -> str | None:
    """How the job that labelled `out` (its manifest) differs from the one asked, in one line; None: the same."""
    if had.get("task") != asked["task"]:
        return f"{out} was labelled by task {had.get('task')}, not {asked['task']}; use another --out"
    if had.get("model_sha256") != asked["model_sha256"]:
        old, new = str(had.get("model_sha256"))[:12], asked["model_sha256"][:12]
        if had.get("model") == asked["model"]:
            return (f"the model in {asked['model']} changed since {out} was labelled (sha256 {old}, now {new}); "
                    "use another --out")
        return (f"{out} was labelled by another model: {had.get('model')} (sha256 {old}), asked: {asked['model']} "
                f"(sha256 {new}); use another --out")
    had_options, asked_options = had.get("options") or {}, asked["options"]
    for flag in sorted(set(had_options) | set(asked_options)):
        if had_options.get(flag) != asked_options.get(flag):
            return (f"{flag} differs: {out} has {had_options.get(flag, 'none')}; asked: "
                    f"{asked_options.get(flag, 'none')} (the same {flag} resumes it; else use another --out)")
    return None


class Resumable:
    """What the JSONL and folder outputs share: the manifest of their job, checked when they open (after their
    records are read into `digests`, id -> digest) and written before their first record."""

    digests: dict

    def check_job(self, manifest: Path, job: dict | None, out: Path) -> None:
        """Refuse an output that another job labelled, or whose records no manifest describes. A manifest
        without records is replaced (nothing was labelled under it); no job: nothing checked (a lock holder)."""
        self.manifest, self.job, self.marked = manifest, job, job is None
        had = _manifest(manifest) if job is not None else None
        if job is None or not self.digests:
            return
        if had is None:
            raise DataError(f"holds records but no record of the task, model and options that labelled them "
                            f"({manifest.name} is missing: written by an earlier version, or copied without it); "
                            "use another --out", out)
        difference = job_difference(had, job, out)
        if difference:
            raise BaselinesError(difference)
        self.marked = had == {"written_by": WRITTEN_BY, **job}

    def mark(self) -> None:
        """Write the manifest of this run's job, once, before its first record."""
        if not self.marked:
            write_json(self.manifest, {"written_by": WRITTEN_BY, **self.job})
            self.marked = True

    def state(self, doc_id: str, digest: str) -> str:
        known = self.digests.get(doc_id)
        return "new" if known is None else "done" if known == digest else "changed"


def _manifest(path: Path) -> dict | None:
    """The job recorded in a manifest; None when there is none; anything else there is refused."""
    if not path.exists():
        return None
    had = read_json(path)
    if not isinstance(had, dict) or had.get("written_by") != WRITTEN_BY or not isinstance(had.get("options"), dict):
        raise DataError("is not a manifest of `baselines predict`: this output is not one of its outputs; "
                        "use another --out", path)
    return had
