"""MkDocs hook: the per-benchmark pages of the nav are found, not listed. The "Benchmarks" section holds
docs/benchmarks/<task>.md and "Results (generated)" docs/results/<task>.md, for every benchmark the registry
discovers (in its order; other pages there after them, by name), so a new benchmark adds its pages to the site
with no edit to mkdocs.yml."""
from __future__ import annotations

from pathlib import Path

SECTIONS = {"Benchmarks": ("benchmarks", []), "Results (generated)": ("results", ["index.md", "headline.md"])}


def on_config(config):
    from baselines.registry import TASKS

    docs = Path(config["docs_dir"])
    for item in config["nav"]:
        if isinstance(item, dict) and len(item) == 1:
            title = next(iter(item))
            if title in SECTIONS:
                folder, first = SECTIONS[title]
                item[title] = section_pages(docs / folder, folder, first, list(TASKS))
    return config


def section_pages(folder: Path, prefix: str, first: list[str], tasks: list[str]) -> list[str]:
    """The section's pages: `first`, then each task's page in the registry's order, then any other page by name."""
    names = [name for name in first if (folder / name).is_file()]
    names += [f"{task}.md" for task in tasks if (folder / f"{task}.md").is_file() and f"{task}.md" not in names]
    names += sorted(path.name for path in folder.glob("*.md") if path.name not in names)
    return [f"{prefix}/{name}" for name in names]
