"""The public contract of a benchmark and its methods, for a plugin's own tests as for this package's.

    from baselines.testing import check_benchmark, check_method, parametrize_with_checks
    from my_benchmark import BENCHMARK

    def test_benchmark():
        check_benchmark(BENCHMARK)

    @parametrize_with_checks([BENCHMARK])
    def test_method(benchmark, method, tmp_path):
        check_method(benchmark, method, tmp_path)

`check_benchmark` checks the declaration: a usable task record, methods that import and are estimators, a
fixture (`Benchmark.fixture`, a few records of the benchmark's own shape) that loads, gives references and is
read through the task's Contents. `check_method` runs one method over that fixture as every command does: built
from its parameters only (with `Benchmark.quick`), fitted (fit returns the method, fitted state ends in "_"),
predicting a row for every reference, scored by the one scoring path with every declared metric, saved and
reloaded into the same parameters and the same answers. Nothing here names a benchmark.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from baselines.core.errors import BaselinesError
from baselines.core.lazy import import_object
from baselines.registry import Benchmark, ItemsFromPredictions
from baselines.registry.task import task_problem


class ContractError(AssertionError):
    """A benchmark or a method breaks the contract (an AssertionError, so pytest shows it as a failed check)."""


def _require(condition: bool, benchmark: Benchmark, what: str) -> None:
    if not condition:
        raise ContractError(f"benchmark {benchmark.task.name!r}: {what}")


def check_benchmark(benchmark: Benchmark) -> None:
    """The declaration of `benchmark` keeps the contract (ContractError says where it does not)."""
    from baselines.methods.base import Method

    _require(isinstance(benchmark, Benchmark), benchmark, "is not a baselines.registry.Benchmark")
    task = benchmark.task
    _require(task_problem(task) is None, benchmark, str(task_problem(task)))
    for name, target in benchmark.methods.items():
        klass = import_object(target)
        _require(isinstance(klass, type) and issubclass(klass, Method) and dataclasses.is_dataclass(klass),
                 benchmark, f"method {name!r} ({target}) is not a dataclass subclass of baselines Method")
        unknown = set(benchmark.quick.get(name, {})) - {f.name for f in dataclasses.fields(klass)}
        _require(not unknown, benchmark, f"quick settings of {name!r} name no parameter: {', '.join(sorted(unknown))}")
    _require(benchmark.fixture is not None, benchmark, "declares no fixture (a few records for the contract)")
    records = benchmark.fixture()
    _require(len(records) > 0, benchmark, "its fixture gives no records")
    references = task.references(records)
    _require(len(references) > 0 and len({r.id for r in references}) == len(references), benchmark,
             "the references of its fixture are empty or repeat an id")
    _check_contents(benchmark, records)


def _check_contents(benchmark: Benchmark, records: list) -> None:
    """The task's Contents reads every fixture record: unit texts, a document key, one identity per record."""
    from baselines.registry import Contents

    contents = benchmark.task.capability(Contents)
    if contents is None:
        return  # a task without training split may go without (task_problem requires it of the others)
    for record in records:
        units, key = list(contents.units(record)), contents.document(record)
        _require(all(isinstance(text, str) for text in units) and isinstance(key, str), benchmark,
                 f"its Contents does not read record {record.id!r} (units: a list of str, document: a str)")
    identities = contents.identities(records)
    _require(len(identities) == len(records) and all(isinstance(text, str) for text in identities), benchmark,
             "its Contents.identities gives no text per record")


def check_method(benchmark: Benchmark, name: str, folder: Path) -> None:
    """Method `name` of `benchmark` keeps the estimator contract over the benchmark's fixture; `folder`, an empty
    folder for its saved model (pytest's tmp_path)."""
    from baselines.evaluation.scoring import score_predictions
    from baselines.methods.base import Method

    _require(benchmark.fixture is not None, benchmark, "declares no fixture (a few records for the contract)")
    task, klass = benchmark.task, import_object(benchmark.methods[name])
    method = klass(**benchmark.quick.get(name, {}))
    _require(not [a for a in vars(method) if a.endswith("_")], benchmark, f"{name}: fitted state before fit")
    records = benchmark.fixture()
    fitted = method.fit(records, None) if method.needs_fit else method
    _require(fitted is method, benchmark, f"{name}: fit does not return the method itself")
    predictions = method.predict(records)
    references = task.references(records)
    _require(sorted(str(row["id"]) for row in predictions) == sorted(r.id for r in references), benchmark,
             f"{name}: predict gives no row per reference id (or rows of other ids)")
    result, _ = score_predictions(task, predictions, references, replicates=50)
    _require(result.coverage == 1.0 and result.missing == 0, benchmark, f"{name}: some predictions are not scored")
    _require(set(task.metrics) <= set(result.metrics), benchmark,
             f"{name}: scoring gives no {', '.join(sorted(set(task.metrics) - set(result.metrics)))}")
    if task.capability(ItemsFromPredictions) is None:  # otherwise scored on items made from the predictions
        _require(result.n == len(references), benchmark, f"{name}: scored on {result.n} of {len(references)} items")
    _check_round_trip(benchmark, name, method, records, predictions, Path(folder) / "model", Method)


def _check_round_trip(benchmark, name, method, records, predictions, folder: Path, base) -> None:
    """Saved and loaded back: config.json with the parameters and versions, the same class, the same answers."""
    method.save(folder)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    _require(config.get("params") == _as_json(method.get_params()) and "versions" in config, benchmark,
             f"{name}: config.json does not hold its parameters and library versions")
    _require(config.get("task") == benchmark.task.name and config.get("method") == name, benchmark,
             f"{name}: config.json names task {config.get('task')!r} and method {config.get('method')!r}")
    reloaded = base.load(folder)
    _require(type(reloaded) is type(method) and _as_json(reloaded.get_params()) == _as_json(method.get_params()),
             benchmark, f"{name}: the reloaded method has another class or other parameters")
    again = reloaded.predict(records)
    _require([_answer(row) for row in again] == [_answer(row) for row in predictions], benchmark,
             f"{name}: the reloaded method answers otherwise")


def _answer(row: dict):
    """What a prediction row answers: its id and its label (or, for a segmenter, its spans)."""
    return row["id"], row.get("prediction", row.get("spans"))


def _as_json(value):
    return json.loads(json.dumps(value))


def contract_cases(benchmarks: list[Benchmark] | None = None) -> list[tuple[Benchmark, str]]:
    """(benchmark, method name) for every method of `benchmarks` (None: every discovered benchmark)."""
    if benchmarks is None:
        from baselines.registry import DISCOVERED

        benchmarks = DISCOVERED.benchmarks
    return [(benchmark, name) for benchmark in benchmarks for name in benchmark.methods]


def parametrize_with_checks(benchmarks: list[Benchmark] | None = None):
    """A pytest parametrisation over (benchmark, method) of `benchmarks` (None: every discovered one), with ids
    "task/method": decorate a test taking `benchmark` and `method` that calls check_method. Over every discovered
    benchmark (a host's own tests), a plugin that declares no fixture is skipped, saying so: its own tests are
    where its contract is checked, with the fixture it then must declare."""
    import pytest

    cases = contract_cases(benchmarks)
    if not cases:
        raise BaselinesError("no benchmark methods to check")
    params = [pytest.param(benchmark, name, id=f"{benchmark.task.name}/{name}",
                           marks=[pytest.mark.skip(reason=no_fixture(benchmark))] if benchmarks is None and
                           benchmark.fixture is None else []) for benchmark, name in cases]
    return pytest.mark.parametrize("benchmark, method", params)


def no_fixture(benchmark: Benchmark) -> str:
    return (f"the benchmark {benchmark.task.name!r} declares no fixture: a host cannot run its contract (its own "
            "tests call check_benchmark, which requires one)")
