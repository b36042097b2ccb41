"""Which row of a model table (prices.yaml, llm_params.yaml, a user's price file) names a system: a row's `match`
key (one, or a list) matches a system name (lower case) where it stands as whole name segments, between the ends
of the name or the delimiters `-`, `_`, `:`, `/` and `.`; among the keys that match, the longest wins (the first
row of equal length). So `gpt-4o` matches `gpt-4o-2024-08-06` and `openai/gpt-4o`, not `chatgpt-4o-latest`; and
both `gpt-4o` and `gpt-4o-mini` match `gpt-4o-mini-2024-07-18`, where the longer, `gpt-4o-mini`, wins."""
from __future__ import annotations

import re

DELIMITERS = "-_:/."


def keys(row: dict) -> list[str]:
    """A row's `match` keys (one key, or a list of them)."""
    match = row["match"]
    return [match] if isinstance(match, str) else list(match)


def key_matches(key: str, name: str) -> bool:
    """Whether `key` stands in `name` as whole segments (both lower-cased)."""
    edge = f"(?:^|(?<=[{re.escape(DELIMITERS)}]))"
    end = f"(?=$|[{re.escape(DELIMITERS)}])"
    return re.search(edge + re.escape(key.lower()) + end, name.lower()) is not None


def longest_match(rows, name: str) -> dict | None:
    """The row whose longest key matching `name` is the longest (the first row of equal length), or None."""
    best, found = -1, None
    for row in rows:
        for key in keys(row):
            if len(key) > best and key_matches(key, name):
                best, found = len(key), row
    return found
