"""An LLM run's cost, estimated openly (nothing here is measured): the tokens it reads and writes per item, the
forward compute that takes, 2 x parameters x tokens, and the accelerator time that compute needs at a stated
peak and utilisation. docs/cost.md gives the method and its limits.

- Prompt tokens: the prompt our default export writes for each item the run answered (the task's
  `LmEvalExport.prompts`), so a run made with another prompt is estimated on ours.
- Output tokens: the run's own generation of each item (`raw`); a run without text (log-likelihoods, labels)
  counts one token per item.
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
    """(parameter count or None, its source) of the longest table key in the system's name."""
    name = system.lower()
    found = [row for row in _table() if row["match"] in name]
    if not found:
        return None, ("the model size is unknown: the system name matches no model in the table of parameter "
                      "counts (llm_params.yaml); give it as --params, e.g. --params 8B")
    row = max(found, key=lambda r: len(r["match"]))
    return (None if row["parameters"] is None else float(row["parameters"])), row["source"]  # YAML reads 8.03e9 as text


def token_counter():
    """(count(text) -> tokens, what counted them): the cl100k_base BPE of `bpe-openai`.

    Every text is counted as text: a special token's spelling in a generation ("<|endoftext|>") is counted as
    the ordinary tokens it is written with, and a long text is counted in pieces of at most PIECE_CHARS
    characters cut at white space (the tokenizer refuses longer inputs; a word is never split, and BPE tokens
    never span white space followed by a word, so the count barely differs from one pass)."""
    with warnings.catch_warnings():  # bpe-openai reads its vocabulary with a deprecated importlib.resources call
        warnings.simplefilter("ignore", DeprecationWarning)
        import bpe_openai

        encoding = bpe_openai.get_encoding("cl100k_base")
    return (lambda text: sum(len(encoding.encode_ordinary(piece)) for piece in text_pieces(text))), \
        "cl100k_base BPE (bpe-openai)"


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


def estimate_llm_cost(task: Task, records, predictions: list[dict], system: str,
                      parameters: float | None = None, items: int | None = None) -> dict | None:
    """The run's `meta.cost` estimate, or None when the task writes no prompts. `items`: the number of answered
    items when `records` are a sample of them (baselines.runs.scoring_records): the tokens are the sample's means."""
    export = task.capability(LmEvalExport)
    if export is None or export.prompts is None:
        return None
    prompts = export.prompts(records)
    answered = {str(row["id"]): row for row in predictions if str(row["id"]) in prompts}
    if not answered:
        return None
    try:
        count, counted_by = token_counter()
        prompt_tokens = sum(count(prompts[item]) for item in answered) / len(answered)
        output_tokens = sum(count(row["raw"]) if isinstance(row.get("raw"), str) else 1
                            for row in answered.values()) / len(answered)
    except (ImportError, ValueError, RuntimeError, MemoryError) as error:  # scored all the same, without an estimate
        return {"estimate": True, "items": len(answered), "tokens_counted_by": "cl100k_base BPE (bpe-openai)",
                "unavailable": f"the tokens could not be counted: {str(error).splitlines()[0]}"}
    source = "--params"
    if parameters is None:
        parameters, source = model_parameters(system)
    sample = {} if items is None else {"prompt_sample": len(answered)}  # items whose tokens were counted
    record = {"estimate": True, "items": len(answered) if items is None else items, **sample,
              "prompt_tokens_per_item": round(prompt_tokens, 1),
              "output_tokens_per_item": round(output_tokens, 1), "tokens_counted_by": counted_by,
              "prompt": "the default export's prompt of each answered item", "parameters": parameters,
              "parameters_source": source, "accelerator": dict(ACCELERATOR)}
    if parameters is not None:
        flops = 2 * parameters * (prompt_tokens + output_tokens)
        record.update(flops_per_item=float(f"{flops:.4g}"),
                      gpu_seconds_per_1000=gpu_seconds_per_1000(parameters, prompt_tokens + output_tokens))
    return record
