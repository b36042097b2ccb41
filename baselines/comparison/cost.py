"""A run's cost as the tables and charts show it: seconds per 1,000 items, ours measured in the run (CPU seconds
of the prediction step, meta.cost.predict), an LLM's measured where `baselines llm run` timed the harness run here
(CPU seconds of answering the items, meta.cost with `llm`; baselines.runs.llm_measured), else estimated from its
tokens and parameters (A100-seconds, meta.cost.gpu_seconds_per_1000; baselines.runs.llm_cost), and the
accuracy-against-cost chart with its Pareto front. The two are seconds of different devices, and every place that
shows them says which."""
from __future__ import annotations

from dataclasses import dataclass

from baselines.comparison.systems import System
from baselines.core.cache_use import served_share
from baselines.runs.prices import Dollars, correct_answers, dollars, money, price_dates

COST_COLUMN = "cost / 1k items"
DOLLARS_COLUMN = "$ / 1k items (per correct)"
# A cost whose prediction read at least this share of its per-item work (encodings, TF-IDF rows) from the on-disk
# cache says so: RR's dev sentences that repeat a train sentence (about 5%) are read back in every run.
WARM_CACHE_SHARE = 0.10


@dataclass(frozen=True)
class Cost:
    """Seconds per 1,000 items on `device`: measured (ours) or estimated (an LLM)."""

    seconds: float
    device: str  # "CPU" (ours: CPU seconds, every core added) | "A100" (an LLM: estimated)
    estimate: bool
    includes_fitting: bool = False  # a --cv run: each fold's fitting is inside its prediction step
    cache_served: float = 0.0  # the share of the prediction's cached per-item work read back from disk
    llm: bool = False  # an LLM run measured here (`baselines llm run`), beside the estimated ones

    def cell(self) -> str:
        if self.estimate:
            return f"≈{_seconds(self.seconds)} {self.device}-s (est.)"
        notes = (["measured"] if self.llm else []) + (["with fitting"] if self.includes_fitting else []) + (
            [f"{self.cache_served:.0%} from cache"] if self.cache_served >= WARM_CACHE_SHARE else [])
        return f"{_seconds(self.seconds)} {self.device}-s" + (f" ({', '.join(notes)})" if notes else "")


def _seconds(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}" if value >= 1 else f"{value:.2g}"


def run_cost(system: System) -> Cost | None:
    """The cost its run recorded, or None (a run of an earlier release, an LLM without a parameter count)."""
    cost = system.result.get("meta", {}).get("cost")
    if not isinstance(cost, dict):
        return None
    if cost.get("estimate"):
        seconds = cost.get("gpu_seconds_per_1000")
        return None if seconds is None else Cost(float(seconds), "A100", True)
    predict = cost.get("predict") or {}
    seconds = predict.get("cpu_seconds_per_1000")
    if seconds is None:
        return None
    served = served_share(predict.get("caches") or {})
    return Cost(float(seconds), "CPU", False, bool(predict.get("includes_fitting")), served, bool(cost.get("llm")))


def published_cost_cell(system: str, tokens_per_item: float | None) -> str:
    """The estimate of a published figure's cost, from the tokens its file states and the system's parameter count
    in the documented table; – when either is unknown."""
    from baselines.runs.llm_cost import gpu_seconds_per_1000, model_parameters

    parameters = model_parameters(system)[0]
    if tokens_per_item is None or parameters is None:
        return "–"
    return Cost(gpu_seconds_per_1000(parameters, tokens_per_item), "A100", True).cell()


def run_dollars(system: System) -> Dollars | str | None:
    """The run's dollars at the prices in use (baselines.runs.prices), the reason it has none, or None when it
    recorded no cost at all."""
    meta = system.result.get("meta", {})
    if not isinstance(meta.get("cost"), dict):
        return None
    correct = correct_answers(system.figures["metrics"].get("accuracy"), system.figures.get("n"))
    return dollars(meta["cost"], system.name, correct, bool(meta.get("batch")))


def dollars_cell(system: System, per_correct: bool = True) -> str:
    """'$0.065 ($0.00013)': US$ per 1,000 items and per correct answer; '≈...(est.)' from estimates; 'no price'."""
    priced = run_dollars(system)
    if priced is None:
        return "–"
    if isinstance(priced, str):
        return "no price"
    shown = priced.correct_cell().lstrip("≈")
    correct = f" ({shown})" if per_correct and shown != "–" else ""
    return priced.cell().replace(" (est.)", "") + correct + (" (est.)" if priced.estimate else "")


def seconds_cell(system: System) -> str:
    """Seconds per 1,000 items, measured or estimated, on the device named; – when not recorded."""
    cost = run_cost(system)
    return "–" if cost is None else cost.cell()


def cost_cell(system: System) -> str:
    """Seconds per 1,000 items, and US$ beside them (or "no price") where the run recorded a cost."""
    seconds = seconds_cell(system)
    return seconds if run_dollars(system) is None else f"{seconds} · {dollars_cell(system, per_correct=False)}"


def published_dollars_cell(system: str, tokens_per_item: float | None) -> str:
    """A published figure's dollars per 1,000 items from the tokens its file states (read as prompt tokens): at
    the model's token price, else its estimated A100-seconds at the A100-hour rate; 'no price' when neither."""
    from baselines.runs.llm_cost import gpu_seconds_per_1000, model_parameters
    from baselines.runs.prices import active

    if tokens_per_item is None:
        return "–"
    price, prices = active().token_price(system), active()
    if price is not None:
        return f"≈{money(1000 * price.per_item(tokens_per_item, 0.0, None, False))} (est.)"
    parameters, rate = model_parameters(system)[0], prices.compute.get("a100_hour")
    if parameters is None or rate is None:
        return "no price"
    return f"≈{money(gpu_seconds_per_1000(parameters, tokens_per_item) * rate['usd'] / 3600)} (est.)"


def memory_cell(system: System) -> str:
    """Peak memory of the run's process, as it recorded it (ours)."""
    cost = system.result.get("meta", {}).get("cost") or {}
    memory = cost.get("peak_memory_mib") if not cost.get("estimate") else None
    return "–" if memory is None else f"{memory / 1024:.1f} GiB"


def training_cell(system: System) -> str:
    """Training wall time, CPU time and peak memory, as the model folder recorded them."""
    train = (system.result.get("meta", {}).get("cost") or {}).get("train")
    if not isinstance(train, dict) or train.get("wall_seconds") is None:
        return "–"
    cpu = f", {_duration(train['cpu_seconds'])} CPU" if train.get("cpu_seconds") is not None else ""
    memory = f", {train['peak_memory_mib'] / 1024:.1f} GiB" if train.get("peak_memory_mib") is not None else ""
    return f"{_duration(train['wall_seconds'])}{cpu}{memory}"


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def measured_on(systems: list[System]) -> str:
    """The CPUs our runs' costs were measured on, as they recorded them."""
    cpus = sorted({(s.result["meta"]["cost"].get("machine") or {}).get("cpu", "?") for s in systems
                   if run_cost(s) is not None and not run_cost(s).estimate})
    return ", ".join(cpus) or "–"


def cost_legend(systems: list[System], how: str = "[how](../cost.md)") -> str:
    """The sentence under a table with a cost column (`how`: where the method is described)."""
    costs = [run_cost(s) for s in systems]
    cached = any(c is not None and c.cache_served >= WARM_CACHE_SHARE for c in costs)
    measured_llm = any(c is not None and c.llm for c in costs)
    return (f"{COST_COLUMN}: ours, CPU seconds (all cores added) of the prediction step per 1,000 items, measured "
            f"in the run, start-up and loading apart (CPU: {measured_on(systems)})"
            + ("; \"N% from cache\": that share of its sentence encodings or TF-IDF rows was read back from the "
               "on-disk cache, not computed, so from text it costs more" if cached else "")
            + ("; an LLM run here, marked measured: CPU seconds of answering the items through lm-evaluation-harness, "
               "start-up and model loading apart, as `baselines llm run` timed it" if measured_llm else "")
            + f"; an LLM's otherwise, A100-seconds estimated from its tokens and parameters, marked est. ({how}); – not "
              "recorded. " + dollars_legend())


def dollars_legend() -> str:
    """What the dollars are, and the date of the prices."""
    return ("$: US$ per 1,000 items (and per correct answer), ours and measured LLM runs at the vCPU-hour rate, "
            "estimated A100-seconds at the A100-hour rate, API models at their token prices (batch files at the "
            f"batch discount), ≈ and est. where from estimates; {price_dates()}.")


def ratio_sentence(llm: System, ours: System, difference: float) -> str | None:
    """'lawma-70b: +6.9 points over signals at about N times its seconds per 1,000 items ...', or None."""
    theirs, mine = run_cost(llm), run_cost(ours)
    if theirs is None or mine is None or mine.estimate or mine.seconds <= 0:
        return None
    times = theirs.seconds / mine.seconds
    shown = f"{times:,.0f}" if times >= 10 else f"{times:.1f}"
    kinds = "estimated A100-seconds against measured CPU-seconds" if theirs.estimate else \
        "CPU-seconds against CPU-seconds, both measured here"
    return (f"{llm.name}: {100 * difference:+.1f} points against {ours.name} at about {shown} times its seconds "
            f"per 1,000 items ({kinds}).")


def ratio_sentences(comparison, ours: System | None) -> list[str]:
    """One sentence per LLM run paired with our best (`ours`) whose cost both recorded."""
    if ours is None:
        return []
    found = []
    for system in (s for s in comparison.systems if s.producer == "llm"):
        paired = comparison.paired.get(system.name)
        if paired is not None and paired.difference is not None:
            found.append(ratio_sentence(system, ours, paired.difference))
    return [sentence for sentence in found if sentence]


def pareto_front(points: list[tuple[float, float]]) -> list[int]:
    """Indexes of the points no other point beats on both (lower cost, higher value), by cost."""
    order = sorted(range(len(points)), key=lambda k: (points[k][0], -points[k][1]))
    front, best = [], float("-inf")
    for k in order:
        if points[k][1] > best:
            front.append(k)
            best = points[k][1]
    return front
