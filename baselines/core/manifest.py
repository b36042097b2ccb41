"""The manifest of a folder this tool shares with other files (`compare --out`, an export): which files it wrote
there, each with the sha256 of the bytes it wrote.

A listed file is ours only while its bytes are the ones listed: a forged manifest naming a user's file, or a
generated file the user has since edited, is not replaced. A manifest of an older release lists names only;
those names are trusted no more than any other file (see `owned_names`).

A write of several files is recorded in two steps: first a manifest that accepts, for each file about to be
replaced, its bytes before and after (`replacing`), then the files, then the manifest of the new bytes alone. A
write killed between the steps leaves every file with bytes the manifest accepts, so the next write proceeds.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

from baselines.core.errors import DataError
from baselines.core.reading import read_json


def file_digest(path: Path) -> str | None:
    """sha256 of a regular file (None when there is none, or it is a link)."""
    path = Path(path)
    if not path.is_file() or path.is_symlink():
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def manifest_bytes(written_by: str, files: dict[str, bytes | str | None],
                   replacing: dict[str, str] | None = None) -> bytes:
    """The manifest document: the writer, the sorted file names and, per name, the sha256 of its bytes (a str
    value is a digest already computed; None: a file kept as it is, listed without a digest); `replacing`, the
    digests files have before a write that is about to replace them, also accepted meanwhile."""
    digests = {name: hashlib.sha256(data).hexdigest() if isinstance(data, bytes) else data
               for name, data in sorted(files.items())}
    document = {"written_by": written_by, "files": sorted(files),
                "sha256": {name: digest for name, digest in digests.items() if digest}}
    if replacing:
        document["replacing"] = dict(sorted(replacing.items()))
    return (json.dumps(document, indent=1) + "\n").encode()


def read_manifest(folder: Path, manifest: str) -> dict[str, str | None] | None:
    """Per file name the manifest of `folder` lists, its recorded sha256 (None: listed without one, by an older
    release); None when there is no manifest. A manifest that is a link, not a regular file, or not of this
    tool's shape is refused."""
    path = Path(folder) / manifest
    if not os.path.lexists(path):
        return None
    if os.path.islink(path):
        raise DataError("is a symbolic link: refusing to trust or replace it (remove the link)", path)
    if not stat.S_ISREG(os.lstat(path).st_mode):
        raise DataError("is not a regular file (a device, FIFO or socket): refusing to trust or replace it", path)
    document = read_json(path)
    files = document.get("files") if isinstance(document, dict) else None
    digests = document.get("sha256", {}) if isinstance(document, dict) else None
    if (not isinstance(files, list) or not all(isinstance(name, str) for name in files)
            or not isinstance(digests, dict) or not all(isinstance(d, str) for d in digests.values())):
        raise DataError('not a manifest of this program (expected {"files": [names], "sha256": {name: digest}})',
                        path)
    replacing = document.get("replacing", {})
    if not isinstance(replacing, dict) or not all(isinstance(d, str) for d in replacing.values()):
        raise DataError('not a manifest of this program ("replacing" must map names to digests)', path)
    return {name: (digests.get(name), replacing[name]) if name in replacing and digests.get(name) else
            digests.get(name) for name in files}


def _accepts(listed, digest: str | None) -> bool:
    """Whether a file of sha256 `digest` is one a listed entry accepts (a digest, or the two of a write under
    way)."""
    return digest is not None and (digest in listed if isinstance(listed, tuple) else digest == listed)


def owned_names(folder: Path, listed: dict[str, str | None] | None, earlier=()) -> set[str]:
    """The names in `folder` this tool may replace: listed with a digest that the file still has, or (listed
    without one, or no manifest at all) recognised by content as an older release's output (`earlier`)."""
    earlier = set(earlier)
    if listed is None:
        return earlier
    return {name for name, digest in listed.items()
            if (digest is not None and _accepts(digest, file_digest(Path(folder) / name)))
            or (digest is None and name in earlier)}


def changed_names(folder: Path, listed: dict[str, str | None] | None) -> list[str]:
    """Listed names whose file is there but no longer holds the bytes the manifest records."""
    return sorted(name for name, digest in (listed or {}).items()
                  if digest is not None and os.path.lexists(Path(folder) / name)
                  and not _accepts(digest, file_digest(Path(folder) / name)))
