"""Commands as the results pages show them: the folders of the machine that ran them replaced by placeholders.

A run records its command line as typed (`meta.command`), with that machine's folders in it. A page shows it
with the benchmark data folder as `DATA` (a file under it as `DATA/...`), and every other path by the
placeholder of what it is, keeping only its last part (`ENCODERS/all-mpnet-base-v2`), so no page names a
folder of the machine, or one beside the checkout, and the same run always shows the same command.
"""
from __future__ import annotations

import os
import shlex

PLACEHOLDERS = {
    "DATA": "the benchmark data folder: `--data-dir DATA`, or `BASELINES_DATA=DATA` with the option left out",
    "ENCODERS": "a folder holding local sentence-encoder folders (sentence-transformers format), "
                "e.g. `ENCODERS/all-mpnet-base-v2`",
    "MODELS": "a folder of saved models (`--models-dir MODELS`; `--model MODELS/NAME` is one model folder)",
    "RESULTS": "the results folder (`--results-dir RESULTS`, or `BASELINES_RESULTS`)",
    "FILES": "a folder of your own files: predictions, LLM outputs, harness output folders, test files, configs",
}
FOLDER_OPTIONS = {"--data-dir": "DATA", "--models-dir": "MODELS", "--results-dir": "RESULTS"}  # value: the folder
ENTRY_OPTIONS = {"--encoder": "ENCODERS", "--model": "MODELS"}  # value: one entry of such a folder
UNSHOWN_FLAGS = {"--force", "--quiet"}  # replacing an earlier run, or printing no progress, changes nothing in it


def public_command(command: str, data: str | None = None) -> str:
    """`command` (as recorded: arguments joined by spaces) with its paths replaced by placeholders and without
    `--force` and `--quiet`; `data` is the data folder the run read (`meta.data`), so paths under it become `DATA/...`."""
    tokens, shown, option = [t for t in command.split() if t not in UNSHOWN_FLAGS], [], None
    for token in tokens:
        name, equals, value = token.partition("=") if token.startswith("--") else ("", "", "")
        if name and equals:  # --option=value
            shown.append(f"{name}={_value(name, value, data)}")
        elif option is not None:
            shown.append(_value(option, token, data))
        else:
            shown.append(_value(None, token, data) if not token.startswith("-") else token)
        option = token if token.startswith("--") and not equals else None
    return " ".join(shlex.quote(token) for token in shown)


def _value(option: str | None, value: str, data: str | None) -> str:
    """One argument or option value with its path replaced (a non-path value is kept)."""
    if option in FOLDER_OPTIONS:
        return FOLDER_OPTIONS[option]
    if option == "--set":
        key, equals, setting = value.partition("=")
        kind = "ENCODERS" if "encoder" in key else "FILES"
        return f"{key}={_setting(setting, kind, data)}" if equals else value
    if option == "--encoder" and not _surely_path(value):
        return value  # a hub name ("org/name") stays as given
    if not _path_like(value):
        return value
    return _placeholder(value, ENTRY_OPTIONS.get(option or "", "FILES"), data)


def _setting(value: str, kind: str, data: str | None) -> str:
    """A --set value: one path, or a YAML list of paths ([a,b]), each replaced."""
    listed = value.startswith("[") and value.endswith("]")
    items = value[1:-1].split(",") if listed else [value]
    shown = [_placeholder(item.strip(), kind, data) if _path_like(item.strip()) else item for item in items]
    return f"[{','.join(shown)}]" if listed else shown[0]


KEPT_FOLDERS = ("docs/results/llm-runs/",)  # files of this repository, shown as they are: anyone can run them


def _placeholder(path: str, kind: str, data: str | None) -> str:
    """DATA/<path under the data folder>, a file of the repository as it is, else KIND/<last part>."""
    if not os.path.isabs(path) and os.path.normpath(path).replace(os.sep, "/").startswith(KEPT_FOLDERS):
        return path
    if data:
        inside = _under(path, data)
        if inside is not None:
            return f"DATA/{inside}"
    last = os.path.basename(os.path.normpath(path)) or "x"
    return f"{kind}/{last}"


def _under(path: str, folder: str) -> str | None:
    """`path` relative to `folder` when it lies strictly inside it (by their text: runs record paths as given)."""
    path, folder = os.path.normpath(os.path.expanduser(path)), os.path.normpath(os.path.expanduser(folder))
    if os.path.isabs(path) != os.path.isabs(folder):
        return None
    relative = os.path.relpath(path, folder)
    return None if relative == ".." or relative.startswith(".." + os.sep) or relative == "." else relative


def _path_like(value: str) -> bool:
    return bool(value) and "://" not in value and ("/" in value or value.startswith(("~", ".")))


def _surely_path(value: str) -> bool:
    """A path for certain: absolute, relative to here or home, or of more than two parts (a hub name has two)."""
    return value.startswith(("/", ".", "~")) or value.count("/") > 1


def used_placeholders(texts: list[str]) -> list[str]:
    """The placeholders that occur in `texts`, in the order of PLACEHOLDERS."""
    words = {word.strip("`'\"[],").split("/")[0] for text in texts for word in text.replace("=", " ").split()}
    return [name for name in PLACEHOLDERS if name in words]
