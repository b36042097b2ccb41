"""Our reading of the reasoning-outputs corpus (fixtures/reasoning/, see reading_corpus.py): no generation is read
as another answer than the one a careful reader takes (none where the text gives none); those written from our
templates are each read exactly so, and of those written apart from the extractor's code, at most 1 in 20 is
read as no answer where a reader takes one."""
from __future__ import annotations

from collections import Counter

import pytest
from reading_corpus import corpus, ours

CONTEXTS, ROWS = corpus()


def test_the_corpus_covers_three_benchmarks_and_the_styles_of_reasoning_models():
    tasks = Counter(CONTEXTS[row["context"]]["task"] for row in ROWS)
    styles = Counter(row["style"] for row in ROWS)
    assert len(ROWS) >= 300 and set(tasks) == {"scalr", "caselawqa", "rr"} and min(tasks.values()) >= 80
    assert {"rejection only", "correction", "truncated", "continuation", "hedge between choices",
            "hypothetical", "analysis cut off"} <= set(styles)
    assert sum(row["answer"] is None for row in ROWS) >= 100  # generations that give no answer


@pytest.mark.parametrize("row", ROWS, ids=[f"{k}-{row['context']}-{row['style']}" for k, row in enumerate(ROWS)])
def test_each_generation_is_read_as_a_careful_reader_reads_it_or_as_no_answer(row):
    answer, rule = ours(row, CONTEXTS[row["context"]])
    if row["source"] == "templates":
        assert answer == row["answer"], (row["raw"], rule)
    else:
        assert answer in (row["answer"], None), (row["raw"], rule)


def test_generations_written_apart_from_the_code_are_nearly_all_read():
    independent = [row for row in ROWS if row["source"] == "independent"]
    missed = [row["raw"] for row in independent if ours(row, CONTEXTS[row["context"]])[0] != row["answer"]]
    assert len(independent) >= 400 and len(missed) <= len(independent) / 20, missed
