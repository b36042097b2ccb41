"""The memory of a command with all its processes: a fake /proc's tree added up, and a real parent whose child
holds the memory."""
from __future__ import annotations

import subprocess
import sys

import pytest

from baselines.core.tree_memory import TreePeak, parent_pids, tree_kib, tree_pids


def _process(proc, pid: int, parent: int, rss_kib: int | None) -> None:
    folder = proc / str(pid)
    folder.mkdir()
    (folder / "stat").write_text(f"{pid} (a (b) c) S {parent} 1 1 0")
    (folder / "status").write_text("Name:\tx\n" + (f"VmRSS:\t{rss_kib} kB\n" if rss_kib is not None else ""))


def test_a_tree_is_its_root_and_every_process_below_it_added(tmp_path):
    for pid, parent, rss in ((10, 1, 100), (11, 10, 200), (12, 11, 300), (13, 1, 5000), (14, 10, None)):
        _process(tmp_path, pid, parent, rss)
    (tmp_path / "self").mkdir()
    assert parent_pids(tmp_path) == {10: 1, 11: 10, 12: 11, 13: 1, 14: 10}  # a name with ")" read from the end
    assert sorted(tree_pids(10, parent_pids(tmp_path))) == [10, 11, 12, 14]
    assert tree_kib(10, tmp_path) == 600  # not the other tree's 5000, a kernel thread's none as 0
    assert tree_kib(99, tmp_path) == 0  # a process that has ended


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_memory_a_child_holds_counts_for_its_parent():
    code = ("import subprocess, sys; subprocess.run([sys.executable, '-c', "
            "'b = bytearray(80_000_000); import time; time.sleep(2.5)'])")
    parent = subprocess.Popen([sys.executable, "-c", code])
    with TreePeak(parent.pid) as tree:
        parent.wait()
    assert tree.peak_mib is not None and tree.peak_mib >= 76  # the child's 80 MB, under its parent
