"""A raw text file as given and as read: a leading BOM dropped, CRLF and CR line endings read as LF, and the
offsets of the read text carried back to the file as given (character offsets of the file decoded as UTF-8,
as Python's `open(path, encoding="utf-8", newline="").read()` gives it)."""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from pathlib import Path

from baselines.core.io import read_text_as_given

BOM = "\ufeff"


@dataclass(frozen=True)
class SourceText:
    given: str  # the file decoded as UTF-8, unchanged
    text: str  # what segmenters and taggers read
    dropped_at: tuple[int, ...]  # for each character `text` drops (BOM, the CR of a CRLF), its position in `text`

    @classmethod
    def of(cls, given: str) -> "SourceText":
        dropped = ([0] if given.startswith(BOM) else []) + [m.start() for m in re.finditer("\r\n", given)]
        text = given[1:] if given.startswith(BOM) else given
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        return cls(given, text, tuple(position - k for k, position in enumerate(dropped)))

    @classmethod
    def read(cls, path: Path) -> "SourceText":
        return cls.of(read_text_as_given(Path(path)))

    def given_offset(self, position: int) -> int:
        """Where the character at `position` of `text` stands in `given`."""
        return position + bisect.bisect_right(self.dropped_at, position)

    def given_span(self, start: int, end: int) -> tuple[int, int]:
        """A [start, end) span of `text` as a span of `given` (its line endings as the file has them)."""
        if end <= start:
            return self.given_offset(start), self.given_offset(start)
        return self.given_offset(start), self.given_offset(end - 1) + 1
