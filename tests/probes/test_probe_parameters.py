"""Probes of parameter values: NaN or infinity anywhere, a value out of its range, one that scikit-learn refuses.
Each is refused in one line with exit code 2 when the parameters are resolved, before any data is read (the
loader fails the test if it is called), whatever the path: train, eval, eval --cv, --config FILE, --set, the
Python API; nothing is written under models/. Every shipped config and every method's defaults pass the check."""
from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest
from conftest import refused
from typer.testing import CliRunner

from baselines.cli import app
from baselines.core.errors import BaselinesError

runner = CliRunner()
CONFIGS = Path(__file__).resolve().parents[2] / "configs"


@pytest.fixture(autouse=True)
def no_data_read(monkeypatch):
    """Reading any split fails the test: a refused parameter must be refused first."""
    from baselines.runs import run, training

    def read(*args, **kwargs):
        raise AssertionError("data was read before the parameters were refused")

    monkeypatch.setattr(run, "load_split", read)
    monkeypatch.setattr(training, "load_split", read)


def invoke(*args):
    return runner.invoke(app, [str(arg) for arg in args])




def train(tmp_path, task: str, method: str, *settings: str):
    sets = [arg for setting in settings for arg in ("--set", setting)]
    return invoke("train", task, "--method", method, "--data-dir", tmp_path / "absent", "--models-dir",
                  tmp_path / "models", *sets)


@pytest.mark.parametrize("task, method, settings, words", [
    # NaN and infinity, alone and inside candidate grids
    ("caselawqa", "signals", ["head_weights=[.nan]"], ["head_weights must hold finite numbers only", "nan in [nan]"]),
    ("caselawqa", "signals", ["prior_weights=[0.1, .inf]"], ["prior_weights must hold finite numbers only", "inf"]),
    ("caselawqa", "linear", ["Cs=[.nan]"], ["Cs must hold finite numbers only", "nan"]),
    ("caselawqa", "signals", ["mention_l2=.inf"], ["mention_l2 must be a finite number, got inf"]),
    ("rr", "bilstm-crf", ["lr=nan"], ["lr must be a finite number, got nan"]),
    ("scalr", "learned", ["l2_grid=[.nan]"], ["l2_grid must hold finite numbers only"]),
    # what scikit-learn refuses, in its own words
    ("caselawqa", "linear", ["Cs=[0]"], ["Cs values must be a float in the range (0.0, inf)", "LinearSVC's C",
                                         "got 0.0 in [0.0]"]),
    ("caselawqa", "linear", ["classifier=logreg", "Cs=[1, 0]"], ["Cs values", "LogisticRegression's C", "got 0.0"]),
    ("caselawqa", "signals", ["window_Cs=[0]"], ["window_Cs values", "LinearSVC's C"]),
    ("caselawqa", "linear", ["class_weights=[auto]"], ["class_weights values", "'balanced'", "got 'auto'"]),
    ("caselawqa", "linear", ["n_features=4294967296"], ["n_features must be", "HashingVectorizer's n_features"]),
    ("scalr", "learned", ["hgb_iter_grid=[0]"], ["hgb_iter_grid values", "max_iter", "got 0 in [0]"]),
    ("scalr", "learned", ["hgb_iter_grid=[0.5]"], ["hgb_iter_grid must be a whole number, got 0.5"]),
    ("scalr", "learned", ["seed=4294967296"], ["seed must be", "random_state"]),
    ("rr", "tfidf-logreg", ["C=0"], ["C must be a float in the range (0.0, inf]", "LogisticRegression's C"]),
    ("rr", "tfidf-logreg", ["class_weight=auto"], ["class_weight must be", "got 'auto'"]),
    # counts and ranges of the method's own
    ("rr", "bilstm-crf", ["hidden=-1"], ["hidden must be at least 1, got -1"]),
    ("rr", "bilstm-crf", ["max_epochs=0"], ["max_epochs must be at least 1, got 0"]),
    ("segmenter", "trained", ["epochs=0"], ["epochs must be at least 1, got 0"]),
    ("scalr", "learned", ["inner_folds=1"], ["inner_folds must be at least 2, got 1"]),
    ("caselawqa", "linear", ["n_jobs=0"], ["n_jobs must be a whole number other than 0"]),
    ("caselawqa", "embed-linear", ["head_chunks=0"], ["head_chunks must be at least 1, got 0"]),
    ("rr", "bilstm-crf", ["dropout=1"], ["dropout must be at least 0 and below 1, got 1.0"]),
    ("rr", "bilstm-crf", ["lr_decay=0"], ["lr_decay must be greater than 0 and at most 1, got 0.0"]),
    ("segmenter", "trained", ["sample=-0.5"], ["sample must be greater than 0 and at most 1, got -0.5"]),
    ("caselawqa", "signals", ["confident_thresholds=[0.5, 2]"], ["confident_thresholds values must be at least 0 "
                                                                 "and at most 1, got 2.0"]),
    ("caselawqa", "linear", ["view_weights=[1, 1]"], ["view_weights must hold exactly 3 values"]),
    ("caselawqa", "linear", ["classifier=forest"], ["classifier must be one of 'svm', 'logreg', got 'forest'"]),
    ("caselawqa", "linear", ["backend=spark"], ["backend must be one of", "got 'spark'"]),
    ("rr", "bilstm-crf", ["encode_backend=gpu"], ["encode_backend must be one of", "got 'gpu'"]),
    ("scalr", "learned", ["features=[lexical, syntax]"], ["features values must be one of", "got 'syntax'"]),
])
def test_bad_values_are_refused_before_any_data_is_read(tmp_path, task, method, settings, words):
    refused(train(tmp_path, task, method, *settings), "command-line overrides: ", *words)
    assert not (tmp_path / "models").exists()


def test_every_path_checks_the_values_first(tmp_path):
    """eval of a saved-model method, eval --cv, a stateless method, --config FILE and the Python API alike."""
    import baselines

    absent = tmp_path / "absent"
    refused(invoke("eval", "caselawqa", "--method", "linear", "--data-dir", absent, "--set", "Cs=[0]"),
            "Cs values must be", "LinearSVC's C")  # not "no trained model": the value is refused first
    refused(invoke("eval", "caselawqa", "--method", "signals", "--cv", "3", "--data-dir", absent,
                   "--set", "head_weights=[.nan]"), "head_weights must hold finite numbers only")
    refused(invoke("eval", "scalr", "--method", "tfidf", "--data-dir", absent, "--set", "pick=middle"),
            "pick must be one of 'most', 'least', got 'middle'")
    config = tmp_path / "wide.yaml"
    config.write_text("Cs: [0.3, .inf]\n")
    refused(invoke("train", "caselawqa", "--method", "linear", "--data-dir", absent, "--config", config),
            f"{config}: Cs must hold finite numbers only")
    with pytest.raises(BaselinesError, match=r"^command-line overrides: head_weights must hold finite numbers only"):
        baselines.train("caselawqa", "signals", absent, overrides={"head_weights": [float("nan")]})
    with pytest.raises(BaselinesError, match=r"class_weights must hold finite numbers only, got nan"):
        baselines.train("caselawqa", "linear", absent, overrides={"class_weights": [None, {0: 1.0, 1: math.nan}]})
    assert not (tmp_path / "models").exists()


def test_good_values_keep_their_types():
    """Whole-number candidates stay whole numbers (scikit-learn refuses max_iter=50.0); -1 jobs is every core."""
    from baselines.core.config import parse_overrides, resolve_config
    from baselines.methods import method_class

    learned = resolve_config(method_class("scalr", "learned"), "scalr", "learned",
                             overrides=parse_overrides(["hgb_iter_grid=[50, 100]", "l2_grid=[0, 1]"]))
    assert learned["hgb_iter_grid"] == [50, 100] and all(type(x) is int for x in learned["hgb_iter_grid"])
    assert learned["l2_grid"] == [0.0, 1.0] and all(type(x) is float for x in learned["l2_grid"])
    linear = resolve_config(method_class("caselawqa", "linear"), "caselawqa", "linear",
                            overrides=parse_overrides(["classifier=logreg", "Cs=[0.5, 2]", "n_jobs=-1"]))
    assert linear["Cs"] == [0.5, 2.0] and linear["n_jobs"] == -1
    tagger = resolve_config(method_class("rr", "tfidf-logreg"), "rr", "tfidf-logreg",
                            overrides=parse_overrides(["max_features=null", "class_weight=balanced"]))
    assert tagger["max_features"] is None and tagger["class_weight"] == "balanced"


def test_every_shipped_config_and_every_default_passes_the_check():
    from baselines.core.config import resolve_config
    from baselines.core.params import check_params, field_defaults
    from baselines.methods import method_class
    from baselines.methods.configs import method_of_config
    from baselines.registry import method_entries

    for entry in method_entries():
        klass = method_class(entry.task, entry.name)
        check_params(klass, field_defaults(klass))
        klass(**resolve_config(klass, entry.task, entry.name))
    variants = sorted(CONFIGS.glob("*/*.yaml"))
    assert variants
    for path in variants:
        task = path.parent.name
        method = method_of_config(task, path.stem)
        klass = method_class(task, method)
        klass(**resolve_config(klass, task, method, path))


def test_declared_rules_name_real_parameters():
    """A rule for a misspelt name would check nothing: each class declares rules for its own fields only."""
    from baselines.methods import method_class
    from baselines.registry import method_entries

    for entry in (entry for entry in method_entries() if entry.target.startswith("baselines.")):  # ours, not a plugin's
        declaring = [base for base in method_class(entry.task, entry.name).__mro__ if "PARAMETER_RULES" in vars(base)]
        assert declaring or entry.name in ("majority", "random", "rule"), entry
        for base in declaring:
            assert set(base.PARAMETER_RULES) <= {f.name for f in dataclasses.fields(base)}, base


def test_a_bad_default_names_the_class_and_sklearn_rules_follow_another_parameter():
    from baselines.core.params import Each, OneOf, Range, Sklearn, check_params, field_defaults

    def estimator(params):
        return "sklearn.svm:LinearSVC" if params["kind"] == "svm" else "sklearn.linear_model:LogisticRegression"

    @dataclasses.dataclass
    class Toy:
        PARAMETER_RULES = {"rate": Range(0, 1), "kind": OneOf(("svm", "logreg")),
                           "Cs": Each(Sklearn(estimator, "C"))}
        rate: float = 2.0
        kind: str = "svm"
        Cs: tuple = (1.0,)
        sizes: tuple = (1, 2)

    with pytest.raises(BaselinesError, match=r"^the defaults of Toy: rate must be at least 0 and at most 1, got 2.0$"):
        check_params(Toy, field_defaults(Toy))
    with pytest.raises(BaselinesError, match=r"^given: sizes values must be at least 0, got -1 in \[1, -1\]$"):
        check_params(Toy, {"sizes": [1, -1]}, {"sizes": "given"})
    with pytest.raises(BaselinesError, match=r"Cs values must be .* as LogisticRegression's C, got 0"):
        check_params(Toy, {"kind": "logreg", "Cs": [0]})
    with pytest.raises(BaselinesError, match=r"Cs needs at least one value, got \[\]"):
        check_params(Toy, {"Cs": []})
