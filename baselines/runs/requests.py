"""The one front door of the runs that write results: `eval` and `score`, from the command line or from Python,
become a RunSpec here, from one set of names.

`baselines eval` / `baselines.evaluate` and `baselines score` / `baselines.score` pass their options and keywords
under these functions' own parameter names (a test holds the CLI's options, the API's keywords and these
parameters to one list), so a rule about a run request (an option that only some tasks take, a contradiction of
--missing and --only-present, the method a named config belongs to, the system name an encoder gives) is made
once, here. Errors name an argument as the caller spells it (`cli`): `--only-present` on the command line,
`only_present=True` in Python.
"""
from __future__ import annotations


from pathlib import Path
from baselines.core.errors import BaselinesError
from baselines.runs.model_choice import named_model
from baselines.evaluation.reading.numbers import NUMBERINGS
from baselines.runs.options import load_options, method_of, missing_policy, system_name
from baselines.runs.spec import RunSpec


def _checked(task: str, subtasks, missing: str, only_present: bool, cli: bool) -> tuple:
    """(the task record, the missing-id policy): an option the task does not take refused, and a contradiction of
    missing and only_present, each named as the caller spells it (`cli`: --only-present; else only_present=True)."""
    from baselines.registry import check_options, get_task

    record = get_task(task)
    check_options(record, {"--subtasks": subtasks})
    names = ("--only-present", "--missing {}") if cli else ("only_present=True", "missing={!r}")
    return record, missing_policy(missing, only_present, *names)


def with_encoder(overrides: dict | None, encoder: str | None) -> dict:
    """Config values by name, with the encoder among them when given (`--set` and `--encoder`, or the API's
    `overrides` and `encoder`): the one place the two meet, for training and evaluation alike."""
    return {**(overrides or {}), **({"encoder": encoder} if encoder else {})}


def eval_request(task: str, method: str | None = None, data_dir=None, *, split: str | None = None,
                 test_file=None, model=None, cv: int | None = None, seed: int = 0, config=None,
                 overrides: dict | None = None, encoder: str | None = None, name: str | None = None,
                 subtasks=None, missing: str = "error", only_present: bool = False, models_dir=None,
                 segmenter=None, results_dir=None, force: bool = False, allow_overlap: bool = False,
                 cli: bool = False) -> RunSpec:
    """The RunSpec of an evaluation: `method` (None: the one a named `config` belongs to, else the task's
    default) predicts `split` (or `test_file`) and the run is written under results/<task>/<system>/."""
    _, missing = _checked(task, subtasks, missing, only_present, cli)
    config = Path(config) if config is not None else None
    method = method or method_of(task, config, model if model is not None else named_model(task, name, models_dir))
    overrides = with_encoder(overrides, encoder)
    return RunSpec(task=task, method=method, data_dir=data_dir, split=split, test_file=test_file, model=model,
                   config=config, overrides=overrides, models_dir=models_dir, results_dir=results_dir,
                   name=system_name(method, name, encoder, config), cv=cv, seed=seed, missing=missing,
                   load_options=load_options(subtasks), force=force,
                   segmenter=str(segmenter) if segmenter is not None else None, allow_overlap=allow_overlap)


def score_request(task: str, predictions, data_dir=None, *, name: str | None = None, format: str = "auto",
                  split: str | None = None, test_file=None, subtasks=None, missing: str = "error",
                  only_present: bool = False, results_dir=None, producer: str | None = None, force: bool = False,
                  id_field: str | None = None, lm_eval_filter: str | None = None, id_prefix: str | None = None,
                  allow_overlap: bool = False, params: str | None = None, errors=None, prompts=None,
                  price: str | None = None, numbering: str | None = None, cli: bool = False) -> RunSpec:
    """The RunSpec of the scoring of a predictions file or folder (`format`: auto, a generic one or the task's
    own, checked once, before any work; `errors`: OpenAI's error file of a batch, its failed requests)."""
    from baselines.runs.scored_file import format_entry

    record, missing = _checked(task, subtasks, missing, only_present, cli)
    entry = format_entry(record, format)  # an unknown format, before any work
    if entry is not None and "id_prefix" not in entry.options and id_prefix is not None:
        where = f"--format {format}" if cli else f"format {format!r}"
        raise BaselinesError(f"{'--id-prefix' if cli else 'id_prefix'} applies to batch API files only, not to {where}")
    if numbering is not None and numbering not in NUMBERINGS:
        raise BaselinesError(f"unknown {'--numbering' if cli else 'numbering'} {numbering!r}; valid: {', '.join(NUMBERINGS)}")
    return RunSpec(task=task, predictions=Path(predictions), data_dir=data_dir, split=split, name=name, fmt=format, numbering=numbering,
                   missing=missing, results_dir=results_dir, test_file=test_file, producer=producer, force=force,
                   load_options=load_options(subtasks), allow_overlap=allow_overlap, params=params,
                   errors=Path(errors) if errors is not None else None,
                   prompts=Path(prompts) if prompts is not None else None, price=price,
                   lm_eval_options={"id_field": id_field, "filter_name": lm_eval_filter, "task_name": record.name,
                                    "id_prefix": id_prefix})
