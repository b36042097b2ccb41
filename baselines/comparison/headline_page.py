"""The headline page and the README block it fills: one section per benchmark, the placeholders the sections
use, and the command that regenerates them. A regeneration of some tasks only (`compare --all --task T`)
keeps the other tasks' sections as the earlier headline page holds them."""
from __future__ import annotations

from pathlib import Path

from baselines.comparison.headline import headline_section
from baselines.comparison.leaderboard import Comparison
from baselines.comparison.placeholders import PLACEHOLDERS, used_placeholders
from baselines.comparison.published import published_figures
from baselines.core.errors import BaselinesError
from baselines.core.io import read_text_as_given, writable_target
from baselines.registry import TASKS, LmEvalExport

HEADLINE_START, HEADLINE_END = "<!-- headline:start -->", "<!-- headline:end -->"
REGENERATE = "baselines compare --all --out docs/results --readme README.md"
GENERATED = f"Generated from the runs by `{REGENERATE}`; do not edit by hand."
WIDE = "---\nhide:\n  - toc\n---\n"  # MkDocs front matter: no table of contents beside the tables, so they get its width
PLACEHOLDERS_LINE = "Placeholders in the commands: "


def headline(comparisons: dict[str, Comparison | None], shown_command, kept: dict[str, list[str]] | None = None) -> str:
    """The headline body: one section per benchmark an LLM can be run on, or that has LLM figures; a task not in
    `comparisons` keeps its section from `kept` (task name -> lines), if it had one."""
    lines = []
    for task in TASKS.values():
        if task.name not in comparisons:
            lines += (kept or {}).get(task.name, [])
            continue
        comparison, published = comparisons[task.name], published_figures(task)
        llm_runs = comparison is not None and any(s.producer == "llm" for s in comparison.systems)
        if task.capability(LmEvalExport) is not None or published is not None or llm_runs:
            lines += headline_section(task, comparison, published, shown_command)
    used = used_placeholders(lines)
    lines += [PLACEHOLDERS_LINE + "; ".join(f"`{name}`, {PLACEHOLDERS[name]}" for name in used) + "."
              if used else "", "", f"Regenerate with `{REGENERATE}`."]
    return "\n".join(lines).strip() + "\n"


def headline_page(body: str) -> bytes:
    return f"{WIDE}\n# Headline\n\n{GENERATED}\n\n{body}".encode()


def sections(page: str) -> dict[str, list[str]]:
    """Per task, the lines of its section in a headline page this program wrote (from its `### <task> (`
    heading to the next heading, or to the placeholders line)."""
    found, current = {}, None
    for line in page.split("\n"):
        if line.startswith("### "):
            name = line[4:].split(" (", 1)[0]
            current = found.setdefault(name, []) if name in TASKS else None
        elif line.startswith((PLACEHOLDERS_LINE, "Regenerate with `")):
            current = None
        if current is not None:
            current.append(line)
    return found


def kept_sections(out: Path, regenerated: list[str]) -> dict[str, list[str]]:
    """The sections of the tasks not regenerated, from the headline page in `out` (required)."""
    page = Path(out) / "headline.md"
    if not page.is_file() or page.is_symlink() or GENERATED not in page.read_text(encoding="utf-8"):
        raise BaselinesError(f"--task regenerates some tasks and keeps the others' headline sections from {page}, "
                             "which is not a headline this program wrote: run `compare --all` without --task first")
    found = sections(page.read_text(encoding="utf-8"))
    return {name: lines for name, lines in found.items() if name not in regenerated}


def index_page(others: list[tuple[str, str]] = ()) -> str:
    """What the generated pages hold, and the placeholders their commands use; `others`, (file name, title) of the
    folder's pages that other commands write (a scale page), listed after the benchmarks'."""
    pages = "\n".join([*(f"- [{task.name}]({task.name}.md): {task.description}" for task in TASKS.values()),
                        *(f"- [{title}]({name})" for name, title in others)])
    legend = "\n".join(f"- `{name}`: {meaning}" for name, meaning in PLACEHOLDERS.items())
    return (f"# Results\n\n{GENERATED}\n\n- [Headline](headline.md): per benchmark, our best method against "
            f"each LLM run on the same items, with the paired difference and its interval.\n{pages}\n\n"
            "Each row is one run, shown with the command that wrote it. Intervals are bootstrap 95% intervals; "
            "Δ is the paired difference to the reference row on the items both were scored on.\n\n"
            f"## Placeholders\n\nCommands show no folder of the machine that ran them:\n\n{legend}\n")


def with_headline(text: str, body: str, where: str) -> str:
    """`text` with the lines between its HEADLINE_START and HEADLINE_END lines replaced by `body`."""
    lines = text.split("\n")
    starts = [k for k, line in enumerate(lines) if line.strip() == HEADLINE_START]
    ends = [k for k, line in enumerate(lines) if line.strip() == HEADLINE_END]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise BaselinesError(f"{where} needs one line {HEADLINE_START} and, after it, one line {HEADLINE_END} "
                             "around its headline block")
    return "\n".join([*lines[:starts[0] + 1], "", body.rstrip("\n"), "", *lines[ends[0]:]])


def checked_readme(readme: Path | None) -> str | None:
    """The text of --readme, checked before any work: a regular file (a link to one is followed: the user named
    it) with one headline block."""
    if readme is None:
        return None
    readme = Path(readme)
    writable_target(readme)
    if not readme.is_file():
        raise BaselinesError(f"--readme {readme} is not a file")
    text = read_text_as_given(readme)  # not UTF-8: refused naming the line and the byte
    with_headline(text, "", str(readme))
    return text
