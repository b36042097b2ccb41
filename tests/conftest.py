"""Shared fixtures: the real benchmark data when present, and isolated output/cache folders."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _real_data_dir() -> Path | None:
    for candidate in (os.environ.get("BASELINES_DATA"), REPO.parent / "shared" / "data"):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


REAL_DATA = _real_data_dir()


@pytest.fixture
def data_dir() -> Path:
    """The real benchmark data folder; tests using it are skipped where it does not exist."""
    if REAL_DATA is None:
        pytest.skip("benchmark data not found (set BASELINES_DATA)")
    return REAL_DATA


@pytest.fixture(autouse=True)
def isolated_outputs(tmp_path, monkeypatch):
    """Every test writes models and results under its own tmp folder; encodings share one session cache."""
    monkeypatch.setenv("BASELINES_MODELS", str(tmp_path / "models"))
    monkeypatch.setenv("BASELINES_RESULTS", str(tmp_path / "results"))
    if "BASELINES_CACHE" not in os.environ:
        monkeypatch.setenv("BASELINES_CACHE", str(Path.home() / ".cache" / "legal-baselines"))
    yield


def run_results(task: str, system: str) -> dict:
    """The results.json of the only run of `system` (results/<task>/<system>/<run>/results.json)."""
    import json

    from baselines.core.paths import results_root

    found = sorted((results_root() / task / system).glob("*/results.json"))
    assert len(found) == 1, found
    return json.loads(found[0].read_text())
