"""An LLM run's cost, estimated openly (nothing here is measured): the tokens it reads and writes per item, the
forward compute that takes, 2 x parameters x tokens, and the accelerator time that compute needs at a stated
peak and utilisation. docs/cost.md gives the method and its limits.

- Tokens per item, on the first basis that gives them (`basis`): the output file's own `usage` (batch API files:
  prompt, completion, reasoning and cached tokens); else the prompt actually sent, as the export recorded it
  (baselines.runs.prompt_record); else the prompt our default export writes for each item the run answered (the
  task's `LmEvalExport.prompts`).
- Output tokens, without usage: the run's own generation of each item (`raw`, a reasoning field included); a run
  without text (log-likelihoods, labels) counts one token per item.
- Tokens are counted with the cl100k_base BPE (`bpe-openai`, a dependency of the package, so every install counts
  them the same way; GPT-4's tokenizer, and close to Llama 3's); where it cannot count, the run is scored without
  an estimate, and the record says why.
- Parameters: `--params`, else the table in llm_params.yaml (with its sources), matched on the system name."""
from __future__ import annotations

import functools
import re
import warnings
from importlib import resources

import yaml

from baselines.core.errors import BaselinesError
from baselines.core.params import MIN_LLM_PARAMETERS, check_option
from baselines.registry import LmEvalExport, Task
from baselines.runs.model_match import longest_match

ACCELERATOR = {"name": "NVIDIA A100 SXM 80 GB", "peak_flops_per_second": 312e12, "precision": "dense BF16",
               "utilisation": 0.4}
PIECE_CHARS = 100_000  # the longest text counted in one call of the tokenizer
_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*([kmbt]?)\s*$", re.IGNORECASE)
_SCALE = {"": 1, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}


def parse_parameters(text: str, system: str | None = None) -> float:
    """'70B', '8.03b', '135M', '7e9' -> a parameter count; anything else is refused, and so is a count no LLM has
    (below ten million: "70" or "70K" meant 70B?) or one ten times off the size the system's name gives in the
    documented table (`system`: "llama-3-70b" with --params 70M)."""
    match = _SIZE.match(str(text))
    if not match:
        raise BaselinesError(f"--params {text!r} is not a parameter count: write it as 70B, 8.03B, 135M or 7e9")
    count = float(match.group(1)) * _SCALE[match.group(2).lower()]
    if count < MIN_LLM_PARAMETERS:
        raise BaselinesError(f"--params {text!r} is {count:,.0f} parameters, fewer than any LLM has (at least "
                             f"{MIN_LLM_PARAMETERS:,.0f}): give the unit, e.g. --params {match.group(1)}B or 135M")
    check_option("parameters", count, f"--params {text!r}: the count")
    known = model_parameters(system)[0] if system else None
    if known and not known / 10 <= count <= known * 10:
        raise BaselinesError(f"--params {text!r} is {count:,.0f} parameters, but the name {system!r} is a model of "
                             f"{known:,.0f} in the table of parameter counts (llm_params.yaml): check the unit")
    return float(round(count))  # a count: 8.03B is 8030000000


@functools.cache
def _table() -> list[dict]:
    return yaml.safe_load(resources.files(__package__).joinpath("llm_params.yaml").read_text("utf-8"))["models"]


def model_parameters(system: str) -> tuple[float | None, str]:
    """(parameter count or None, its source) of the table row matching the system's name (baselines.runs.model_match:
    whole name segments, the longest key winning)."""
    row = longest_match(_table(), system)
    if row is None:
        return None, ("the model size is unknown: the system name matches no model in the table of parameter "
                      "counts (llm_params.yaml); give it as --params, e.g. --params 8B")
    return (None if row["parameters"] is None else float(row["parameters"])), row["source"]  # YAML reads 8.03e9 as text


def token_counter():
    """(count(text) -> tokens, what counted them): the cl100k_base BPE of `bpe-openai`.

    Every text is counted as text: a special token's spelling in a generation ("<|endoftext|>") is counted as
    the ordinary tokens it is written with, and a long text is counted in pieces of at most PIECE_CHARS
    characters cut at white space (the tokenizer refuses longer inputs; a word is never split, and BPE tokens
    never span white space followed by a word, so the count barely differs from one pass)."""
    encoding = _encoding()
    return (lambda text: sum(len(encoding.encode_ordinary(piece)) for piece in text_pieces(text))), \
        "cl100k_base BPE (bpe-openai)"


@functools.cache
def _encoding():
    """cl100k_base, read once a process (reading its vocabulary takes seconds)."""
    with warnings.catch_warnings():  # bpe-openai reads its vocabulary with a deprecated importlib.resources call
        warnings.simplefilter("ignore", DeprecationWarning)
        import bpe_openai

        return bpe_openai.get_encoding("cl100k_base")


def text_pieces(text: str, size: int = PIECE_CHARS):
    """`text` in pieces of at most `size` characters, each cut before a run of white space where there is one."""
    start = 0
    while len(text) - start > size:
        cut = max(text.rfind(" ", start + 1, start + size), text.rfind("\n", start + 1, start + size))
        cut = cut if cut > start else start + size
        yield text[start:cut]
        start = cut
    yield text[start:]


def gpu_seconds_per_1000(parameters: float, tokens_per_item: float) -> float:
    """A100-seconds per 1,000 items of 2 x parameters x tokens FLOPs at ACCELERATOR's peak and utilisation."""
    rate = ACCELERATOR["peak_flops_per_second"] * ACCELERATOR["utilisation"]
    return round(1000 * 2 * parameters * tokens_per_item / rate, 2)


BASES = {"usage": "from the file's usage: the tokens the output file says each request used",
         "sent": "prompt sent as exported: the prompt tokens the export recorded for each item, the output counted",
         "default": "our default prompt: the default export's prompt of each answered item, the output counted"}


def basis_said(basis: str) -> str:
    """A basis in a few words (the part of BASES before its colon): "prompt sent as exported"."""
    return BASES.get(basis, "").split(":")[0]


def estimate_llm_cost(task: Task, records, predictions: list[dict], system: str, parameters: float | None = None,
                      sent: list[dict] | None = None, log_names: tuple[str, ...] = (),
                      items: int | None = None) -> dict | None:
    """The run's `meta.cost` estimate, or None when nothing gives its tokens. The tokens per item come from the
    first basis that has them (`basis`): the file's own `usage`; the prompt actually sent, as the export recorded
    it (`sent`: the prompt records found; `log_names`: the scored sample logs' file names, which name the harness task);
    our default prompt (`items`: the number of answered items when `records` are a sample of them, as
    baselines.runs.scoring_records gives: the tokens are the sample's means)."""
    try:
        tokens = _usage_tokens(predictions) or _sent_tokens(sent, predictions, log_names) or \
            _default_tokens(task, records, predictions, items)
    except (ImportError, ValueError, RuntimeError, MemoryError) as error:  # scored all the same, without an estimate
        answered = [row for row in predictions if "id" in row]
        return {"estimate": True, "items": len(answered), "tokens_counted_by": "cl100k_base BPE (bpe-openai)",
                "unavailable": f"the tokens could not be counted: {str(error).splitlines()[0]}"}
    if tokens is None:
        return None
    source = "--params"
    if parameters is None:
        parameters, source = model_parameters(system)
    record = {"estimate": True, **tokens, "parameters": parameters, "parameters_source": source,
              "accelerator": dict(ACCELERATOR)}
    if parameters is not None:
        per_item = tokens["prompt_tokens_per_item"] + tokens["output_tokens_per_item"]
        record.update(flops_per_item=float(f"{2 * parameters * per_item:.4g}"),
                      gpu_seconds_per_1000=gpu_seconds_per_1000(parameters, per_item))
    return record


def _usage_tokens(predictions: list[dict]) -> dict | None:
    """Tokens per item from the rows' own `usage` (batch API files), reasoning and cached tokens apart."""
    used = [row["usage"] for row in predictions if isinstance(row.get("usage"), dict)]
    if not used:
        return None

    def mean(part: str) -> float | None:
        known = [usage[part] for usage in used if usage.get(part) is not None]
        return round(sum(known) / len(used), 1) if known else None

    return {"basis": "usage", "items": len(used), "prompt_tokens_per_item": mean("prompt"),
            "output_tokens_per_item": mean("completion"), "reasoning_tokens_per_item": mean("reasoning"),
            "cached_tokens_per_item": mean("cached"), "tokens_counted_by": "the output file's usage",
            "prompt": BASES["usage"]}


def _sent_tokens(sent: list[dict] | None, predictions: list[dict], log_names: tuple[str, ...]) -> dict | None:
    """Tokens per item from the prompt record of the export the run was made from, with the output counted; None
    when no record holds the answered items, or records that do disagree on them."""
    from baselines.runs.prompt_record import sent_prompt_tokens

    answered = {str(row["id"]): row for row in predictions}
    found = [(record, sent_prompt_tokens(record, list(answered), list(log_names))) for record in sent or []]
    found = [(record, fit) for record, fit in found if fit is not None]
    if not found or len({round(fit[0], 6) for _, fit in found}) > 1:
        return None
    record, (prompt, prompt_set) = found[0]
    count, counted_by = token_counter()
    return {"basis": "sent", "items": len(answered), "prompt_tokens_per_item": round(prompt, 1),
            "output_tokens_per_item": round(_output_tokens(answered.values(), count), 1),
            "tokens_counted_by": counted_by, "prompt": BASES["sent"],
            "prompt_record": {"file": record["path"], "prompt_set": prompt_set, "settings": record.get("settings", {})}}


def _default_tokens(task: Task, records, predictions: list[dict], items: int | None = None) -> dict | None:
    """Tokens per item of our default export's prompt of each answered item, with the output counted."""
    export = task.capability(LmEvalExport)
    if export is None or export.prompts is None:
        return None
    prompts = export.prompts(records)
    answered = {str(row["id"]): row for row in predictions if str(row["id"]) in prompts}
    if not answered:
        return None
    count, counted_by = token_counter()
    sample = {} if items is None else {"prompt_sample": len(answered)}  # items whose tokens were counted
    return {"basis": "default", "items": len(answered) if items is None else items, **sample,
            "prompt_tokens_per_item": round(sum(count(prompts[item]) for item in answered) / len(answered), 1),
            "output_tokens_per_item": round(_output_tokens(answered.values(), count), 1),
            "tokens_counted_by": counted_by, "prompt": BASES["default"]}


def _output_tokens(rows, count) -> float:
    """Mean tokens of the rows' generations (reasoning included: a reasoning field is read as a think block);
    a row without text (log-likelihoods, labels) counts one token."""
    rows = list(rows)
    return sum(count(row["raw"]) if isinstance(row.get("raw"), str) else 1 for row in rows) / len(rows)
