"""How the command line reports a user-facing error: one line on stderr and exit code 2."""
from __future__ import annotations

import functools

import typer

from baselines.core.errors import BaselinesError
from baselines.core.leftovers import temporary_target


def fail(message: str) -> None:
    typer.echo(f"error: {' '.join(str(message).split())}", err=True)
    raise typer.Exit(2)


def guarded(function, *args, **kwargs):
    """Run `function`; user-facing errors, and the operating system's refusals (a read-only folder, a full disk,
    a name too long), become one line on stderr and exit code 2."""
    try:
        return function(*args, **kwargs)
    except BaselinesError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(os_error_line(exc))
    except RecursionError:
        fail("an input is nested too deeply to read (JSON or YAML)")


def reported(command):
    """`command` (a CLI command function) with its user-facing errors, and the operating system's refusals,
    reported as one line on stderr and exit code 2 (see `guarded`): the one error handler of every command."""

    @functools.wraps(command)
    def run(*args, **kwargs):
        return guarded(command, *args, **kwargs)

    return run


def os_error_line(exc: OSError) -> str:
    """'<file>: <reason>' (both files for a rename), or the error itself when it names no file; a hidden temporary
    of this tool is named as the file it stands for, the one the user named."""
    reason = exc.strerror or str(exc)
    files = [temporary_target(str(name)) or str(name) for name in (exc.filename, exc.filename2) if name is not None]
    return f"{' -> '.join(dict.fromkeys(files))}: {reason}" if files else reason
