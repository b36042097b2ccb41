"""Costs from what the file says (its `usage`, else the prompt the export recorded, else our default prompt), a
reasoning field read as a think block, an answer withheld by the content filter, and prices with their dates."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from caselawqa_fixtures import write_normalized
from conftest import run_results
from typer.testing import CliRunner

from baselines.cli import app
from baselines.evaluation.formats import load_predictions
from baselines.export.batch import export_batch

GOLD = ["2", "1", "3", "0", "4"]  # question k of the tiny SCALR file; letters C, B, D, A, E
LETTERS = "ABCDE"



def write_lines(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def chat_line(k: int, content, finish: str = "stop", usage: dict | None = None, **message) -> dict:
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": content, **message},
                         "finish_reason": finish}], **({"usage": usage} if usage else {})}
    return {"id": f"batch_req_{k}", "custom_id": f"scalr-{k}", "error": None,
            "response": {"status_code": 200, "request_id": f"req_{k}", "body": body}}


def score(path: Path, scalr_file: Path, name: str, *options: str):
    return CliRunner().invoke(app, ["score", "scalr", str(path), "--test-file", str(scalr_file), "--name", name,
                                    *options])


def samples_of(name: str) -> list[dict]:
    from baselines.core.paths import results_root

    path = next((results_root() / "scalr" / name).glob("*/samples.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines()]


# -- a reasoning field is a think block --------------------------------------------------------------------------

THOUGHTS = "Option A fails on the statute. The answer is {}. Let me check B once more."


@pytest.mark.parametrize("field", ["reasoning", "reasoning_content"])
def test_a_reasoning_field_is_read_exactly_as_an_inline_think_section(tmp_path, scalr_file, field):
    apart = [chat_line(k, f"The answer is {LETTERS[int(g)]}.", **{field: THOUGHTS.format("E")})
             for k, g in enumerate(GOLD[:3])]
    apart += [chat_line(3, None, "length", **{field: THOUGHTS.format("A") + " So the final answer is A"}),
              chat_line(4, None, "length", **{field: "Let me weigh option"})]
    inline = [chat_line(k, f"<think>{THOUGHTS.format('E')}</think>The answer is {LETTERS[int(g)]}.")
              for k, g in enumerate(GOLD[:3])]
    inline += [chat_line(3, f"<think>{THOUGHTS.format('A')} So the final answer is A", "length"),
               chat_line(4, "<think>Let me weigh option", "length")]
    rows = load_predictions(write_lines(tmp_path / "apart.jsonl", apart), task_name="scalr")
    assert [row["raw"] for row in rows] == [line["response"]["body"]["choices"][0]["message"]["content"]
                                            for line in inline]
    for name, lines in (("apart", apart), ("inline", inline)):
        outcome = score(write_lines(tmp_path / f"{name}.jsonl", lines), scalr_file, name)
        assert outcome.exit_code == 0, outcome.output
    assert [s["answer"] for s in samples_of("apart")] == [s["answer"] for s in samples_of("inline")]
    assert [s["answer"] for s in samples_of("apart")][:3] == GOLD[:3]  # the content, not the thoughts' "E"
    assert run_results("scalr", "apart")["metrics"] == run_results("scalr", "inline")["metrics"]


def test_a_file_of_cut_off_reasoning_lines_is_not_sent_to_the_chat_template(tmp_path, scalr_file):
    lines = [chat_line(k, None, "length", reasoning="First, consider what each option would require of") for k in
             range(5)]
    outcome = score(write_lines(tmp_path / "cut.jsonl", lines), scalr_file, "cut")
    assert "chat_template" not in outcome.output and "chat template" not in outcome.output
    assert outcome.exit_code == 0 and "5 of the 5 were cut off by their token limit" in " ".join(outcome.output.split())
    empty = [chat_line(k, None, "length") for k in range(5)]  # the API returned nothing at all
    refused = score(write_lines(tmp_path / "empty.jsonl", empty), scalr_file, "empty")
    assert refused.exit_code == 2 and "chat" not in refused.output and "max_tokens" in refused.output


def test_an_answer_withheld_by_the_content_filter_counts_as_a_refusal(tmp_path):
    lines = [chat_line(0, None, "content_filter"), chat_line(1, "", "content_filter"),
             chat_line(2, "The answer is C.", "content_filter"), chat_line(3, "The answer is A.")]
    rows = load_predictions(write_lines(tmp_path / "filtered.jsonl", lines), task_name="scalr")
    assert [row.get("refused", False) for row in rows] == [True, True, False, False]
    assert rows.report["refusals"] == 2 and rows[0]["raw"] == ""


# -- tokens from the file's usage --------------------------------------------------------------------------------

def test_usage_is_the_basis_with_reasoning_and_cached_tokens_apart(tmp_path, scalr_file):
    usage = {"prompt_tokens": 1400, "completion_tokens": 2110, "total_tokens": 3510,
             "prompt_tokens_details": {"cached_tokens": 1024}, "completion_tokens_details": {"reasoning_tokens": 2100}}
    inline = [chat_line(k, f"<think>{'hmm ' * 50}</think>The answer is {LETTERS[int(g)]}.", usage=usage)
              for k, g in enumerate(GOLD)]
    apart = [chat_line(k, f"The answer is {LETTERS[int(g)]}.", usage=usage, reasoning="hmm " * 50)
             for k, g in enumerate(GOLD)]
    costs = []
    for name, lines in (("inline", inline), ("apart", apart)):
        outcome = score(write_lines(tmp_path / f"{name}.jsonl", lines), scalr_file, name, "--params", "8B")
        assert outcome.exit_code == 0, outcome.output
        costs.append(run_results("scalr", name)["meta"]["cost"])
        assert "from the file's usage" in " ".join(outcome.output.split())
    assert costs[0]["gpu_seconds_per_1000"] == costs[1]["gpu_seconds_per_1000"]  # where the thoughts sit: no matter
    cost = costs[0]
    assert (cost["basis"], cost["prompt_tokens_per_item"], cost["output_tokens_per_item"]) == ("usage", 1400, 2110)
    assert (cost["reasoning_tokens_per_item"], cost["cached_tokens_per_item"]) == (2100, 1024)
    assert cost["gpu_seconds_per_1000"] == pytest.approx(1000 * 2 * 8e9 * 3510 / (312e12 * 0.4), abs=0.01)


@pytest.mark.parametrize("body, expected", [
    ({"output": [{"type": "message", "content": [{"type": "output_text", "text": "C"}]}],
      "usage": {"input_tokens": 900, "output_tokens": 300, "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 250}}},
     {"prompt": 900, "completion": 300, "reasoning": 250, "cached": 0}),
    ({"choices": [{"index": 0, "text": "C", "finish_reason": "stop"}],  # vllm run-batch, /v1/completions
      "usage": {"prompt_tokens": 700, "completion_tokens": 2, "total_tokens": 702}},
     {"prompt": 700, "completion": 2, "reasoning": None, "cached": None}),
])
def test_usage_is_read_from_every_openai_endpoint(tmp_path, body, expected):
    line = {"custom_id": "scalr-0", "error": None, "response": {"status_code": 200, "body": body}}
    rows = load_predictions(write_lines(tmp_path / "out.jsonl", [line]), task_name="scalr")
    assert rows[0]["usage"] == expected and rows.report["with_usage"] == 1


def test_anthropic_usage_counts_cache_reads_and_writes_in_the_prompt(tmp_path):
    message = {"content": [{"type": "text", "text": "The answer is C."}], "stop_reason": "end_turn",
               "usage": {"input_tokens": 100, "output_tokens": 40, "cache_read_input_tokens": 1200,
                         "cache_creation_input_tokens": 50}}
    line = {"custom_id": "scalr-0", "result": {"type": "succeeded", "message": message}}
    rows = load_predictions(write_lines(tmp_path / "out.jsonl", [line]), task_name="scalr")
    assert rows[0]["usage"] == {"prompt": 1350, "completion": 40, "reasoning": None, "cached": 1200}


# -- the prompt actually sent, as the export recorded it ---------------------------------------------------------

def test_the_prompt_sent_as_exported_is_the_basis_when_the_file_has_no_usage(tmp_path):
    data = write_normalized(tmp_path / "data")
    requests = tmp_path / "batch" / "requests.jsonl"
    requests.parent.mkdir()
    done = export_batch("caselawqa", data, requests, api="openai", model="gpt-4o-mini", max_chars=300)
    record = json.loads(done.prompt_record.read_text())
    assert done.prompt_record == tmp_path / "batch" / "requests.prompts.json"
    assert record["settings"]["max_chars"] == 300 and record["task"] == "caselawqa"
    sent = {json.loads(line)["custom_id"]: json.loads(line) for line in requests.read_text().splitlines()}
    output = write_lines(tmp_path / "batch" / "output.jsonl", [
        {"custom_id": custom, "error": None, "response": {"status_code": 200, "body": {"choices": [
            {"index": 0, "message": {"content": "A"}, "finish_reason": "stop"}]}}} for custom in sent])
    scored = CliRunner().invoke(app, ["score", "caselawqa", str(output), "--data-dir", str(data), "--name", "cut",
                                      "--params", "8B"])
    assert scored.exit_code == 0, scored.output
    cost = run_results("caselawqa", "cut")["meta"]["cost"]
    tokens = record["prompt_tokens"]["batch"]
    assert cost["basis"] == "sent" and cost["prompt_tokens_per_item"] == round(sum(tokens.values()) / len(tokens), 1)
    assert cost["prompt_record"]["settings"]["max_chars"] == 300 and "prompt sent as exported" in " ".join(scored.output.split())
    elsewhere = tmp_path / "output.jsonl"  # the output moved away from its record: our default prompt, said so
    elsewhere.write_text(output.read_text())
    default = CliRunner().invoke(app, ["score", "caselawqa", str(elsewhere), "--data-dir", str(data), "--name",
                                       "default", "--params", "8B"])
    assert default.exit_code == 0 and "our default prompt" in " ".join(default.output.split())
    full = run_results("caselawqa", "default")["meta"]["cost"]
    assert full["basis"] == "default" and full["prompt_tokens_per_item"] > cost["prompt_tokens_per_item"]
    given = CliRunner().invoke(app, ["score", "caselawqa", str(elsewhere), "--data-dir", str(data), "--name",
                                     "given", "--prompts", str(done.prompt_record)])
    assert given.exit_code == 0 and run_results("caselawqa", "given")["meta"]["cost"]["basis"] == "sent"
    export_batch("caselawqa", data, tmp_path / "batch" / "shorter.jsonl", api="openai", model="m", max_chars=200)
    unsure = CliRunner().invoke(app, ["score", "caselawqa", str(output), "--data-dir", str(data), "--name", "two"])
    assert unsure.exit_code == 0  # two exports beside the file, of other prompts: neither is guessed
    assert run_results("caselawqa", "two")["meta"]["cost"]["basis"] == "default"


def test_an_lm_eval_export_records_its_prompts_per_harness_task(tmp_path):
    from baselines.export.lm_eval import export_lm_eval
    from baselines.runs.prompt_record import read_prompt_record, sent_prompt_tokens

    export = export_lm_eval("caselawqa", write_normalized(tmp_path / "data"), tmp_path / "export", max_chars=300)
    record = read_prompt_record(export.folder)
    assert record["settings"] == {"max_chars": 300} and record["task"] == "caselawqa"
    direction, state = (record["prompt_tokens"][f"caselawqa_{name}"] for name in ("sc_direction", "sc_state"))
    assert record["prompt_tokens"]["caselawqa_mc_sc_direction"] == direction  # one document file, one prompt
    found = sent_prompt_tokens(record, list(direction), ["samples_caselawqa_sc_direction_2026-12-07T10-00.jsonl"])
    assert found == (sum(direction.values()) / len(direction), "caselawqa_sc_direction")
    group = sent_prompt_tokens(record, [*direction, *state], [])  # a group's logs: each item where it is
    assert group[0] == (sum(direction.values()) + sum(state.values())) / (len(direction) + len(state))
    assert sent_prompt_tokens(record, ["no-such-item"], []) is None


# -- prices, with their dates ------------------------------------------------------------------------------------

TINY = {"models": [{"match": "tiny-model", "input": 1.0, "output": 4.0, "cached": 0.5, "batch_discount": 0.5,
                    "source": "https://example.org/prices", "date": "2026-01-02"}],
        "compute": {"vcpu_hour": {"usd": 0.036, "source": "https://example.org/cpu", "date": "2026-01-03"},
                    "a100_hour": {"usd": 3.6, "source": "https://example.org/gpu", "date": "2026-01-04"}}}


@pytest.fixture
def tiny_prices(tmp_path):
    from baselines.runs.prices import Prices, with_price_file

    path = tmp_path / "prices.yaml"
    path.write_text(json.dumps(TINY))  # JSON is YAML
    table = with_price_file(path, Prices((), {}))
    return path, table


def test_price_arithmetic_on_a_tiny_table(tiny_prices):
    from baselines.runs.prices import dollars

    table = tiny_prices[1]
    usage = {"estimate": True, "basis": "usage", "items": 10, "prompt_tokens_per_item": 1000,
             "output_tokens_per_item": 500, "cached_tokens_per_item": 400}
    # (600 x $1 + 400 x $0.5 + 500 x $4) / 1M = $0.0028 an item: $2.80 per 1,000; 10 items, 4 right: $0.007 each
    priced = dollars(usage, "my-tiny-model", 4, False, table)
    assert (priced.per_1000, priced.basis, priced.estimate, priced.date) == (pytest.approx(2.8), "tokens", False,
                                                                             "2026-01-02")
    assert priced.per_correct == pytest.approx(0.007)
    assert dollars(usage, "my-tiny-model", 4, True, table).per_1000 == pytest.approx(1.4)  # the batch discount
    counted = dict(usage, basis="default", cached_tokens_per_item=None)  # our default prompt: an estimate
    assert dollars(counted, "my-tiny-model", None, False, table).estimate is True
    assert dollars(counted, "my-tiny-model", None, False, table).per_1000 == pytest.approx(3.0)
    measured = {"predict": {"cpu_seconds_per_1000": 100.0}}  # 100 vCPU-s at $0.036 an hour: $0.001
    assert dollars(measured, "ours", 5, False, table).per_1000 == pytest.approx(0.001)
    assert dollars(measured, "ours", 5, False, table).basis == "vCPU-hour"
    gpu = {"estimate": True, "prompt_tokens_per_item": 10, "output_tokens_per_item": 1, "gpu_seconds_per_1000": 50.0}
    assert dollars(gpu, "some-8b", 10, False, table).per_1000 == pytest.approx(0.05)  # 50 A100-s at $3.6 an hour
    unknown = {"estimate": True, "prompt_tokens_per_item": 10, "output_tokens_per_item": 1,
               "parameters_source": "the model size is unknown"}
    assert dollars(unknown, "mystery-llm", 10, False, table).startswith("no price")


def test_the_shipped_table_has_a_source_and_date_for_every_price():
    from baselines.runs.prices import RATES, shipped

    table = shipped()
    assert all(row["source"].startswith("https://") and len(str(row["date"])) == 10 for row in table.models)
    assert all(table.compute[rate]["source"].startswith("https://") and table.compute[rate]["date"] for rate in RATES)
    assert (table.token_price("gpt-4o-mini-2024-07-18").input, table.token_price("gpt-4o").output) == (0.15, 10.0)
    assert table.token_price("claude-3.5-haiku").output == 4.0 and table.token_price("llama-3-8b") is None


@pytest.mark.parametrize("given, message", [("in=0.15", "needs in= and out="), ("in=1,out=2,in=3", "write it as"),
                                            ("input=1,out=2", "write it as"), ("in=1,out=2,batch=1", "below 1")])
def test_a_malformed_price_is_refused(given, message):
    from baselines.core.errors import BaselinesError
    from baselines.runs.prices import parse_price

    assert parse_price("in=0.15,out=0.6,cached=0.075,batch=0.5", "2026-12-07").cached == 0.075
    with pytest.raises(BaselinesError, match=message):
        parse_price(given, "2026-12-07")


def test_score_gives_dollars_from_the_price_given_and_keeps_it_with_the_run(tmp_path, scalr_file):
    usage = {"prompt_tokens": 1000, "completion_tokens": 500, "prompt_tokens_details": {"cached_tokens": 400}}
    lines = [chat_line(k, f"The answer is {LETTERS[int(g)] if k < 2 else 'B'}.", usage=usage)
             for k, g in enumerate(GOLD)]  # 2 of 5 right
    path = write_lines(tmp_path / "out.jsonl", lines)
    given = score(path, scalr_file, "my-llm", "--price", "in=1,out=4,cached=0.5,batch=0.5")
    assert given.exit_code == 0, given.output
    said = " ".join(given.output.split())  # a batch file at the batch discount: $1.40 per 1,000, $0.0035 per correct
    assert "price: $1.4 per 1,000 items, $0.0035 per correct answer (token prices of" in said and "batch" in said
    assert run_results("scalr", "my-llm")["meta"]["cost"]["price_given"]["input"] == 1.0
    unpriced = score(path, scalr_file, "mystery-llm")
    assert unpriced.exit_code == 0 and "price: no price: no token price for this model" in " ".join(
        unpriced.output.split())
    bad = score(path, scalr_file, "bad", "--price", "in=1")
    assert bad.exit_code == 2 and "needs in= and out=" in bad.output


def test_compare_and_the_headline_give_dollars_with_the_date_of_the_prices(tmp_path, tiny_prices):
    from baselines.comparison.headline import headline_section
    from baselines.comparison.leaderboard import compare
    from baselines.comparison.render import leaderboard_display, leaderboard_records
    from baselines.core.records import Reference
    from baselines.core.paths import results_root
    from baselines.evaluation.scoring import score_predictions
    from baselines.registry import get_task
    from baselines.runs.prices import using
    from baselines.runs.results_store import Variant, references_digest, write_run

    task = get_task("scalr")
    refs = [Reference(id=f"q{k}", gold=(g,), labels=("0", "1", "2", "3", "4")) for k, g in enumerate(GOLD)]
    costs = {"ours": {"items": 5, "predict": {"cpu_seconds_per_1000": 100.0}, "machine": {"cpu": "Test CPU"}},
             "tiny-model": {"estimate": True, "basis": "usage", "items": 5, "prompt_tokens_per_item": 1000,
                            "output_tokens_per_item": 500, "cached_tokens_per_item": 400},
             "mystery-llm": {"estimate": True, "basis": "default", "items": 5, "prompt_tokens_per_item": 10,
                             "output_tokens_per_item": 1, "parameters": None, "parameters_source": "unknown"}}
    for name, cost in costs.items():
        rows = [{"id": r.id, "raw": f"The answer is {'ABCDE'[int(r.gold[0])] if k < 4 else 'A'}"}
                for k, r in enumerate(refs)]  # 4 of 5 right
        result, samples = score_predictions(task, rows, refs, system=name, split=task.eval_split)
        result.producer = "ours" if name == "ours" else "llm"
        result.meta = {"method": "external", "command": f"baselines score scalr {name}.jsonl", "cost": cost}
        variant = Variant(split=task.eval_split, references=references_digest(refs))
        result.variant = variant.to_dict()
        write_run(results_root() / "scalr" / name / variant.slug(), result.to_dict(), samples, None)
    with using(tiny_prices[1]):
        comparison = compare("scalr", against="ours", replicates=200)
        columns, rows = leaderboard_display(comparison)
        cells = {row[1].split(" (")[0]: row[-1] for row in rows}
        records = {record["system"]: record for record in leaderboard_records(comparison)}
        headline = "\n".join(headline_section(task, comparison, None, lambda system: ""))
    assert cells["ours"] == "100 CPU-s · $0.001" and cells["tiny-model"] == "– · $2.8"
    assert cells["mystery-llm"] == "– · no price"  # a row with no price says so
    assert records["tiny-model"]["usd_per_correct"] == pytest.approx(2.8 / 800)  # 4 of 5 right
    assert records["ours"]["price_date"] == "2026-01-03" and records["tiny-model"]["usd_estimated"] is False
    assert "| $ / 1k items (per correct) |" in headline
    assert "| $2.8 ($0.0035) |" in headline and "| no price |" in headline
    assert "API list prices of 2026-01-02; compute rates (vCPU-, A100-hour) of 2026-01-03 and 2026-01-04" in headline
    shipped = CliRunner().invoke(app, ["compare", "scalr", "--against", "ours", "--replicates", "200"])
    assert shipped.exit_code == 0 and "$0.0012" in shipped.output  # 100 vCPU-s at the shipped $0.0425 an hour
    own = CliRunner().invoke(app, ["compare", "scalr", "--against", "ours", "--replicates", "200", "--prices",
                                   str(tiny_prices[0])])
    assert own.exit_code == 0 and "$2.8" in own.output and "$0.001 " in own.output
    broken = tiny_prices[0].with_name("broken.yaml")
    broken.write_text("models: [{match: x}]\n")
    refused = CliRunner().invoke(app, ["compare", "scalr", "--prices", str(broken)])
    assert refused.exit_code == 2 and "needs `match`, and `input` and `output`" in refused.output
