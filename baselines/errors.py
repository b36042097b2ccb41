"""Errors that the CLI turns into a one-line message and exit code 2."""


class BaselinesError(Exception):
    """A problem with the user's input or environment (bad file, unknown name, missing data)."""


class DataError(BaselinesError):
    """A data or predictions file that cannot be read as the expected format."""

    def __init__(self, message: str, path=None, line: int | None = None):
        where = ""
        if path is not None:
            where = f"{path}"
            if line is not None:
                where += f":{line}"
            where += ": "
        super().__init__(where + message)
        self.path = path
        self.line = line


def unknown_name(kind: str, name: str, valid) -> BaselinesError:
    """An error for a name that is not in a registry, listing the valid names."""
    options = ", ".join(sorted(valid)) or "(none)"
    return BaselinesError(f"unknown {kind} {name!r}; valid: {options}")
