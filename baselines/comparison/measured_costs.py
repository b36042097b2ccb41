"""Whether the measured costs of one table can be read side by side: a note when they come from different CPUs,
different thread counts, or a loaded machine.

A measured cost (ours, and an LLM's timed by `baselines llm run`) is CPU seconds on the machine it ran on: another
CPU, another thread count or other work on the same cores moves it. Each run records its CPU, 1-minute load
average and the cores other work kept busy during the measured step (meta.cost.machine) and its thread settings
(meta.cost.threads; none set: every core the run could use); runs that recorded no thread settings are left out of
the thread comparison. A machine is loaded by the rule of baselines.core.machine.busy_load: other work keeping more
than OTHERS_BUSY cores busy during the measured step (the machine's busy CPU-seconds less the run's own); for runs
that did not record it, a load above half its cores before the run, or after it beyond the run's own threads.
Estimated costs are not measurements and are not compared.
"""
from __future__ import annotations

from baselines.comparison.cost import run_cost
from baselines.comparison.systems import System
from baselines.core.machine import OTHERS_BUSY, busy_load, thread_count


def _measured(systems: list[System]) -> list[tuple[str, dict]]:
    """(name, meta.cost) of each run whose cost in the table is measured and names its machine."""
    found = []
    for system in systems:
        cost = run_cost(system)
        recorded = system.result.get("meta", {}).get("cost") or {}
        if cost is not None and not cost.estimate and isinstance(recorded.get("machine"), dict):
            found.append((system.name, recorded))
    return found


def _grouped(values: dict[str, object]) -> str:
    """'A (x, y); B (z)': each value with the runs that have it."""
    by_value: dict[str, list[str]] = {}
    for name, value in values.items():
        by_value.setdefault(str(value), []).append(name)
    return "; ".join(f"{value} ({', '.join(names)})" for value, names in sorted(by_value.items()))


def measurement_notes(systems: list[System]) -> list[str]:
    """The notes under a table whose measured costs differ in CPU or threads, or were measured on a loaded
    machine; none when they can be read side by side."""
    measured = _measured(systems)
    cpus = {name: cost["machine"].get("cpu", "?") for name, cost in measured}
    threads = {name: thread_count(cost["machine"], cost.get("threads")) for name, cost in measured}
    threads = {name: count for name, count in threads.items() if count is not None}
    loaded = {name: busy_load(cost["machine"], threads.get(name) or 0) for name, cost in measured}
    notes = []
    if len(set(cpus.values())) > 1:
        notes.append(f"measured costs here come from different CPUs: {_grouped(cpus)}; seconds on one CPU are not "
                     "seconds on another.")
    if len(set(threads.values())) > 1:
        notes.append(f"measured costs here come from different thread counts: {_grouped(threads)} thread(s); the "
                     "CPU seconds of the same work change with them.")
    shown = [f"{name} ({_load(cost['machine'])})" for name, cost in measured if loaded[name]]
    if shown:
        notes.append(f"measured on a loaded machine (other work kept more than {OTHERS_BUSY} of a core busy while the "
                     "measured step ran, the machine's busy CPU time less the run's own; runs that did not record it: "
                     "a 1-minute load above half the cores before the run, or after it beyond the run's own threads): "
                     f"{', '.join(shown)}; other work on the cores raises these costs, so they are not comparable with "
                     "costs measured on a quiet machine.")
    return notes


def _load(machine: dict) -> str:
    """'other work 0.80 cores, 2 cores', or for a run that did not record it 'load 3.10 before, 4.50 after, 2
    cores'."""
    if machine.get("others_cores") is not None:
        return f"other work {machine['others_cores']:.2f} cores, {machine.get('cores', '?')} cores"
    load = machine.get("load_average_1min") or {}
    shown = ", ".join(f"{load[when]:.2f} {when}" for when in ("before", "after") if load.get(when) is not None)
    return f"load {shown}, {machine.get('cores', '?')} cores"
