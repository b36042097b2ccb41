"""The public contract (baselines.testing) over every discovered benchmark and each of its methods: the same
checks a plugin's own tests run, with no test of this file naming a benchmark."""
import dataclasses

import pytest

from baselines.methods.floors import MajorityChooser
from baselines.methods.majority import ALL
from baselines.registry import DISCOVERED
from baselines.testing import ContractError, check_benchmark, check_method, no_fixture, parametrize_with_checks


@pytest.mark.parametrize("benchmark", [
    pytest.param(benchmark, id=benchmark.task.name, marks=[pytest.mark.skip(reason=no_fixture(benchmark))]
                 if benchmark.fixture is None else []) for benchmark in DISCOVERED.benchmarks])
def test_benchmark_contract(benchmark):
    check_benchmark(benchmark)


def test_every_built_in_benchmark_declares_a_fixture():
    assert all(benchmark.fixture is not None for benchmark in DISCOVERED.built_in)


def test_a_method_of_a_benchmark_without_fixture_fails_the_contract_in_one_line(tmp_path):
    scalr = next(b for b in DISCOVERED.benchmarks if b.task.name == "scalr")
    with pytest.raises(ContractError, match="declares no fixture"):
        check_method(dataclasses.replace(scalr, fixture=None), "majority", tmp_path)


@parametrize_with_checks()
def test_method_contract(benchmark, method, tmp_path):
    check_method(benchmark, method, tmp_path)


@dataclasses.dataclass
class Forgetful(MajorityChooser):
    """A majority chooser whose reloaded copy forgets what it learnt: the contract must catch it."""

    task, name = "scalr", "forgetful"

    def load_state(self, folder) -> None:
        self.counts_ = {ALL: {"4": 1}}  # the fixture's majority is "0"


@pytest.mark.parametrize("broken, message", [("Forgetful", "the reloaded method answers otherwise"),
                                             ("NotAMethod", "is not a dataclass subclass of baselines Method")])
def test_the_contract_can_fail(tmp_path, broken, message):
    scalr = next(b for b in DISCOVERED.benchmarks if b.task.name == "scalr")
    benchmark = dataclasses.replace(scalr, methods={**scalr.methods, "forgetful": f"test_contract:{broken}"})
    with pytest.raises(ContractError, match=message):
        check_benchmark(benchmark)
        check_method(benchmark, "forgetful", tmp_path)


class NotAMethod:
    pass
