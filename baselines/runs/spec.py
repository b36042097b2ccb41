"""One eval or score run as data: what the command line or the Python API asks for, built once and passed on
whole to baselines.runs.run.execute."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from baselines.core.params import check_option
from baselines.runs.results_store import check_system_name


@dataclass(frozen=True)
class RunSpec:
    """An evaluation (a method predicts the items) or, with `predictions`, the scoring of a predictions file; both
    write a run under results/<task>/<system>/.

    Shared: the task, where the data and the results are, the split (or a test file), the system name, the policy
    for references without a prediction, the loaders' options, and whether to replace a run or accept a model fit
    on the scored items. An evaluation adds the method, its saved model, config and overrides, cross-validation and
    an end-to-end segmenter; a scoring adds the file, its format, the lm-eval options and who produced it."""

    task: str
    method: str | None = None  # eval: the method (None: the task's default)
    predictions: Path | None = None  # score: the predictions file or folder (None: an evaluation)
    data_dir: Path | str | None = None
    split: str | None = None  # None: the task's eval split
    test_file: Path | None = None  # references from this file instead of a split
    name: str | None = None  # the system name (None: the method's, or the predictions file's)
    missing: str = "error"  # references without a prediction: error | wrong | skip | failed-wrong
    results_dir: Path | str | None = None
    load_options: dict | None = None  # the loaders' options (CaselawQA: subtasks)
    force: bool = False  # replace a scored run of the same name and variant
    allow_overlap: bool = False  # write the run even when the model was fit on the scored items
    model: Path | None = None  # eval: a saved model folder (None: models/<task>/<name>)
    config: Path | None = None  # eval: a config file or a named config
    overrides: dict | None = None  # eval: parameter values given on top of the config
    models_dir: Path | str | None = None
    cv: int | None = None  # eval: K-fold cross-validation instead of a saved model
    seed: int = 0  # eval: the seed of the cross-validation folds
    segmenter: str | None = None  # eval: score end to end on raw text cut by this segmenter
    fmt: str = "auto"  # score: the predictions format
    lm_eval_options: dict | None = None  # score: id field, filter, task name and id prefix of harness/batch files
    producer: str | None = None  # score: ours | llm | other (None: inferred)
    params: str | None = None  # score: the LLM's parameter count ("70B"; None: from the table of llm_cost)
    errors: Path | None = None  # score: OpenAI's error file of the batch (its failed requests)
    prompts: Path | None = None  # score: the export's prompt record (None: found beside the file, or none)
    price: str | None = None  # score: the run's token price, "in=X,out=Y[,cached=Z][,batch=D]" (US$ per 1M tokens)
    numbering: str | None = None  # score: how the prompt numbered the choices (legalbench | letters; None: unknown)

    def __post_init__(self):
        if self.name is not None:  # an empty --name is refused, never read as "the default name"
            check_system_name(self.name)
        check_option("seed", self.seed, "--seed")  # numbers at the boundary, as configs check theirs
        if self.cv is not None:
            check_option("cv", self.cv, "--cv")

    @property
    def scores_file(self) -> bool:
        """The run scores a predictions file (`score`) rather than a method's predictions (`eval`)."""
        return self.predictions is not None
