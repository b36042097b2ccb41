"""`baselines compare --out DIR`: a comparison's Markdown, CSV tables and charts written into DIR, all rendered
before any is written, through the checks of every output folder (core/safe_write.py)."""
from __future__ import annotations

import csv
import io
from pathlib import Path

from baselines.comparison.charts import interval_png, scatter_png, scatter_system
from baselines.comparison.leaderboard import Comparison
from baselines.comparison.markdown import to_markdown
from baselines.comparison.render import COMPARE_MANIFEST, PARTIAL, breakdowns, leaderboard_records
from baselines.core.errors import BaselinesError
from baselines.core.safe_write import write_output_folder


def write_files(comparison: Comparison, out: Path, scatter: str | None = None) -> list[Path]:
    """<task>.md, <task>.csv, breakdown CSVs and PNG charts in `out`; all rendered before any is written."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise BaselinesError(f"--out {out} exists and is not a folder")
    stem = comparison.task.name if comparison.split == comparison.task.eval_split else f"{comparison.task.name}_{comparison.split}"
    records = leaderboard_records(comparison)
    files = {f"{stem}.md": to_markdown(comparison).encode(),
             f"{stem}.csv": _csv(list(records[0]), [list(r.values()) for r in records])}
    for table in breakdowns(comparison):
        files[f"{stem}_{table.slug}.csv"] = _csv(table.columns, table.rows)
    files[f"{stem}.png"] = interval_png(comparison, PARTIAL)
    if comparison.task.grouped and len(comparison.systems) > 1:
        files[f"{stem}_scatter.png"] = scatter_png(comparison, scatter_system(comparison, scatter))
    return write_output_folder(out, files, COMPARE_MANIFEST, "baselines compare")  # every target checked first


def _csv(columns: list[str], rows: list[list]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([["" if v is None else v for v in row] for row in rows])
    return buffer.getvalue().encode()
