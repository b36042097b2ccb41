"""CaselawQA's per-task heads fit on a Dask cluster of two worker processes give the model a local run saves."""
from __future__ import annotations

import numpy as np
from caselawqa_fixtures import dask_processes, write_normalized

from baselines.methods.base import Method
from baselines.registry import get_task
from baselines.runs import run
from baselines.runs import training

SMALL = {"n_features": 4096, "min_df": 1, "k_features": 500, "Cs": [0.3, 1.0], "n_jobs": 1, "min_train": 10,
         "cache": False}


def test_two_dask_workers_fit_the_model_a_local_run_fits(tmp_path):
    root = write_normalized(tmp_path)
    models = root / "models"
    local = training.train("caselawqa", "linear", root, overrides={**SMALL, "backend": "sequential"}, name="local",
                           models_dir=models)
    with dask_processes(2) as address:
        cluster = training.train("caselawqa", "linear", root, name="dask", models_dir=models,
                                 overrides={**SMALL, "backend": "dask", "scheduler": address})
    assert (local / "heads.json").read_bytes() == (cluster / "heads.json").read_bytes()
    with np.load(local / "state.npz") as a, np.load(cluster / "state.npz") as b:
        assert sorted(a.files) == sorted(b.files)
        assert all(np.array_equal(a[key], b[key]) for key in a.files)
    test = run.load_split(get_task("caselawqa"), root, "test")
    assert Method.load(local).predict(test) == Method.load(cluster).predict(test)
