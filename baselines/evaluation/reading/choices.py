"""The choices' texts, for the reader (`baselines.evaluation.reading`): which choice a generation's words
are the text of ("State Agency"), and which choice the words after a label restate ('3: "holding that ..."')."""
from __future__ import annotations

import functools
import re
from collections import Counter

from baselines.evaluation.reading.text import Text
from baselines.evaluation.reading.words import normal_text

QUOTED = re.compile(r"[ \t]*(?:[:—–-][ \t]*)?[(\[\"“'‘]")  # a quotation or bracket right after a label
RESTATED_CHARS = 12  # the shortest choice text, or start of one, that counts as naming that choice after a label


class ChoiceTable:
    """Normal form of a choice text (`normal_text`) -> label, for texts that belong to exactly one choice."""

    def __init__(self, labels: tuple[str, ...], choices: tuple[str, ...]):
        normals = [normal_text(choice) for choice in choices]
        counts = Counter(normals)
        self.labels = {normal: label for normal, label in zip(normals, labels) if normal and counts[normal] == 1}
        self.longest = max(map(len, self.labels), default=0)
        self.texts = [(normal, label) for normal, label in zip(normals, labels) if len(normal) >= RESTATED_CHARS]

    def label_of(self, text: Text, start: int, stop: int) -> str | None:
        """The label whose choice text tokens start..stop-1 are, or None."""
        return self.labels.get(text.normal(start, stop, self.longest)) if self.labels else None

    def restated(self, text: Text, k: int) -> set[str]:
        """The one choice whose text follows label word k on its line, whole or cut short ("3: "holding that
        ..."", "B. State Agency, since ..."); empty when those words are no single choice's text."""
        if not self.labels:
            return set()
        end = text.tokens[k].end
        line = text.raw[end:end + 8 * self.longest + 64].split("\n", 1)[0]
        rest = normal_text(line).rstrip(".… ")
        if rest in self.labels and QUOTED.match(line):  # 'C ("affirmed")': a whole choice text quoted, however short
            return {self.labels[rest]}
        if len(rest) < RESTATED_CHARS:
            return set()
        found = {label for normal, label in self.texts
                 if normal.startswith(rest) or (rest.startswith(normal) and not rest[len(normal)].isalnum())}
        return found if len(found) == 1 else set()


@functools.lru_cache(maxsize=256)
def choice_table(labels: tuple[str, ...], choices: tuple[str, ...]) -> ChoiceTable:
    if choices and len(choices) != len(labels):
        raise ValueError(f"{len(choices)} choice texts for {len(labels)} labels; they must be aligned")
    return ChoiceTable(labels, choices)
