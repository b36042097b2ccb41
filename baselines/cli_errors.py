"""How the command line reports a user-facing error: one line on stderr and exit code 2."""
from __future__ import annotations

import typer

from .errors import BaselinesError


def fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def guarded(function, *args, **kwargs):
    """Run `function`; user-facing errors become one line on stderr and exit code 2."""
    try:
        return function(*args, **kwargs)
    except BaselinesError as exc:
        fail(str(exc))
    except (FileNotFoundError, PermissionError, IsADirectoryError) as exc:
        fail(f"{exc.filename}: {exc.strerror}")
