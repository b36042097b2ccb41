"""The install route: the README installs torch's CPU build first, pinned as pyproject pins it, and CI runs the
README's install lines themselves, so what CI installs is what a reader installs."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def readme_install_lines() -> list[str]:
    """The lines that .ci/run executes: the README's `pip install torch...` and `pip install -e ...` lines."""
    found = subprocess.run(
        ["bash", "-c", "sed -n '/^## Install/,/^## Get/p' README.md | grep -E '^pip install (torch|-e)' "
                       "| sed 's/ *#.*//'"],
        cwd=REPO, capture_output=True, text=True, check=True)
    return found.stdout.splitlines()


def test_the_readme_installs_the_cpu_build_of_the_pinned_torch_first():
    torch_line, developer_line = readme_install_lines()
    pinned = re.search(r'"torch==([^"]+)"', (REPO / "pyproject.toml").read_text()).group(1)
    assert torch_line == f"pip install torch=={pinned} --index-url https://download.pytorch.org/whl/cpu"
    assert developer_line == 'pip install -e ".[dev]"'


def test_ci_runs_the_readme_install_lines_and_refuses_cuda():
    ci = (REPO / ".ci" / "run").read_text()
    assert "sed -n '/^## Install/,/^## Get/p' README.md | grep -E '^pip install (torch|-e)'" in ci
    assert 'eval "$line"' in ci and "torch.version.cuda" in ci and "nvidia-" in ci
    assert "pip install" not in ci.split("install_lines")[0]  # nothing installed before the README's lines
