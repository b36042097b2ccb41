"""The official LegalEval 2023 Task 6A files (rhetorical roles; the segmenter task reads the same files)."""
from __future__ import annotations

import urllib.request
from pathlib import Path

from baselines.core.download import require_network
from baselines.core.io import atomic_path

RR_BASE = "https://storage.googleapis.com/indianlegalbert/OPEN_SOURCED_FILES/Rhetorical_Role_Benchmark/Data/"
RR_FILES = ("train.json", "dev.json")


def download_rr(dest: Path) -> Path:
    """The official LegalEval 2023 Task 6A train and dev files into DEST/rr/legaleval2023/."""
    require_network("storage.googleapis.com", "LegalEval rhetorical roles")
    folder = Path(dest) / "rr" / "legaleval2023"
    for name in RR_FILES:
        with urllib.request.urlopen(RR_BASE + name, timeout=60) as response, atomic_path(folder / name) as tmp:
            tmp.write_bytes(response.read())
    return folder
