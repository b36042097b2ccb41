"""SCALR's official files: LegalBench's scalr split from the Hugging Face dataset."""
from __future__ import annotations

from pathlib import Path

from baselines.core.download import HF_HOST, require_network
from baselines.core.errors import BaselinesError
from baselines.core.io import atomic_path

LEGALBENCH_REPO = "nguha/legalbench"


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


def _parquet_to_jsonl(source: Path, target: Path) -> None:
    import pyarrow.parquet as pq

    from baselines.core.io import write_jsonl

    rows = pq.read_table(source).to_pylist()
    write_jsonl(target, ({key: (str(value) if value is not None else None) for key, value in row.items()}
                         for row in rows))


def _copy(source: Path, target: Path) -> None:
    with atomic_path(target) as tmp:
        tmp.write_bytes(source.read_bytes())
