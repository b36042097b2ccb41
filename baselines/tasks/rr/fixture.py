"""A few labelled judgments for the public contract (baselines.testing), read through RR's own loader."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path


def contract_documents(n: int = 6) -> list:
    from baselines.tasks.rr.data import load_rr

    rows = []
    for d in range(n):
        sentences = ["IN THE HIGH COURT OF KARNATAKA", "The appellant was charged with theft.",
                     "The witness saw the accused at night.", "We have considered the evidence.",
                     "Accordingly, the appeal is dismissed."]
        labels = ["PREAMBLE", "FAC", "FAC", "ANALYSIS", "RPC"]
        rows.append({"id": f"doc{n - d}", "sentences": sentences, "labels": labels})  # ids not in sorted order
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "docs.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        return load_rr(None, "train", path)
