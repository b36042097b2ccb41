"""What other work took during a measured step (machine.others_cores), and the loaded-machine rule that reads it."""
from __future__ import annotations

import os

from baselines.core import machine
from baselines.core.machine import OTHERS_BUSY, busy_jiffies, busy_load, others_cores

# /proc/stat's aggregate line: user nice system idle iowait irq softirq steal guest guest_nice; per-core lines after
BEFORE = "cpu  1000 50 300 9000 40 10 20 5 0 0\ncpu0 500 25 150 4500 20 5 10 3 0 0\nintr 1 2 3\n"
AFTER = "cpu  1600 50 500 9100 90 20 30 5 7 0\ncpu0 900 25 250 4550 45 10 15 3 7 0\nintr 4 5 6\n"


def test_busy_jiffies_add_user_nice_system_irq_softirq_steal_of_the_aggregate_line():
    assert busy_jiffies(BEFORE) == 1000 + 50 + 300 + 10 + 20 + 5  # idle, iowait and guest (within user) left out
    assert busy_jiffies(AFTER) - busy_jiffies(BEFORE) == 600 + 200 + 10 + 10
    assert busy_jiffies("intr 1 2 3\n") is None


def test_others_cores_is_the_machine_busy_time_less_our_own_per_wall_second(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    ticks = machine._ticks()
    machine_busy = (busy_jiffies(AFTER) - busy_jiffies(BEFORE)) / ticks
    own = machine_busy / 2  # this process tree took half of what the cores were busy
    expected = round((machine_busy - own - 2 * 2 / ticks) / 4.0, 2)
    assert others_cores(machine_busy, own, 4.0) == expected > 0
    assert others_cores(machine_busy, machine_busy + 1, 4.0) == 0.0  # ours alone: never below nothing
    assert others_cores(None, own, 4.0) is None  # no /proc/stat


def test_the_readings_of_proc_stat_here_rise_or_are_absent():
    first = machine.busy_cpu_seconds()
    assert first is None or machine.busy_since(first) >= 0


def test_low_others_cores_is_not_loaded_whatever_the_load_average_says():
    lagging = {"cores": 2, "load_average_1min": {"before": 1.32, "after": 1.9}, "others_cores": 0.05}
    assert busy_load(lagging, threads=1) is None
    assert busy_load({**lagging, "others_cores": OTHERS_BUSY}) is None


def test_high_others_cores_is_loaded_whatever_the_load_average_says():
    busy = {"cores": 2, "load_average_1min": {"before": 0.1, "after": 0.2}, "others_cores": 0.8}
    reason = busy_load(busy, threads=1)
    assert reason and "0.80 cores" in reason and str(OTHERS_BUSY) in reason


def test_a_record_without_others_cores_falls_back_on_the_load_average():
    for record in ({"cores": 2, "load_average_1min": {"before": 1.32, "after": 1.9}},
                   {"cores": 2, "load_average_1min": {"before": 1.32, "after": 1.9}, "others_cores": None}):
        assert "1-minute load 1.32 before it" in busy_load(record, threads=1)
        assert busy_load({**record, "load_average_1min": {"before": 0.4, "after": 1.3}}, threads=1) is None


def test_a_run_records_what_other_work_took_during_its_prediction(monkeypatch):
    from baselines.runs import cost

    readings = iter([100.0, 130.0])  # the machine busy 30 CPU-seconds over the prediction step

    def busy() -> float:
        return next(readings)

    monkeypatch.setattr(machine, "busy_cpu_seconds", busy)
    monkeypatch.setattr(cost, "busy_cpu_seconds", busy)
    clock = cost.RunClock()
    with clock.predict:
        pass
    assert clock.predict.machine_busy == 30.0
    recorded = clock.record(items=1)["machine"]["others_cores"]
    assert recorded == others_cores(30.0, clock.predict.cpu, clock.predict.wall) > OTHERS_BUSY
