"""What a run costs in money: the dated price table shipped with the package (prices.yaml), a user's own
(`--prices FILE`, same format, over the shipped one) or one price given for a run (`--price in=X,out=Y`), and the
dollars per 1,000 items and per correct answer they give.

- Token-priced rows (an API model with a known price, or a run given `--price`): the tokens per item of its cost
  record (`usage` where the output carried it, else counted, baselines.runs.llm_cost) at the input, cached-input
  and output prices; a run read from a batch API file at the batch discount. Reasoning tokens are output tokens.
- Our rows, and LLM runs measured here: CPU-seconds (every core added, so vCPU-seconds) at the vCPU-hour rate.
- Other LLM rows: their estimated A100-seconds at the A100-hour rate.

A figure from estimated tokens or estimated A100-seconds is an estimate and says so; one from measured seconds or
from the provider's own token counts is not. A row with neither a price nor a rate says why (`dollars` returns
the reason)."""
from __future__ import annotations

import contextlib
import functools
import math
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import yaml

from baselines.core.errors import BaselinesError
from baselines.runs.model_match import longest_match

RATES = ("vcpu_hour", "a100_hour", "h100_hour")
_GIVEN = re.compile(r"^\s*(in|out|cached|batch)\s*=\s*([0-9]*\.?[0-9]+)\s*$")


@dataclass(frozen=True)
class TokenPrice:
    """US$ per 1M tokens, the batch discount (0.5: half price), where the price comes from and its date."""

    input: float
    output: float
    cached: float | None = None  # None: cached tokens at the input price
    batch_discount: float = 0.0
    source: str = ""
    date: str = ""

    def per_item(self, prompt: float, output: float, cached: float | None, batch: bool) -> float:
        cached = min(cached or 0.0, prompt)
        rate = self.input if self.cached is None else self.cached
        usd = ((prompt - cached) * self.input + cached * rate + output * self.output) / 1e6
        return usd * (1 - self.batch_discount) if batch else usd


@dataclass(frozen=True)
class Prices:
    """The model prices (rows of prices.yaml: match, input, output, cached, batch_discount, source, date), the
    compute rates (name -> {usd, what, source, date}) and a user's own model rows (`--prices FILE`), looked in
    first."""

    models: tuple[dict, ...]
    compute: dict
    own: tuple[dict, ...] = ()

    def token_price(self, system: str) -> TokenPrice | None:
        """The price of the row whose key matches the system's name (baselines.runs.model_match: whole name
        segments, the longest key winning) among the user's rows, else among the shipped ones."""
        found = longest_match(self.own, system) or longest_match(self.models, system)
        if found is None:
            return None
        return TokenPrice(float(found["input"]), float(found["output"]),
                          None if found.get("cached") is None else float(found["cached"]),
                          float(found.get("batch_discount") or 0.0), str(found.get("source", "")),
                          str(found.get("date", "")))


def _checked(table, where: str) -> Prices:
    if not isinstance(table, dict) or not isinstance(table.get("models", []), list) or \
            not isinstance(table.get("compute", {}), dict):
        raise BaselinesError(f"{where}: not a price table (`models:` a list, `compute:` a mapping; see docs/cost.md)")
    for row in table.get("models", []):
        if not isinstance(row, dict) or "match" not in row or not all(
                isinstance(row.get(k), (int, float)) and row[k] >= 0 for k in ("input", "output")):
            raise BaselinesError(f"{where}: the model row {row!r} needs `match`, and `input` and `output` in US$ per "
                                 "1M tokens")
    for name, rate in table.get("compute", {}).items():
        if name not in RATES or not isinstance(rate, dict) or not isinstance(rate.get("usd"), (int, float)):
            raise BaselinesError(f"{where}: compute rate {name!r} must be one of {', '.join(RATES)} with `usd`")
    return Prices(tuple(table.get("models", [])), dict(table.get("compute", {})))


@functools.cache
def shipped() -> Prices:
    """The price table shipped with the package."""
    return _checked(yaml.safe_load(resources.files(__package__).joinpath("prices.yaml").read_text("utf-8")),
                    "prices.yaml")


def with_price_file(path: Path, base: Prices | None = None) -> Prices:
    """A user's price file over `base` (the shipped table): its model rows looked in first (the shipped ones only
    for a name none of them matches), its compute rates replacing."""
    base = base or shipped()
    try:
        table = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise BaselinesError(f"--prices {path}: cannot be read as a YAML price table ({str(error).splitlines()[0]})")
    own = _checked(table, f"--prices {path}")
    return Prices(base.models, {**base.compute, **own.compute}, own.models + base.own)


def parse_price(text: str, date: str) -> TokenPrice:
    """'in=0.15,out=0.6[,cached=0.075][,batch=0.5]' (US$ per 1M tokens; batch: the discount) -> a TokenPrice."""
    given = {}
    for part in str(text).split(","):
        match = _GIVEN.match(part)
        if not match or match.group(1) in given:
            raise BaselinesError(f"--price {text!r}: write it as in=X,out=Y (US$ per 1M tokens), with cached=Z and "
                                 "batch=D (the batch discount, 0.5 for half price) if you like")
        given[match.group(1)] = float(match.group(2))
    if "in" not in given or "out" not in given or given.get("batch", 0) >= 1:
        raise BaselinesError(f"--price {text!r}: needs in= and out= (and a batch discount below 1)")
    return TokenPrice(given["in"], given["out"], given.get("cached"), given.get("batch", 0.0), "--price", date)


_ACTIVE: list[Prices] = []


def active() -> Prices:
    """The table in use: the one `using` set, else the shipped one."""
    return _ACTIVE[-1] if _ACTIVE else shipped()


@contextlib.contextmanager
def using(prices: Prices | None):
    """Price with `prices` (a user's table) inside the block; None keeps the table in use."""
    if prices is None:
        yield
        return
    _ACTIVE.append(prices)
    try:
        yield
    finally:
        _ACTIVE.pop()


@dataclass(frozen=True)
class Dollars:
    """US$ per 1,000 items and per correct answer (the dollars of every item the run paid for over its correct
    answers; None when it has none, or its count is unknown), how they were priced, and whether from estimates."""

    per_1000: float
    per_correct: float | None
    basis: str  # "tokens" | "tokens of the measured run" | "vCPU-hour" | "A100-hour"
    estimate: bool
    date: str
    batch: bool = False
    correct: int | None = None  # the run's correct answers

    def cell(self) -> str:
        shown = f"{'≈' if self.estimate else ''}{money(self.per_1000)}"
        return shown + (" (est.)" if self.estimate else "")

    def correct_cell(self) -> str:
        """'$0.00013', '≈$0.0021' from estimates, 'no correct answer', or '–' when the count is unknown."""
        if self.correct == 0:
            return "no correct answer"
        return "–" if self.per_correct is None else ("≈" if self.estimate else "") + money(self.per_correct)

    def record(self) -> dict:
        return {"usd_per_1000": self.per_1000, "usd_per_correct": self.per_correct, "priced_by": self.basis,
                "estimate": self.estimate, "price_date": self.date, "batch_discount_applied": self.batch,
                "correct_answers": self.correct}


def money(usd: float) -> str:
    """'$1,234', '$12', '$1.2', '$0.065', '$0.00013': two significant figures below $100."""
    if usd >= 100:
        return f"${usd:,.0f}"
    if usd <= 0:
        return "$0"
    decimals = max(0, 1 - math.floor(math.log10(usd)))
    shown = f"{usd:.{decimals}f}"
    return "$" + (shown.rstrip("0").rstrip(".") if "." in shown else shown)


def dollars(cost: dict | None, system: str, correct: int | None, batch: bool,
            prices: Prices | None = None) -> Dollars | str:
    """The run's dollars from its cost record (`meta.cost`), or the reason it has none. `correct`: the run's
    correct answers (accuracy x scored items), over which the dollars of every item it paid for are shared."""
    prices = prices or active()
    if not isinstance(cost, dict):
        return "no cost recorded"
    given = cost.get("price_given")
    price = TokenPrice(**given) if isinstance(given, dict) else prices.token_price(system)
    found = _by_tokens(cost, price, batch, isinstance(given, dict)) if price is not None else None
    if found is None:
        found = _by_seconds(cost, prices)
    if isinstance(found, str):
        return found
    per_1000, basis, estimate, date, discounted, paid = found
    per_correct = per_1000 * paid / 1000 / correct if correct and paid else None
    return Dollars(per_1000, per_correct, basis, estimate, date, discounted, correct)


def correct_answers(accuracy: float | None, scored: int | None) -> int | None:
    """The correct answers of a run scored on `scored` items at `accuracy` (missing items counted wrong are among
    the scored ones), or None when either is unknown."""
    return None if accuracy is None or scored is None else round(accuracy * scored)


def _by_tokens(cost: dict, price: TokenPrice, batch: bool, given: bool):
    """Priced by tokens: an estimated run's tokens, or, for a run measured here and given `--price`, the tokens
    estimated beside its measured seconds (a measured run without a price given is priced by its seconds)."""
    tokens = cost if cost.get("estimate") else (cost.get("estimate_from_tokens") or {}) if given else {}
    if tokens.get("prompt_tokens_per_item") is None:
        return None
    per_item = price.per_item(tokens["prompt_tokens_per_item"], tokens["output_tokens_per_item"] or 0.0,
                              tokens.get("cached_tokens_per_item"), batch and price.batch_discount > 0)
    basis = "tokens" if cost.get("estimate") else "tokens of the measured run"
    return (1000 * per_item, basis, tokens.get("basis") != "usage", price.date,
            batch and price.batch_discount > 0, tokens.get("items"))


def _by_seconds(cost: dict, prices: Prices):
    if cost.get("estimate"):
        seconds, rate = cost.get("gpu_seconds_per_1000"), prices.compute.get("a100_hour")
        if seconds is None:
            return ("no price: no token price for this model (give --price in=X,out=Y) and no A100 estimate ("
                    f"{cost.get('unavailable') or cost.get('parameters_source') or 'no parameter count'})")
        if rate is None:
            return "no price: no A100-hour rate in the price table"
        return seconds * rate["usd"] / 3600, "A100-hour", True, str(rate.get("date", "")), False, cost.get("items")
    seconds = (cost.get("predict") or {}).get("cpu_seconds_per_1000")
    rate = prices.compute.get("vcpu_hour")
    if seconds is None or rate is None:
        return "no price: no CPU-seconds recorded" if seconds is None else "no price: no vCPU-hour rate"
    return seconds * rate["usd"] / 3600, "vCPU-hour", False, str(rate.get("date", "")), False, cost.get("items")


def price_dates(prices: Prices | None = None) -> str:
    """'API prices of 2024-11-04 and 2025-04-14; compute rates of 2025-01-15' for the note under a table."""
    prices = prices or active()
    models = sorted({str(row.get("date")) for row in prices.own + prices.models if row.get("date")})
    compute = sorted({str(rate.get("date")) for rate in prices.compute.values() if rate.get("date")})
    return (f"API list prices of {' and '.join(models) or 'no date'}; compute rates (vCPU-, A100-hour) of "
            f"{' and '.join(compute) or 'no date'}")
