"""CaselawQA's official parquet files (Lawma's datasets on Hugging Face)."""
from __future__ import annotations

from pathlib import Path

from baselines.core.download import HF_HOST, is_offline, require_network
from baselines.core.errors import BaselinesError

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
            if is_offline(exc):
                raise _caselawqa_offline(f"{type(exc).__name__}: {str(exc)[:160]}") from None
            raise BaselinesError(f"downloading {CASELAWQA_REPOS[name]} failed: {type(exc).__name__}: "
                                 f"{str(exc)[:200]}") from None
    return root
