"""Our reading of the reasoning-outputs corpus (fixtures/reasoning/, see reading_corpus.py): no generation is read
as another answer than the one a careful reader takes (none where the text gives none; a row marked disputed says
why its reading is open to question); those written from our templates are each read exactly so, and of those
written apart from the reader's code, few are read as no answer where a reader takes one."""
from __future__ import annotations

from collections import Counter

import pytest
from reading_corpus import SOURCES, corpus, ours

CONTEXTS, ROWS = corpus()


def test_the_corpus_covers_three_benchmarks_and_the_styles_of_reasoning_models():
    tasks = Counter(CONTEXTS[row["context"]]["task"] for row in ROWS)
    styles = Counter(row["style"] for row in ROWS)
    assert len(ROWS) >= 2000 and set(tasks) == {"scalr", "caselawqa", "rr"} and min(tasks.values()) >= 300
    assert {"rejection only", "correction", "truncated", "continuation", "hedge between choices", "hypothetical",
            "analysis cut off", "think_block", "someone_else", "unknown_verdict", "other_language", "checklist",
            "repeated_statements", "reasoning_tags", "small_model_noise"} <= set(styles)
    assert sum(row["answer"] is None for row in ROWS) >= 800  # generations that give no answer
    assert set(SOURCES) == {row["source"] for row in ROWS}


@pytest.mark.parametrize("row", ROWS, ids=[f"{k}-{row['context']}-{row['style']}" for k, row in enumerate(ROWS)])
def test_each_generation_is_read_as_a_careful_reader_reads_it_or_as_no_answer(row):
    answer, rule = ours(row, CONTEXTS[row["context"]])
    if row["source"] == "templates":
        assert answer == row["answer"], (row["raw"], rule)
    elif not row.get("disputed"):
        assert answer in (row["answer"], None), (row["raw"], rule)


@pytest.mark.parametrize("source, share", [("independent", 1 / 20), ("families-a", 1 / 20), ("families-b", 1 / 20),
                                           ("families-c", 1 / 10)])
def test_generations_written_apart_from_the_code_are_nearly_all_read(source, share):
    written = [row for row in ROWS if row["source"] == source]
    missed = [row["raw"] for row in written if ours(row, CONTEXTS[row["context"]])[0] != row["answer"]]
    assert len(written) >= 400 and len(missed) <= len(written) * share, missed
