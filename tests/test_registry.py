"""The method registry as the one source of names: aliases, lazy imports, suggestions, configs, old folders."""
import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from baselines.core.config import resolve_config
from baselines.methods.configs import config_variants
from baselines.core.errors import BaselinesError
from baselines.core.lazy import import_object, lazy_function
from baselines.methods import (method_table, canonical_name, method_aliases, method_class, method_names,
                               saved_model_folder)
from baselines.methods.base import Method
from baselines.registry import TASKS, Subtasks, get_task, method_entries

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


@pytest.mark.parametrize("entry", method_entries(), ids=lambda e: f"{e.task}:{e.name}")
def test_each_class_takes_its_task_and_name_from_its_entry(entry):
    klass = method_class(entry.task, entry.name)
    assert (klass.task, klass.name) == (entry.task, entry.name)
    assert method_table()[entry.task][entry.name] == entry.target
    for alias in entry.aliases:
        assert method_class(entry.task, alias) is klass and canonical_name(entry.task, alias) == entry.name


def test_names_are_kebab_case_and_old_names_stay_aliases():
    for entry in method_entries():
        assert "_" not in entry.name, entry
    assert method_aliases("rr", "bilstm-crf") == ("bilstm_crf",)
    assert method_aliases("rr", "tfidf-logreg") == ("tfidf_logreg",)
    assert get_task("rr").default_method == "bilstm-crf"
    assert method_aliases("rr", "bilstm-crf-ft") == ("bilstm_crf_ft",)  # the spelling its issue used
    assert method_names("rr") == ["bilstm-crf", "bilstm-crf-ft", "bilstm-crf-ft-ensemble", "majority", "tfidf-logreg"]  # aliases are not listed twice
    for task in TASKS.values():
        assert canonical_name(task.name, task.default_method) == task.default_method


def test_an_unregistered_subclass_keeps_its_own_name():
    @dataclasses.dataclass
    class Local(Method):
        name = "local"

    assert Local.name == "local" and Local.task == ""


def test_importing_the_registry_imports_no_method_module():
    code = ("import sys, baselines.methods, baselines.registry; "
            "print([m for m in sys.modules if m.startswith('baselines.methods.') or m.startswith('baselines.tasks.')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_lazy_objects():
    assert import_object("baselines.tasks.caselawqa.data:court_of")("songer_x") == "songer"
    assert lazy_function("baselines.tasks.caselawqa.data:court_of")("sc_issuearea") == "sc"
    assert get_task("caselawqa").capability(Subtasks).supergroup("songer_geniss") == "songer"
    with pytest.raises(ValueError, match="module:attribute"):
        import_object("baselines.tasks.caselawqa.data.court_of")


@pytest.mark.parametrize("call, suggestion", [
    (lambda: method_class("rr", "bilstm"), "did you mean 'bilstm-crf' or 'bilstm-crf-ft'?"),
    (lambda: method_class("rr", "TFIDF_LOGREG "), "did you mean 'tfidf-logreg'?"),
    (lambda: method_class("caselawqa", "embed_linear2"), "did you mean 'embed-linear' or 'linear'?"),
    (lambda: get_task("scalar"), "did you mean 'scalr'?"),
])
def test_unknown_names_suggest_the_closest(call, suggestion):
    with pytest.raises(BaselinesError, match="valid: ") as error:
        call()
    assert suggestion in str(error.value)


def test_an_unrelated_name_gets_no_suggestion():
    with pytest.raises(BaselinesError) as error:
        method_class("scalr", "nosuch")
    assert str(error.value) == "unknown method for task 'scalr' 'nosuch'; valid: embed, learned, majority, random, tfidf"


def test_a_folder_saved_under_either_spelling_is_found(tmp_path):
    old = tmp_path / "rr" / "bilstm_crf"
    old.mkdir(parents=True)
    assert saved_model_folder(tmp_path, "rr", "bilstm-crf") == old
    assert saved_model_folder(tmp_path, "rr", "bilstm_crf") == old
    (tmp_path / "rr" / "tfidf-logreg-small").mkdir()
    assert saved_model_folder(tmp_path, "rr", "tfidf_logreg-small") == tmp_path / "rr" / "tfidf-logreg-small"
    assert saved_model_folder(tmp_path, "rr", "majority") == tmp_path / "rr" / "majority"  # none exists: the asked one
    new = tmp_path / "rr" / "bilstm-crf"
    new.mkdir()
    assert saved_model_folder(tmp_path, "rr", "bilstm-crf") == new
    assert saved_model_folder(tmp_path, "rr", "bilstm_crf") == old


def test_a_model_saved_under_the_old_name_loads(tmp_path):
    """A folder as the earlier release wrote it: old method name, old one-group majority state."""
    folder = tmp_path / "rr" / "majority"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"task": "rr", "method": "majority", "params": {},
                                                    "class": "baselines.tasks.rr.simple:RRMajority"}))
    (folder / "state.json").write_text(json.dumps({"labels": ["FAC", "RPC"], "answer": "FAC",
                                                   "counts": {"FAC": 3, "RPC": 1}}))
    method = Method.load(saved_model_folder(tmp_path, "rr", "majority"))
    assert method.answer() == "FAC" and method.labels_ == ("FAC", "RPC")
    (folder / "config.json").write_text(json.dumps({"params": {}, "class": "baselines.methods.gone:Nothing"}))
    with pytest.raises(BaselinesError, match="names the class 'baselines.methods.gone:Nothing'"):
        Method.load(folder)


def test_configs_hold_only_named_variants_that_differ_from_the_defaults():
    for path in sorted(CONFIGS.glob("*/*.yaml")):
        task = path.parent.name
        method = next(m for m in sorted(method_names(task), key=len, reverse=True) if path.stem.startswith(m + "-"))
        klass = method_class(task, method)
        values = yaml.safe_load(path.read_text())
        defaults = klass().get_params()
        for key, value in values.items():
            assert key in defaults, (path, key)
            assert json.dumps(value) != json.dumps(defaults[key]), f"{path}: {key} repeats the default"
            assert not (isinstance(value, str) and value.startswith(("/", "~"))), f"{path}: a machine's folder"
        assert path in config_variants(task, method)
        resolved = resolve_config(klass, task, method, path.stem)
        assert {k: resolved[k] for k in values} == values


def test_without_a_config_file_the_dataclass_defaults_apply():
    klass = method_class("rr", "bilstm_crf")
    assert resolve_config(klass, "rr", "bilstm_crf") == klass().get_params()
    assert resolve_config(klass, "rr", "bilstm-crf", CONFIGS / "rr" / "bilstm-crf-wide.yaml")["hidden"] == 256
    with pytest.raises(BaselinesError, match="did you mean 'bilstm-crf-wide'"):
        resolve_config(klass, "rr", "bilstm-crf", "bilstm-crf-wid")


def test_set_values_are_checked_against_the_parameter_types():
    """YAML reads '2e-5' as text: it becomes the number meant; a word for a number fails before any work."""
    from baselines.core.config import parse_overrides
    from baselines.core.errors import BaselinesError
    from baselines.runs.run import build_method

    method = build_method("rr", "bilstm-crf-ft", overrides=parse_overrides(["encoder_lr=2e-5", "tune_epochs=3.0"]))
    assert method.encoder_lr == 2e-5 and method.tune_epochs == 3 and isinstance(method.tune_epochs, int)
    for pair, message in (("max_epochs=two", "whole number"), ("surface_features=1", "true or false"),
                          ("lr=fast", "must be a number")):
        with pytest.raises(BaselinesError, match=message):
            build_method("rr", "bilstm-crf", overrides=parse_overrides([pair]))


def test_model_folders_of_earlier_releases_name_their_former_modules(tmp_path):
    """A config.json or a pickle written before the benchmarks had folders of their own still loads."""
    import joblib

    from baselines.methods.base import saved_class
    from baselines.methods.plain_state import load_state_file
    from baselines.tasks.caselawqa.heads import Head
    from baselines.tasks.rr.simple import RRMajority

    assert saved_class("baselines.methods.rr_simple:RRMajority", tmp_path) is RRMajority
    head = Head.__new__(Head)
    joblib.dump({"heads": {"t": head}}, tmp_path / "state.joblib", protocol=0)
    payload = (tmp_path / "state.joblib").read_bytes()
    (tmp_path / "state.joblib").write_bytes(payload.replace(b"baselines.tasks.caselawqa.heads",
                                                            b"baselines.methods.caselawqa_heads"))
    assert b"baselines.methods.caselawqa_heads" in (tmp_path / "state.joblib").read_bytes()
    assert isinstance(load_state_file(tmp_path, "state", "state.joblib")["heads"]["t"], Head)
