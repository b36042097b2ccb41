"""Looking methods up in the one registry (baselines/registry/: the methods each discovered benchmark declares,
with their task, name and old names).

Each entry names its class as 'module:Class', imported only when used; a registered class takes its
`task` and `name` from there (baselines.methods.base.Method). Method names are kebab-case; an alias is
an earlier spelling that stays accepted wherever a method name is, saved model folders included.
"""
from __future__ import annotations

from pathlib import Path

from baselines.core.errors import unknown_name
from baselines.registry import DISCOVERED, Registered, get_task, method_entries


def method_table() -> dict[str, dict[str, str]]:
    """Task -> method name -> 'module:Class', for every method of every discovered benchmark."""
    table: dict[str, dict[str, str]] = {}
    for entry in method_entries():
        table.setdefault(entry.task, {})[entry.name] = entry.target
    return table


def registered(task: str, name: str) -> Registered:
    """The entry of method `name` (or one of its aliases) of `task`; an unknown name suggests the closest."""
    get_task(task)
    entries = list(method_entries(task))
    for entry in entries:
        if name in entry.spellings():
            return entry
    raise unknown_name(f"method for task {task!r}", name, [entry.name for entry in entries])


def registration(klass: type) -> Registered | None:
    """The entry whose target is `klass`, or None for a class that is not registered."""
    target = f"{klass.__module__}:{klass.__qualname__}"
    built_in = (entry for benchmark in DISCOVERED.built_in for entry in benchmark.registered())
    found = next((entry for entry in built_in if entry.target == target), None)  # no plugin imported for these
    return found or next((entry for entry in method_entries() if entry.target == target), None)


def method_names(task: str) -> list[str]:
    """The method names of a task (without aliases), sorted."""
    get_task(task)
    return sorted(entry.name for entry in method_entries(task))


def method_aliases(task: str, name: str) -> tuple[str, ...]:
    """The earlier names that `name` also answers to."""
    return registered(task, name).aliases


def canonical_name(task: str, name: str) -> str:
    """The method name that `name` (itself or an alias) stands for."""
    return registered(task, name).name


def method_class(task: str, name: str):
    """The class registered as `name` (or an alias of it) for `task`, imported now."""
    from baselines.core.lazy import import_object

    return import_object(registered(task, name).target)


def saved_model_folder(root: Path, task: str, system: str) -> Path:
    """root/<task>/<system>, or where that system was saved under another spelling of its method.

    A folder named after a method name or alias, alone or as a prefix ('bilstm_crf', 'bilstm_crf-mpnet'),
    is found under either spelling: asking for 'bilstm-crf' finds models/rr/bilstm_crf/ and the reverse.
    The asked-for folder wins when it exists; when none exists, it is the one returned.
    """
    wanted = Path(root) / task / system
    if wanted.exists():
        return wanted
    for other in other_spellings(task, system):
        if (Path(root) / task / other).exists():
            return Path(root) / task / other
    return wanted


def other_spellings(task: str, system: str) -> list[str]:
    """`system` with its leading method name or alias replaced by each other spelling of that method."""
    out = []
    for entry in method_entries(task):
        for spelling in entry.spellings():
            if system == spelling or system.startswith(spelling + "-"):
                rest = system[len(spelling):]
                out += [other + rest for other in entry.spellings() if other != spelling]
    return out
