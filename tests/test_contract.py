"""The public contract (baselines.testing) over every discovered benchmark and each of its methods: the same
checks a plugin's own tests run, with no test of this file naming a benchmark."""
import dataclasses

import pytest

from baselines.methods.floors import MajorityChooser
from baselines.methods.majority import ALL
from baselines.registry import DISCOVERED
from baselines.testing import ContractError, check_benchmark, check_method, parametrize_with_checks


@pytest.mark.parametrize("benchmark", DISCOVERED.benchmarks, ids=lambda benchmark: benchmark.task.name)
def test_benchmark_contract(benchmark):
    check_benchmark(benchmark)


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
