"""The folder an export writes: an absolute, plain folder; names from data kept inside it; and a manifest of
the export's own files, so that `--force` replaces an earlier export and never anyone else's files (the
manifest is read as every output folder's is, see core/safe_write.py)."""
from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from baselines.core.errors import BaselinesError
from baselines.core.manifest import changed_names, file_digest, manifest_bytes, read_manifest
from baselines.core.safe_write import check_output, settled

MANIFEST = "export_manifest.json"  # the files an export wrote: --force replaces a folder holding only those
README_TITLE = "# lm-evaluation-harness tasks:"  # the first line of every export's README.md


def export_folder(out) -> Path:
    """--out as an absolute path; a symbolic link, or a file, device or anything else but a folder, is refused."""
    given = Path(out).expanduser()
    if given.is_symlink():
        raise BaselinesError(f"{given} is a symbolic link: give the folder itself as --out")
    if given.exists() and not given.is_dir():
        raise BaselinesError(f"{given} exists and is not a folder (a file or device): choose another --out")
    check_output(given, folder=True)  # a folder this user cannot write in: before any work
    settled(given)  # an export killed between its renames: the earlier one is put back (or named) first
    return given.resolve()


def inside(folder: Path, relative: str) -> Path:
    """folder / relative, refused if it resolves outside `folder` (names from data must not climb out)."""
    path = folder / relative
    if not path.resolve().is_relative_to(folder.resolve()):
        raise BaselinesError(f"refusing to write {relative!r}: it resolves outside {folder}")
    return path


def check_target(out: Path, force: bool) -> None:
    """Refuse a non-empty folder; --force replaces only an earlier export that holds nothing but the files its
    manifest lists, and names anything else it finds there."""
    if not out.is_dir() or not any(out.iterdir()):
        return
    if not force:
        raise BaselinesError(f"{out} exists and is not empty; choose another --out, or --force to replace an "
                             "earlier export")
    others = _not_exported(out, _exported_files(out))
    if others:
        shown = ", ".join(others[:5]) + (f", ... ({len(others)} in all)" if len(others) > 5 else "")
        raise BaselinesError(f"{out} holds files that no export wrote: {shown}; --force replaces only an earlier "
                             "export's own files: move these out first, or choose another --out")


def _exported_files(out: Path) -> set[str]:
    """The files (relative paths) that the earlier export in `out` lists in its manifest, the manifest included;
    an export whose manifest records no digests (an older release's, or not ours), or one of whose files has
    changed since, is refused."""
    path = out / MANIFEST
    files = read_manifest(out, MANIFEST) if path.is_file() and not path.is_symlink() else None
    if files is None:
        raise BaselinesError(f"{out} is not an earlier export (no {MANIFEST})" + (
            ": it was written by an older release, which listed no files; remove it yourself, or choose another "
            "--out" if _older_export(out) else "; --force replaces only those: choose another --out"))
    if any(digest is None for digest in files.values()):
        raise BaselinesError(f"{path} records no sha256 of the files it lists (an older release's, or not this "
                             "program's): --force replaces only files it can check; remove the folder yourself, "
                             "or choose another --out")
    changed = changed_names(out, files)
    if changed:
        raise BaselinesError(f"{out / changed[0]} has changed since the export wrote it (its sha256 is not the one "
                             f"{MANIFEST} records){f' ({len(changed)} files in all)' if len(changed) > 1 else ''}: "
                             "--force replaces only an export as written; move it out first, or choose another --out")
    return {*files, MANIFEST}


def _older_export(out: Path) -> bool:
    """Whether `out` holds an export of a release that wrote no manifest (known by its README's first line)."""
    readme_path = out / "README.md"
    if not readme_path.is_file():
        return False
    with open(readme_path, encoding="utf-8", errors="replace") as handle:
        return handle.read(len(README_TITLE)) == README_TITLE


def _not_exported(out: Path, own: set[str]) -> list[str]:
    """What under `out` is not one of the export's own regular files: other files and links, and folders that
    hold none of its files ("name/")."""
    folders = {parent.as_posix() for file in own for parent in PurePosixPath(file).parents}
    others = []
    for root, dirs, files in os.walk(out):
        here = Path(root)
        for name in sorted(files + dirs):
            path, relative = here / name, (here / name).relative_to(out).as_posix()
            if path.is_symlink() or (name in files and (relative not in own or not path.is_file())):
                others.append(relative)
            elif name in dirs and relative not in folders:
                others.append(relative + "/")
        dirs[:] = [name for name in dirs if not (here / name).is_symlink()
                   and (here / name).relative_to(out).as_posix() in folders]
    return others


def write_manifest(tmp: Path, written_by: str = "baselines export lm-eval") -> None:
    """List every file of the export in its manifest with its sha256 (so a later --force can tell them from
    anyone else's, and from a file edited since)."""
    files = {path.relative_to(tmp).as_posix(): file_digest(path) for path in sorted(tmp.rglob("*")) if path.is_file()}
    inside(tmp, MANIFEST).write_bytes(manifest_bytes(written_by, files))
