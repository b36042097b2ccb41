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
    """An error for a name that is not in a registry, listing the valid names and the closest of them."""
    options = sorted(valid)
    close = similar_names(name, options)
    hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
    return BaselinesError(f"unknown {kind} {name!r}; valid: {', '.join(options) or '(none)'}{hint}")


def similar_names(name: str, options: list[str], limit: int = 3) -> list[str]:
    """The options closest to `name` (difflib), ignoring case and '-' versus '_'."""
    import difflib

    def plain(text: str) -> str:
        return str(text).lower().replace("_", "-")

    by_plain = {plain(option): option for option in options}
    return [by_plain[m] for m in difflib.get_close_matches(plain(name), list(by_plain), n=limit, cutoff=0.6)]
