"""A CaselawQA training killed after its k-th task resumes with --resume to the model an uninterrupted run saves."""
from __future__ import annotations

import numpy as np
import pytest
from caselawqa_fixtures import write_normalized

from baselines import api
from baselines.core.errors import BaselinesError
from baselines.methods import checkpoint
from baselines.methods.base import Method
from baselines.registry import get_task
from baselines.runs import run
from baselines.runs import training
from baselines.tasks.caselawqa import linear

SMALL = {"n_features": 4096, "min_df": 1, "k_features": 500, "Cs": [0.3, 1.0], "n_jobs": 1, "min_train": 10,
         "backend": "sequential", "cache": False}


class Killed(Exception):
    """Stands for the kill of a training, right after the k-th task was kept."""


def _kill_after(monkeypatch, k: int) -> None:
    save, kept = checkpoint.Stage.save, []

    def save_then_die(stage, index, result):
        save(stage, index, result)
        kept.append(index)
        if len(kept) == k:
            raise Killed

    monkeypatch.setattr(checkpoint.Stage, "save", save_then_die)


def _count_fits(monkeypatch) -> list:
    fit, fitted = linear.fit_head_scored, []

    def counted(task, *args):
        fitted.append(task)
        return fit(task, *args)

    monkeypatch.setattr(linear, "fit_head_scored", counted)
    return fitted


def _train(root, name, **options):
    return training.train("caselawqa", "linear", root, overrides=options.pop("overrides", SMALL), name=name,
                          models_dir=root / "models", **options)


def test_a_killed_training_resumes_to_the_uninterrupted_model(tmp_path, monkeypatch):
    root = write_normalized(tmp_path)
    whole = _train(root, "whole")
    with monkeypatch.context() as patch:
        _kill_after(patch, 2)
        with pytest.raises(Killed):
            _train(root, "cut")
    cut = root / "models" / "caselawqa" / "cut"
    assert checkpoint.is_partial(cut) and not (cut / "config.json").exists()
    assert len(list((cut / checkpoint.FOLDER).glob("*.json"))) == 2
    with pytest.raises(BaselinesError, match="unfinished training.*--resume"):
        Method.load(cut)
    with pytest.raises(BaselinesError, match="unfinished training.*--resume"):
        api.evaluate("caselawqa", "linear", root, name="cut", models_dir=root / "models", results_dir=root / "out")
    fitted = _count_fits(monkeypatch)
    assert _train(root, "cut", resume=True, overrides={**SMALL, "backend": "threading"}) == cut  # elsewhere
    assert len(fitted) == 2  # 4 tasks, 2 kept: only the other 2 are fitted again
    assert not checkpoint.is_partial(cut) and not (cut / checkpoint.FOLDER).exists()
    _assert_same_model(root, whole, cut)


def _assert_same_model(root, whole, cut) -> None:
    assert (whole / "state.json").read_bytes() == (cut / "state.json").read_bytes()
    assert (whole / "heads.json").read_bytes() == (cut / "heads.json").read_bytes()
    with np.load(whole / "state.npz") as a, np.load(cut / "state.npz") as b:
        assert sorted(a.files) == sorted(b.files)
        for key in a.files:
            assert a[key].dtype == b[key].dtype and np.array_equal(a[key], b[key])
    test = run.load_split(get_task("caselawqa"), root, "test")
    assert Method.load(whole).predict(test) == Method.load(cut).predict(test)


def test_a_leftover_is_discarded_without_resume_and_another_training_is_not_resumed(tmp_path, monkeypatch):
    root = write_normalized(tmp_path)
    earlier = _train(root, "cut", overrides={**SMALL, "Cs": [0.3]})
    with monkeypatch.context() as patch:
        _kill_after(patch, 1)
        with pytest.raises(Killed):
            _train(root, "cut")
    assert not checkpoint.is_partial(earlier) and (earlier / checkpoint.MARKER).is_file()
    assert Method.load(earlier).Cs == [0.3]  # the model there stays whole until the new one replaces it
    with pytest.raises(BaselinesError, match="checkpoint of another training"):
        _train(root, "cut", overrides={**SMALL, "Cs": [1.0]}, resume=True)
    fitted = _count_fits(monkeypatch)
    folder = _train(root, "cut")
    assert len(fitted) == 4 and Method.load(folder).Cs == [0.3, 1.0] and not (folder / checkpoint.MARKER).exists()


def _count_saves(patch) -> list:
    save, saved = checkpoint.Stage.save, []

    def counted(stage, index, result):
        saved.append(stage.desc)
        save(stage, index, result)

    patch.setattr(checkpoint.Stage, "save", counted)
    return saved


def test_stacked_killed_in_a_later_stage_resumes_to_the_same_predictions(tmp_path, monkeypatch):
    from test_caselawqa_stacking import SMALL as STACKED, _write_toy

    root = _write_toy(tmp_path / "data")
    with monkeypatch.context() as patch:  # the uninterrupted run, its jobs counted
        saved = _count_saves(patch)
        whole = training.train("caselawqa", "stacked", root, overrides=STACKED, name="whole",
                               models_dir=root / "models")
    assert len(set(saved)) >= 3  # heads, window heads, the readers' heads, the cross-fitted sources ...
    with monkeypatch.context() as patch:
        _kill_after(patch, len(saved) - 2)  # late: after the earlier stages
        with pytest.raises(Killed):
            training.train("caselawqa", "stacked", root, overrides=STACKED, name="cut", models_dir=root / "models")
    with monkeypatch.context() as patch:
        again = _count_saves(patch)
        cut = training.train("caselawqa", "stacked", root, overrides=STACKED, name="cut", models_dir=root / "models",
                             resume=True)
    assert len(again) == 2
    test = run.load_split(get_task("caselawqa"), root, "test")
    assert Method.load(whole).predict(test) == Method.load(cut).predict(test)
    assert (whole / "signals.json").read_bytes() == (cut / "signals.json").read_bytes()
