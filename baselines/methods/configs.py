"""Named configs of methods: the variants of a method in configs/<task>/, and the method a variant's name belongs to."""
from __future__ import annotations

from pathlib import Path

from baselines.core.config import config_path


def config_variants(task: str, method: str) -> list[Path]:
    """The named variants of a method: configs/<task>/<method>-*.yaml (not those of a longer method name)."""
    from baselines.methods import method_names

    folder = config_path(task, method).parent
    longer = [m for m in method_names(task) if m != method and m.startswith(f"{method}-")]
    return sorted((p for p in folder.glob(f"{method}-*.yaml")
                   if not any(p.name.startswith(f"{m}.") or p.name.startswith(f"{m}-") for m in longer)),
                  key=lambda p: p.stem)


def method_of_config(task: str, config) -> str | None:
    """The method a named variant belongs to, from its name: 'learned-lexical' -> learned, 'bilstm-crf-single-small'
    -> bilstm-crf (the longest method name or alias followed by '-'); None for a file path or no match."""
    from baselines.methods import method_aliases, method_names

    if config is None or Path(config).suffix or len(Path(config).parts) > 1:
        return None
    name = str(config)
    spellings = [(spelling, method) for method in method_names(task)
                 for spelling in (method, *method_aliases(task, method))]
    matches = [(len(spelling), method) for spelling, method in spellings
               if name == spelling or name.startswith(spelling + "-")]
    return max(matches)[1] if matches else None
