"""The CLI reference page, generated from the typer app: `python -m baselines.cli.reference docs/cli.md`.

Every visible command of `baselines` in the order the app declares them, each with its usage, its help, its
arguments and its options (as `--help` shows them, defaults included). Hidden commands and options (earlier
names kept working) are left out. The page is committed; a test fails when it differs from what the app gives.
"""
from __future__ import annotations

import inspect
import sys
from pathlib import Path

import typer

PAGE_TITLE = "# Command-line reference"
REGENERATE = "python -m baselines.cli.reference docs/cli.md"


def cli_reference() -> str:
    """The Markdown reference of every visible command of the `baselines` app."""
    from baselines.cli.commands import app

    root = typer.main.get_command(app)
    lines = [PAGE_TITLE, "", f"Generated from the command-line app by `{REGENERATE}`; do not edit by hand. "
             "`baselines COMMAND --help` prints the same.", ""]
    for command, context in _walk(root, root.context_class(root, info_name="baselines")):
        lines += _section(command, context)
    return "\n".join(lines).rstrip() + "\n"


def _walk(command, context):
    """(command, its context) depth-first in declaration order, hidden commands left out."""
    yield command, context
    if not hasattr(command, "list_commands"):
        return
    for name in command.list_commands(context):
        sub = command.get_command(context, name)
        if sub is not None and not sub.hidden:
            yield from _walk(sub, sub.context_class(sub, info_name=name, parent=context))


def _section(command, context) -> list[str]:
    path = context.command_path
    params = [p for p in command.params if not getattr(p, "hidden", False)]
    arguments = [p for p in params if p.param_type_name == "argument"]
    options = [p for p in params if p.param_type_name != "argument"]
    usage = " ".join([path, *(["[OPTIONS]"] if options else []), *(_argument_usage(p) for p in arguments),
                      *(["COMMAND [ARGS]..."] if hasattr(command, "list_commands") else [])])
    lines = [f"## {path}", "", _text(inspect.cleandoc(command.help or "")), "", "```", usage, "```", ""]
    if arguments:
        lines += _table("argument", [(_argument_usage(p), p.get_help_record(context)[1]) for p in arguments])
    if options:
        lines += _table("option", [p.get_help_record(context) for p in options])
    if hasattr(command, "list_commands"):
        names = [n for n in command.list_commands(context) if not command.get_command(context, n).hidden]
        lines += ["Commands: " + ", ".join(f"`{path} {name}`" for name in names) + ".", ""]
    return lines


def _argument_usage(parameter) -> str:
    name = parameter.metavar or parameter.name.upper()
    name += "..." if parameter.nargs == -1 else ""
    return name if parameter.required else f"[{name}]"


def _table(kind: str, records) -> list[str]:
    rows = [f"| `{name}` | {_text(help_text or '')} |" for name, help_text in records]
    return [f"| {kind} | what it does |", "|---|---|", *rows, ""]


def _text(text: str) -> str:
    """Help text as Markdown text: angle brackets and pipes shown as written, not read as HTML or table cells."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def main(argv: list[str] | None = None) -> int:
    """Write the reference to the file given (default: print it)."""
    argv = sys.argv[1:] if argv is None else argv
    page = cli_reference()
    if not argv:
        sys.stdout.write(page)
        return 0
    Path(argv[0]).write_text(page, encoding="utf-8")
    print(f"wrote {argv[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
