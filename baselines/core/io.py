"""Reading and writing files, through one place: the readers of reading.py (text, JSON and JSONL with errors
naming the file and line; strict JSON, each key once) and the writers of safe_write.py (atomic_path,
writable_target, write_json, write_jsonl)."""
from __future__ import annotations

from baselines.core.reading import (  # noqa: F401 - re-exported: the one read path
    open_text, not_utf8, decode_utf8, read_text, read_text_as_given, read_jsonl, read_json, unique_keys, loads_strict,
    start_problem)
from baselines.core.safe_write import (  # noqa: F401 - re-exported: the one write path
    atomic_path, writable_target, write_json, write_jsonl)
