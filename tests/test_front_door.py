"""One declaration per run request: `baselines eval` / `baselines.evaluate` and `baselines score` /
`baselines.score` pass their options to baselines.runs.requests under its own parameter names and defaults."""
import inspect

import pytest
import typer

from baselines import api
from baselines.cli import commands
from baselines.runs import requests

HOW = {"download", "quiet", "prices"}  # how a run is carried out or shown (--prices: the dollars printed): not the request
CLI_SPELLING = {"set_": "overrides", "fmt": "format"}  # a CLI parameter whose Python keyword differs
DEPRECATED = {"tasks_alias", "kind"}  # hidden earlier option names, warned about (see DEPRECATIONS)


def parameters(function) -> dict:
    return dict(inspect.signature(function).parameters)


def cli_default(parameter):
    default = parameter.default
    return default.default if isinstance(default, (typer.models.OptionInfo, typer.models.ArgumentInfo)) else default


@pytest.mark.parametrize("command, function, builder", [
    (commands.eval_command, api.evaluate, requests.eval_request),
    (commands.score_command, api.score, requests.score_request)])
def test_the_cli_and_the_api_share_one_declaration_of_the_request(command, function, builder):
    declared = {name: p for name, p in parameters(builder).items() if name != "cli"}
    python = parameters(inspect.unwrap(function))
    cli = {CLI_SPELLING.get(name, name): p for name, p in parameters(command).items() if name not in DEPRECATED}
    assert set(python) - HOW == set(declared), set(python) ^ set(declared)
    assert set(cli) - HOW == set(declared), set(cli) ^ set(declared)
    for name, parameter in declared.items():
        if parameter.default is inspect.Parameter.empty or name == "overrides":  # --set: a list of k=v
            continue
        assert python[name].default == parameter.default, name
        assert cli_default(cli[name]) == parameter.default, name


def test_the_third_entry_point_is_gone():
    from baselines.runs import run

    assert not hasattr(run, "evaluate") and not hasattr(run, "score")


def test_every_format_is_one_entry_of_one_table(tmp_path):
    """The generic formats and each task's own are entries of one kind; auto picks among the generic ones."""
    import json

    from baselines.core.errors import DataError
    from baselines.evaluation.formats import FORMATS, GENERIC, chosen_format
    from baselines.registry import TASKS, ExternalFormat

    assert FORMATS == ("auto", *GENERIC) and all(isinstance(entry, ExternalFormat) for entry in GENERIC.values())
    assert all(isinstance(entry, ExternalFormat) for task in TASKS.values() for entry in task.formats.values())
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"id": "1", "raw": "A"}) + "\n")
    assert chosen_format(path)[0] == "jsonl"
    own = {"mine": ExternalFormat(read=lambda *a, **k: ([], None, "x"), help="a format of a task's own")}
    assert chosen_format(path, "mine", own)[1] is own["mine"]
    with pytest.raises(DataError, match=r"unknown --format 'mine'; valid: auto, jsonl"):
        chosen_format(path, "mine")
    with pytest.raises(DataError, match=r"--id-prefix applies to batch API files only \(--format openai-batch or "
                                        r"anthropic-batch\)"):
        chosen_format(path, "jsonl", given={"id_prefix": "x-"})
