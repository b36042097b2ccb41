"""The Python API: train, evaluate, score, compare and predict, as the commands of the same names do them.

Every keyword is the command-line option of the same name (`--only-present` is only_present=True, `--format` is
format=, `--set k=v` is overrides={"k": v}), mapped to the plain functions as the CLI maps it; `task` and `method`
are called so everywhere. Every argument is checked here, before any work, as the CLI checks its options: a wrong
type is one BaselinesError line naming the keyword ("texts must be a list of strings or a dict id -> text, not a
str"), never a TypeError from deep inside. The work itself is done by baselines.runs.training, baselines.runs.run,
baselines.runs.corpus and baselines.comparison.leaderboard, imported on first call so that importing this module
stays fast.
"""
from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Union

from baselines.core.errors import BaselinesError
from baselines.core.progress import silenced, stage
from baselines.runs.options import load_options, method_of, name_list, system_name

if TYPE_CHECKING:
    from baselines.comparison.leaderboard import Comparison
    from baselines.evaluation.scoring import Result

PathLike = Union[str, os.PathLike]  # what every path keyword takes


def described(value) -> str:
    """What a wrong argument is, for the error line: 'None', 'a str', 'an int'."""
    if value is None:
        return "None"
    kind = type(value).__name__
    return f"{'an' if kind[0].lower() in 'aeiou' else 'a'} {kind}"


def kind(expected: str, accepts: Callable[[object], bool], optional: bool = False) -> Callable[[str, object], None]:
    """A check of one keyword: `accepts(value)` (or None when `optional`), else '<keyword> must be <expected>'."""
    def check(keyword: str, value) -> None:
        if not (value is None and optional) and not accepts(value):
            raise BaselinesError(f"{keyword} must be {expected}, not {described(value)}")
    return check


def is_path(value) -> bool:
    return isinstance(value, (str, os.PathLike))


def is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_elements(keyword: str, pairs, ids: bool = False) -> None:
    """Each (key, value) of a list or dict argument holds a string (and, with `ids`, is keyed by one)."""
    for key, value in pairs:
        if ids and not isinstance(key, str):
            raise BaselinesError(f"{keyword}: id {key!r} must be a str, not {described(key)}")
        if not isinstance(value, str):
            raise BaselinesError(f"{keyword}[{key!r}] must be a str, not {described(value)}")


def check_texts(keyword: str, texts) -> None:
    """Raw texts: a list of strings (ids "0", "1", ...) or a dict id -> text; one string is refused, not read as a
    list of one-character texts."""
    kind("a list of strings or a dict id -> text", lambda value: isinstance(value, (list, tuple, dict)))(keyword, texts)
    pairs = texts.items() if isinstance(texts, dict) else enumerate(texts)
    check_elements(keyword, pairs, ids=isinstance(texts, dict))


def check_names(keyword: str, names) -> None:
    """Names, as a list or as one comma-separated string (the CLI's form)."""
    if names is None or isinstance(names, str):
        return
    kind("a list of names or one comma-separated str", lambda value: isinstance(value, (list, tuple)))(keyword, names)
    check_elements(keyword, enumerate(names))


def check_overrides(keyword: str, overrides) -> None:
    """Config values by name, as `--set name=value` gives them."""
    kind("a dict name -> value", lambda value: isinstance(value, dict), optional=True)(keyword, overrides)
    for name in overrides or {}:
        if not isinstance(name, str):
            raise BaselinesError(f"{keyword}: name {name!r} must be a str, not {described(name)}")


_OPTIONAL_STR = kind("a str", lambda value: isinstance(value, str), optional=True)
_OPTIONAL_PATH = kind("a path (str or os.PathLike)", is_path, optional=True)
_FLAG = kind("True or False", lambda value: isinstance(value, bool))
CHECKS: dict[str, Callable[[str, object], None]] = {  # keyword -> its check, the same in every function
    "task": kind("a task name (str)", lambda value: isinstance(value, str)),
    **dict.fromkeys(("method", "name", "split", "encoder", "producer", "id_field", "lm_eval_filter", "id_prefix", "params", "numbering",
                     "against", "backend", "scheduler", "price"), _OPTIONAL_STR),
    **dict.fromkeys(("data_dir", "models_dir", "results_dir", "config", "model", "test_file", "train_file", "errors",
                     "prompts"),
                    _OPTIONAL_PATH),
    "predictions": kind("a path (str or os.PathLike) of a predictions file or folder", is_path),
    "segmenter": kind("rule, trained or a model folder (str or os.PathLike)", is_path, optional=True),
    "cv": kind("an int (the number of folds)", is_int, optional=True),
    **dict.fromkeys(("seed", "replicates"), kind("an int", is_int)),
    **dict.fromkeys(("missing", "format"), kind("a str", lambda value: isinstance(value, str))),
    **dict.fromkeys(("only_present", "force", "download", "allow_overlap", "quiet", "resume"), _FLAG),
    **dict.fromkeys(("subtasks", "systems"), check_names),
    "overrides": check_overrides,
    "texts": check_texts,
}


def check_arguments(arguments: dict) -> None:
    """Every argument of a call against its keyword's check; the first wrong one is the error."""
    for keyword, value in arguments.items():
        CHECKS[keyword](keyword, value)


def task_record(task: str, **given):
    """The task, and an option that only some tasks take refused when `task` is not one of them (as the CLI)."""
    from baselines.registry import check_options, get_task

    spec = get_task(task)
    check_options(spec, {"--" + option.replace("_", "-"): value for option, value in given.items()})
    return spec


def request_arguments(arguments: dict) -> dict:
    """A call's arguments as a run request takes them: all but how the run is carried out (download, quiet)."""
    return {key: value for key, value in arguments.items() if key not in ("download", "quiet")}


def with_data(task: str, download: bool, function, *args, **kwargs):
    """`function(*args, **kwargs)`; with `download`, a benchmark missing from the data folder is fetched first."""
    from baselines.runs.first_run import with_benchmark

    return with_benchmark(task, lambda: function(*args, **kwargs), download=download)


def recorded(function: Callable) -> Callable:
    """An API function that writes a run (evaluate, score), recording its call as the run's command (`python: baselines.score('scalr', ...)`)
    in place of the process's command line, which is the calling program's."""
    @functools.wraps(function)
    def call(*args, **kwargs):
        from baselines.core.provenance import CALLED_AS

        shown = ", ".join([*map(repr, args), *(f"{key}={value!r}" for key, value in kwargs.items())])
        token = CALLED_AS.set(f"python: baselines.{function.__name__}({shown})")
        try:
            return function(*args, **kwargs)
        finally:
            CALLED_AS.reset(token)
    return call


def train(task: str, method: str | None = None, data_dir: PathLike | None = None, *, config: PathLike | None = None,
          overrides: dict | None = None, encoder: str | None = None, name: str | None = None,
          train_file: PathLike | None = None, subtasks: list[str] | str | None = None,
          models_dir: PathLike | None = None, backend: str | None = None, scheduler: str | None = None,
          resume: bool = False, download: bool = False, quiet: bool = False) -> Path:
    """Fit a method and save it under models/<task>/<name>/ (`baselines train`); returns the model folder.

    method: default the task's (or the one a named `config` belongs to); config: a named variant or a YAML file;
    overrides: config values by name (`--set`); encoder: a sentence encoder folder; train_file: train on this
    file; subtasks, backend, scheduler: CaselawQA's subset and per-task jobs; resume: continue the training a killed
    run left in the model folder; download: fetch missing data; quiet: no progress on standard error (shown when it
    is a terminal, or with BASELINES_PROGRESS=1)."""
    check_arguments(locals())
    from baselines.runs import training
    from baselines.runs.requests import with_encoder

    task_record(task, subtasks=subtasks, backend=backend, scheduler=scheduler)
    config = Path(config) if config is not None else None
    method = method or method_of(task, config)
    parallel = {key: value for key, value in (("backend", backend), ("scheduler", scheduler)) if value}
    with silenced(quiet):
        return with_data(task, download, training.train, task, method, data_dir, config=config,
                         overrides={**with_encoder(overrides, encoder), **parallel},
                         models_dir=models_dir, name=system_name(method, name, encoder, config),
                         train_file=train_file, load_options=load_options(subtasks), resume=resume)


@recorded
def evaluate(task: str, method: str | None = None, data_dir: PathLike | None = None, *, split: str | None = None,
             test_file: PathLike | None = None, model: PathLike | None = None, cv: int | None = None, seed: int = 0,
             config: PathLike | None = None, overrides: dict | None = None, encoder: str | None = None,
             name: str | None = None, subtasks: list[str] | str | None = None, missing: str = "error",
             only_present: bool = False, models_dir: PathLike | None = None, segmenter: PathLike | None = None,
             results_dir: PathLike | None = None, force: bool = False, download: bool = False,
             allow_overlap: bool = False, quiet: bool = False) -> tuple[Result, Path]:
    """Predict a split (or `test_file`), score it and write the run under results/<task>/<system>/ (`baselines
    eval`); returns (Result, run folder).

    model: a saved model folder; cv, seed: K-fold cross-validation instead of a saved model; missing: error | wrong
    | skip | failed-wrong (a batch file's failed requests wrong, the other absent items skipped), only_present=True
    being skip; segmenter: rule | trained | a folder, to score end to end from raw text;
    force: replace a run of the same name and variant; allow_overlap: write the run even when the model was fit on
    the scored items (the overlap is stated beside its figures); the others as in train()."""
    arguments = locals()
    check_arguments(arguments)
    from baselines.runs.requests import eval_request
    from baselines.runs.run import execute

    spec = eval_request(**request_arguments(arguments))
    with silenced(quiet):
        return with_data(task, download, execute, spec)


@recorded
def score(task: str, predictions: PathLike, data_dir: PathLike | None = None, *, name: str | None = None,
          format: str = "auto", split: str | None = None, test_file: PathLike | None = None,
          subtasks: list[str] | str | None = None, missing: str = "error", only_present: bool = False,
          results_dir: PathLike | None = None, producer: str | None = None, force: bool = False,
          id_field: str | None = None, lm_eval_filter: str | None = None, id_prefix: str | None = None,
          download: bool = False, allow_overlap: bool = False, params: str | None = None,
          errors: PathLike | None = None, prompts: PathLike | None = None, price: str | None = None,
          numbering: str | None = None, quiet: bool = False) -> tuple[Result, Path]:
    """Score a predictions file or folder (ours, or an LLM's raw generations) like any evaluation (`baselines
    score`); returns (Result, run folder).

    format: auto | jsonl | lm-eval | a task's own (`baselines score --help` lists them); producer: ours | llm |
    other; id_field, lm_eval_filter: which doc field and filter of lm-eval logs; id_prefix: stripped from the
    custom_ids of batch API files; params: the LLM's parameter count ("70B") for its cost estimate; errors: OpenAI's
    error file of a batch, whose requests count as failed; prompts: the prompt record of the export the run was made
    from (default: found beside the file); price: the run's token price, "in=X,out=Y" in US$ per 1M tokens, kept with
    it; numbering: legalbench | letters, how the prompt numbered the choices (what a bare number names); the others
    as in evaluate()."""
    arguments = locals()
    check_arguments(arguments)
    from baselines.runs.requests import score_request
    from baselines.runs.run import execute

    spec = score_request(**request_arguments(arguments))
    with silenced(quiet):
        return with_data(task, download, execute, spec)


def compare(task: str, results_dir: PathLike | None = None, *, against: str | None = None, split: str | None = None,
            segmenter: PathLike | None = None, test_file: PathLike | None = None,
            systems: list[str] | str | None = None, replicates: int = 1000, seed: int = 0,
            quiet: bool = False) -> Comparison:
    """The task's runs side by side with paired tests against a reference (`baselines compare`); returns a
    Comparison: print() shows its leaderboard, to_markdown() is it as Markdown, save(path) writes that.

    against: the reference system (default: the best of ours); segmenter: end-to-end runs with it (any: all);
    test_file: runs scored on this file (its name) instead of a split; systems: only these; replicates, seed: of
    the paired bootstrap; quiet: no progress on standard error."""
    check_arguments(locals())
    from baselines.comparison.leaderboard import compare as leaderboard

    task_record(task)
    with silenced(quiet), stage(f"comparing the runs of {task} ({replicates} bootstrap replicates)"):
        return leaderboard(task, results_dir, split=split, against=against, replicates=replicates, seed=seed,
                           segmenter=os.fspath(segmenter) if segmenter is not None else None,
                           test_file=os.fspath(test_file) if test_file is not None else None,
                           only=name_list(systems))


def predict(task: str, texts: list[str] | dict[str, str], *, model: PathLike | None = None,
            method: str | None = None, segmenter: PathLike | None = None, subtasks: list[str] | str | None = None,
            data_dir: PathLike | None = None, models_dir: PathLike | None = None) -> list[dict]:
    """Label raw texts with a saved model loaded once (`baselines predict`): one record {"id", "digest", ...} per
    text, in order.

    texts: a list of strings (ids "0", "1", ...) or a dict id -> text; model: a saved model folder (default:
    models/<task>/<method>); segmenter: rule | trained | a folder (RR); subtasks: CaselawQA's questions asked."""
    check_arguments(locals())
    from baselines.registry import RawText, tasks_with
    from baselines.runs.corpus import predict as label_texts

    raw_text = task_record(task, subtasks=subtasks).capability(RawText)
    if raw_text is None:
        raise BaselinesError(f"task {task!r} does not label raw text; predict works for: "
                             f"{', '.join(tasks_with(RawText))}")
    if segmenter is not None and raw_text.end_to_end is None:
        raise BaselinesError(f"segmenter applies to tasks that cut raw text into sentences: "
                             f"{', '.join(tasks_with(RawText, 'end_to_end'))} ({task} takes no segmenter)")
    own = {**({"segmenter": os.fspath(segmenter)} if segmenter is not None else {}), **load_options(subtasks)}
    return label_texts(task, texts, method=method, model=model, models_dir=models_dir, data_dir=data_dir, **own)
