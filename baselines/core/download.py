"""Downloads of official benchmark files, for machines with network access.

Every download first checks that the host answers (a few seconds at most), so an offline machine
gets one clear error saying how to use local files instead of minutes of retries.
"""
from __future__ import annotations

import os
import socket
import urllib.request
from pathlib import Path

from baselines.core.errors import BaselinesError
from baselines.core.io import atomic_path
from baselines.core.paths import data_location

HF_HOST = "huggingface.co"
LEGALBENCH_REPO = "nguha/legalbench"
RR_BASE = "https://storage.googleapis.com/indianlegalbert/OPEN_SOURCED_FILES/Rhetorical_Role_Benchmark/Data/"
RR_FILES = ("train.json", "dev.json")


def offline_error(what: str, host: str, reason: str) -> BaselinesError:
    return BaselinesError(
        f"cannot download {what}: {host} is unreachable ({reason}). Download the files on a machine with "
        f"network access (or copy them), put them under DIR as described in README.md, and pass --data-dir DIR "
        f"(or set BASELINES_DATA=DIR; without either, DIR is {data_location(None)[0]})"
    )


def require_network(host: str, what: str, timeout: float = 5.0) -> None:
    """Fail at once, with instructions, when `host` cannot be resolved or reached (or HF_HUB_OFFLINE is set)."""
    if host == HF_HOST and os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        raise offline_error(what, host, "HF_HUB_OFFLINE is set")
    try:
        with socket.create_connection((host, 443), timeout=timeout):
            pass
    except OSError as exc:
        raise offline_error(what, host, exc.strerror or type(exc).__name__) from None


def download_scalr(dest: Path) -> Path:
    """LegalBench's scalr split files from the Hugging Face dataset into DEST/scalr/ (TSV or JSONL)."""
    require_network(HF_HOST, "SCALR (LegalBench)")
    from huggingface_hub import HfApi, hf_hub_download

    files = [f for f in HfApi().list_repo_files(LEGALBENCH_REPO, repo_type="dataset")
             if "/scalr/" in f"/{f}" and f.endswith((".tsv", ".parquet", ".jsonl"))]
    if not files:
        raise BaselinesError(f"no scalr files found in the Hugging Face dataset {LEGALBENCH_REPO}")
    folder = Path(dest) / "scalr"
    folder.mkdir(parents=True, exist_ok=True)
    for name in files:
        local = Path(hf_hub_download(LEGALBENCH_REPO, name, repo_type="dataset"))
        split = "test" if "test" in Path(name).name else "train"
        if local.suffix == ".parquet":
            _parquet_to_jsonl(local, folder / f"{split}.jsonl")
        else:
            _copy(local, folder / f"{split}{local.suffix}")
    return folder


def download_rr(dest: Path) -> Path:
    """The official LegalEval 2023 Task 6A train and dev files into DEST/rr/legaleval2023/."""
    require_network("storage.googleapis.com", "LegalEval rhetorical roles")
    folder = Path(dest) / "rr" / "legaleval2023"
    for name in RR_FILES:
        with urllib.request.urlopen(RR_BASE + name, timeout=60) as response, atomic_path(folder / name) as tmp:
            tmp.write_bytes(response.read())
    return folder


def _parquet_to_jsonl(source: Path, target: Path) -> None:
    import pyarrow.parquet as pq

    from baselines.core.io import write_jsonl

    rows = pq.read_table(source).to_pylist()
    write_jsonl(target, ({key: (str(value) if value is not None else None) for key, value in row.items()}
                         for row in rows))


def _copy(source: Path, target: Path) -> None:
    with atomic_path(target) as tmp:
        tmp.write_bytes(source.read_bytes())


CASELAWQA_REPOS = {"lawma-tasks": "ricdomolm/lawma-tasks", "caselawqa-8k": "ricdomolm/caselawqa-8k"}


def _caselawqa_offline(reason: str) -> BaselinesError:
    return BaselinesError(
        f"cannot download CaselawQA from Hugging Face ({reason}). On a machine with network access get "
        "the datasets ricdomolm/lawma-tasks and/or ricdomolm/caselawqa-8k, copy them to DIR/caselawqa/lawma-tasks/ "
        "and DIR/caselawqa/caselawqa-8k/ (or a normalized layout to DIR/caselawqa/), and pass --data-dir DIR")


def download_caselawqa(dest: Path, datasets: tuple[str, ...] = ("lawma-tasks", "caselawqa-8k")) -> Path:
    """The official CaselawQA parquet files into DEST/caselawqa/<dataset>/, failing fast when offline."""
    unknown = [name for name in datasets if name not in CASELAWQA_REPOS]
    if unknown:
        raise BaselinesError(f"unknown CaselawQA dataset(s) {', '.join(unknown)}; valid: {', '.join(CASELAWQA_REPOS)}")
    require_network(HF_HOST, "CaselawQA (Lawma)")
    from huggingface_hub import snapshot_download

    root = Path(dest) / "caselawqa"
    for name in datasets:
        try:
            snapshot_download(CASELAWQA_REPOS[name], repo_type="dataset", local_dir=root / name,
                              allow_patterns=["*.parquet", "*.md", "*.json"], etag_timeout=10)
        except Exception as exc:  # network, DNS, offline mode, hub errors all end here
            if _is_offline(exc):
                raise _caselawqa_offline(f"{type(exc).__name__}: {str(exc)[:160]}") from None
            raise BaselinesError(f"downloading {CASELAWQA_REPOS[name]} failed: {type(exc).__name__}: {str(exc)[:200]}") from None
    return root


def _is_offline(exc: Exception) -> bool:
    """True for connection failures and the hub's offline-mode errors (anywhere in the cause chain)."""
    names = ("ConnectionError", "ConnectError", "Timeout", "OfflineModeIsEnabled", "LocalEntryNotFoundError",
             "NameResolutionError", "MaxRetryError", "gaierror")
    seen = exc
    while seen is not None:
        if isinstance(seen, (ConnectionError, TimeoutError, OSError)) or any(n in type(seen).__name__ for n in names):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
