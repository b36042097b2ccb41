"""Prices and measured costs read as the cost page says: a user's price rows before the shipped ones, keys matched
on whole name segments, a measured run given a price priced by its tokens, dollars per correct answer over the
correct answers, a measured record used only for exactly its logs, the harness task of a log read exactly, and a
repeated document id refused when prompts are counted."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from baselines.core.errors import BaselinesError
from baselines.runs.prices import TokenPrice, correct_answers, dollars, shipped, with_price_file


def price_file(tmp_path: Path, rows: list[dict]) -> Path:
    path = tmp_path / "mine.yaml"
    path.write_text(json.dumps({"models": rows}))  # JSON is YAML
    return path


# -- a user's rows first; keys on whole name segments --------------------------------------------------------------

def test_a_users_row_prices_a_model_whatever_longer_key_the_shipped_table_has(tmp_path):
    mine = with_price_file(price_file(tmp_path, [{"match": "4o-mini", "input": 9.0, "output": 9.0}]))
    assert mine.token_price("gpt-4o-mini").input == 9.0  # the shipped `gpt-4o-mini` is longer, and loses
    assert mine.token_price("gpt-4o-2024-08-06").input == 2.50  # none of the user's rows: the shipped table


@pytest.mark.parametrize("name, price", [("gpt-4o-2024-08-06", 2.50), ("openai/gpt-4o", 2.50),
                                         ("gpt-4o-mini-2024-07-18", 0.15), ("GPT-4o:batch", 2.50),
                                         ("chatgpt-4o-latest", None), ("gpt-4omni", None)])
def test_price_keys_match_whole_name_segments_the_longest_winning(name, price):
    found = shipped().token_price(name)
    assert (found.input if found else None) == price


def test_parameter_counts_are_matched_as_prices_are():
    from baselines.runs.llm_cost import model_parameters

    assert model_parameters("meta-llama/Meta-Llama-3-8B-Instruct")[0] == 8.03e9
    assert model_parameters("my-llama-3-8b:q4")[0] == 8.03e9
    assert model_parameters("xllama-3-8b")[0] is None and "unknown" in model_parameters("xllama-3-8b")[1]
    assert model_parameters("gpt-4o-mini") == (None, "not published by OpenAI")


# -- a measured run given a price; dollars per correct answer -------------------------------------------------------

MEASURED = {"llm": True, "items": 10, "predict": {"cpu_seconds_per_1000": 3600.0},
            "estimate_from_tokens": {"estimate": True, "basis": "sent", "items": 10, "prompt_tokens_per_item": 1000,
                                     "output_tokens_per_item": 0}}


def test_a_measured_run_given_a_price_is_priced_by_its_tokens():
    given = dataclasses.asdict(TokenPrice(2.0, 4.0, source="--price", date="2026-12-07"))
    priced = dollars({**MEASURED, "price_given": given}, "smollm2", None, False)
    assert (priced.per_1000, priced.basis, priced.estimate) == (pytest.approx(2.0), "tokens of the measured run", True)
    unpriced = dollars(MEASURED, "smollm2", None, False)  # no price given: its measured seconds
    assert unpriced.basis == "vCPU-hour" and unpriced.per_1000 == pytest.approx(shipped().compute["vcpu_hour"]["usd"])


def test_dollars_per_correct_share_the_paid_items_over_the_correct_answers():
    # 10 items answered and paid for; 2 more never answered, counted wrong: 12 scored at 4/12 right
    cost = {"predict": {"cpu_seconds_per_1000": 3600.0}, "items": 10}
    priced = dollars(cost, "ours", correct_answers(4 / 12, 12), False)
    per_item = shipped().compute["vcpu_hour"]["usd"] / 1000
    assert priced.per_correct == pytest.approx(10 * per_item / 4)  # not (12 x per item) / 4
    assert priced.correct == 4 and priced.correct_cell().startswith("$")


def test_a_run_without_a_correct_answer_says_so():
    from baselines.comparison.details import per_correct_cell

    priced = dollars({"predict": {"cpu_seconds_per_1000": 36.0}, "items": 5}, "ours", 0, False)
    assert priced.per_correct is None and priced.correct_cell() == "no correct answer"
    record = {"usd_per_1000": priced.per_1000, "usd_per_correct": None, "correct_answers": 0, "usd_estimated": False}
    assert per_correct_cell(record) == "no correct answer"
    assert per_correct_cell({**record, "usd_per_1000": None, "correct_answers": None}) == "–"


# -- a measured record only for exactly its logs ------------------------------------------------------------------

def write_run(folder: Path) -> list[Path]:
    from baselines.llm.run_record import RECORD, describe_samples

    folder.mkdir(parents=True)
    logs = []
    for task in ("scalr_a", "scalr_b"):
        log = folder / f"samples_{task}_2026-12-07T10-00-00.000001.jsonl"
        log.write_text("".join(json.dumps({"doc_id": k, "doc": {"id": f"{task}-{k}"}}) + "\n" for k in range(3)))
        logs.append(log)
    samples, items = describe_samples(logs, folder)
    (folder / RECORD).write_text(json.dumps({"items": items, "wall_seconds": 60.0, "cpu_seconds": 60.0,
                                             "samples": samples, "command": ["lm_eval"]}))
    return logs


def test_a_record_of_two_logs_is_not_used_for_one_of_them(tmp_path):
    from baselines.llm.run_record import RECORD, record_mismatch
    from baselines.runs.llm_measured import llm_run_cost

    logs = write_run(tmp_path / "model")
    record = tmp_path / "model" / RECORD
    assert record_mismatch(record, tmp_path / "model") is None  # both logs: the run it measured
    said = record_mismatch(record, logs[0])
    assert said is not None and "samples_scalr_b_" in said
    estimate = {"estimate": True, "items": 3}
    cost = llm_run_cost(logs[0], 3, estimate)
    assert "measured_by" not in cost and "samples_scalr_b_" in cost["measured_record_not_used"]


# -- the harness task a log names -----------------------------------------------------------------------------------

def test_a_log_names_its_task_exactly_not_a_task_its_name_begins_with():
    from baselines.runs import prompt_record

    log = "out/model/samples_scalr_legalbench_mc_2024-05-01T12-00-00.123456.jsonl"
    record = {"prompt_tokens": {"scalr_legalbench": {"q1": 10}, "scalr_legalbench_mc": {"q1": 20}}}
    assert prompt_record.sent_prompt_tokens(record, ["q1"], [log]) == (20, "scalr_legalbench_mc")
    assert prompt_record.log_task(log) == prompt_record.log_task(log + ".gz") == "scalr_legalbench_mc"
    assert prompt_record.log_task("results_2024.json") is None


# -- prompt tokens per document --------------------------------------------------------------------------------------

def test_counting_prompts_refuses_a_repeated_document_id(tmp_path):
    from baselines.export.prompt_size import _field_tokens

    documents = tmp_path / "test.jsonl"
    documents.write_text("".join(json.dumps({"id": item, "text": text}) + "\n"
                                 for item, text in (("a", "one"), ("b", "two words"), ("a", "three more words"))))
    with pytest.raises(BaselinesError, match=r"line 3: the id 'a' is repeated"):
        _field_tokens(documents, "text", lambda text: len(text.split()))
    documents.write_text("".join(json.dumps({"id": item, "text": "x y"}) + "\n" for item in "ab"))
    assert _field_tokens(documents, "text", lambda text: len(text.split())) == {"a": 2, "b": 2}
