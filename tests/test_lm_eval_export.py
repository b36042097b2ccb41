"""`baselines export lm-eval`: tasks run by the real lm-evaluation-harness (offline, with a scripted model),
whose own sample logs `baselines score` then scores with exactly the accuracy and coverage the model was
scripted to reach."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from baselines.cli import app
from baselines.core.errors import BaselinesError, DataError
from baselines.export.lm_eval import export_lm_eval
from baselines.tasks.caselawqa.prompts import caselawqa_document
from baselines.tasks.rr.prompts import rr_documents
from baselines.evaluation.formats import load_predictions
from baselines.api import score
from baselines.runs.run import load_split
from baselines.registry import get_task
from caselawqa_fixtures import write_lawma_tasks, write_normalized

try:
    from lm_eval.api.model import LM
except ImportError:  # the `llm` extra is not installed
    LM = object
needs_harness = pytest.mark.skipif(LM is object, reason="lm-evaluation-harness is not installed (the llm extra)")

LETTERS = "ABCDE"
SCALR = [{"index": str(k), "question": f"Question {k}: may a court do thing {k}?",
          **{f"choice_{c}": f"holding that thing {k}.{c} is allowed" for c in range(5)}, "answer": str(k % 5)}
         for k in range(6)]


class ScriptedLM(LM):
    """Answers each document as scripted by its id: generated text, or the index of the most likely option."""

    def __init__(self, texts: dict[str, str] | None = None, picks: dict[str, int] | None = None):
        super().__init__()
        self.texts, self.picks = texts or {}, picks or {}

    def generate_until(self, requests):
        return [self.texts[request.doc["id"]] for request in requests]

    def loglikelihood(self, requests):
        out = []
        for request in requests:
            chosen = request.idx == self.picks[request.doc["id"]]
            out.append((-0.25 if chosen else -4.0 - request.idx, chosen))
        return out

    def loglikelihood_rolling(self, requests):
        raise NotImplementedError


@pytest.fixture
def offline(tmp_path, monkeypatch):
    """No hub access; the harness's json datasets cached under tmp."""
    import datasets

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "hf-datasets"))


def run_harness(include: Path, tasks: list[str], model: ScriptedLM, out: Path) -> Path:
    """Evaluate like `lm_eval --include_path include --tasks ... --log_samples --output_path out`."""
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    tracker = EvaluationTracker(output_path=str(out))
    results = simple_evaluate(model=model, tasks=tasks, log_samples=True, evaluation_tracker=tracker,
                              task_manager=TaskManager(include_path=str(include), include_defaults=False))
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    for name in results["configs"]:
        tracker.save_results_samples(task_name=name, samples=samples[name])
    return out


def samples_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("samples_*.jsonl"))


def scalr_data(root: Path) -> Path:
    (root / "scalr").mkdir(parents=True)
    (root / "scalr" / "test.jsonl").write_text("".join(json.dumps(row) + "\n" for row in SCALR))
    return root


def gold_letter(k: int) -> str:
    return LETTERS[k % 5]


@needs_harness
def test_scalr_both_variants_scored_from_the_harness_logs(tmp_path, offline):
    data = scalr_data(tmp_path / "data")
    export = export_lm_eval("scalr", data, tmp_path / "export")
    assert export.tasks == ["scalr_mc", "scalr_generate"] and export.n_documents == 6
    texts = {"0": "Holding A fits best. The final answer is A",        # right
             "1": " B",                                               # right
             "2": "Answer: (D)",                                      # wrong (gold C)
             "3": "I cannot tell which holding it is.",               # no answer
             "4": "The final answer is \\boxed{E}.",                  # right
             "5": "The final answer is E"}                            # wrong (gold A)
    run_harness(export.folder, ["scalr_generate"], ScriptedLM(texts=texts), tmp_path / "gen")
    [log] = samples_files(tmp_path / "gen")
    assert log.name.startswith("samples_scalr_generate_")
    result, _ = score("scalr", log, data, name="scripted-generate")
    assert result.n == 6 and result.metrics["accuracy"] == pytest.approx(3 / 6)
    assert result.coverage == pytest.approx(5 / 6)

    picks = {str(k): (k % 5 if k < 4 else (k + 1) % 5) for k in range(6)}  # ids 4, 5 pick a wrong holding
    run_harness(export.folder, ["scalr_mc"], ScriptedLM(picks=picks), tmp_path / "mc")
    result, _ = score("scalr", tmp_path / "mc", data, name="scripted-mc")  # the output folder
    assert result.metrics["accuracy"] == pytest.approx(4 / 6) and result.coverage == 1.0

    (tmp_path / "gen" / "mc").mkdir()  # generations and scored choices in one folder
    samples_files(tmp_path / "mc")[0].rename(tmp_path / "gen" / "mc" / samples_files(tmp_path / "mc")[0].name)
    with pytest.raises(DataError, match="mixed formats"):
        load_predictions(tmp_path / "gen")


def caselawqa_plan(documents: list[dict]) -> tuple[dict[str, str], dict[str, list[bool]]]:
    """Scripted generations per id (right, wrong or none by case number) and the outcome per task."""
    texts, outcomes = {}, {}
    for doc in documents:
        number = int(doc["case_id"].split("-")[1])
        targets, labels = doc["targets"], doc["labels"]
        if number % 3 == 0:
            texts[doc["id"]], right = f" {targets[-1]}", True  # the last of several golds counts too
        elif number % 3 == 1:
            texts[doc["id"]], right = f" {next(l for l in labels if l not in targets)}. Something", False
        else:
            texts[doc["id"]], right = " I would need the full record.", False
        outcomes.setdefault(doc["task"], []).append(right)
    return texts, outcomes


@needs_harness
def test_caselawqa_group_of_tasks_scored_from_the_output_folder(tmp_path, offline):
    data = write_normalized(tmp_path / "data")
    chosen = ["sc_authority", "sc_direction", "sc_state"]
    export = export_lm_eval("caselawqa", data, tmp_path / "export", max_chars=300,
                            load_options={"subtasks": chosen})
    assert list(export.groups) == ["caselawqa", "caselawqa_mc"] and len(export.groups["caselawqa"]) == 3
    assert "caselawqa_mc_sc_direction" in export.tasks
    assert "caselawqa_mc_sc_state" not in export.tasks  # numbered labels: no multiple-choice variant
    documents = [json.loads(line) for file in export.documents for line in (export.folder / file).open()]
    assert all(doc["truncated_chars"] == doc["opinion_chars"] - 300 > 0 for doc in documents)
    texts, outcomes = caselawqa_plan(documents)
    run_harness(export.folder, ["caselawqa"], ScriptedLM(texts=texts), tmp_path / "runs")
    assert [f.name.rsplit("_", 1)[0] for f in samples_files(tmp_path / "runs")] == [
        f"samples_caselawqa_{name}" for name in chosen]
    result, _ = score("caselawqa", tmp_path / "runs", data, subtasks=chosen, name="scripted")
    per_task = {name: sum(rights) / len(rights) for name, rights in outcomes.items()}
    assert result.n == len(documents) == 36
    assert result.metrics["mean_task_accuracy"] == pytest.approx(sum(per_task.values()) / 3)
    assert {name: row["accuracy"] for name, row in result.per_group.items()} == pytest.approx(per_task)
    assert result.coverage == pytest.approx(sum(int(doc["case_id"][-3:]) % 3 != 2 for doc in documents) / 36)

    mc = [doc for doc in documents if doc["task"] in export.covers["caselawqa_mc"]]  # letter-labelled tasks
    assert export.score_options["caselawqa_mc"] == "--only-present"  # full references: compare pairs it
    picks = {doc["id"]: doc["gold_indexes"][-1] if int(doc["case_id"][-3:]) % 2 else
             next(k for k in range(len(doc["labels"])) if k not in doc["gold_indexes"]) for doc in mc}  # even: wrong
    run_harness(export.folder, ["caselawqa_mc"], ScriptedLM(picks=picks), tmp_path / "mc")
    result, _ = score("caselawqa", tmp_path / "mc", data, missing="skip", name="scripted-mc")
    odd = {name: [int(d["case_id"][-3:]) % 2 == 1 for d in mc if d["task"] == name]
           for name in ("sc_authority", "sc_direction")}
    assert result.metrics["mean_task_accuracy"] == pytest.approx(sum(sum(v) / len(v) for v in odd.values()) / 2)
    assert result.coverage == 1.0

    one = samples_files(tmp_path / "runs")[0]  # a folder holding the same samples twice: duplicate ids
    (tmp_path / "runs" / "again").mkdir()
    (tmp_path / "runs" / "again" / one.name).write_text(one.read_text())
    outcome = CliRunner().invoke(app, ["score", "caselawqa", str(tmp_path / "runs"), "--data-dir", str(data),
                                       "--subtasks", ",".join(chosen)])
    assert outcome.exit_code == 2 and "duplicate id" in outcome.output and outcome.output.count("\n") == 1


def rr_data(root: Path) -> Path:
    folder = root / "rr" / "legaleval2023"
    folder.mkdir(parents=True)
    labels = ["PREAMBLE", "FAC", "FAC", "ARG_PETITIONER", "ANALYSIS", "ANALYSIS", "RATIO", "RPC"]
    documents = []
    for doc_id in (11, 12):
        sentences = [f"Sentence {k} of judgment {doc_id}." for k in range(len(labels))]
        text, spans = "", []
        for sentence, label in zip(sentences, labels):
            spans.append((len(text), len(text) + len(sentence), label))
            text += sentence + "\n"
        documents.append({"id": doc_id, "meta": {"group": "Tax"}, "data": {"text": text},
                          "annotations": [{"result": [{"id": f"r{k}", "value": {"start": s, "end": e, "text": text[s:e],
                                                                             "labels": [label]}}
                                                      for k, (s, e, label) in enumerate(spans)]}]})
    for split in ("train", "dev"):
        (folder / f"{split}.json").write_text(json.dumps(documents))
    return root


@needs_harness
def test_rr_sentences_scored_from_the_harness_log(tmp_path, offline):
    data = rr_data(tmp_path / "data")
    export = export_lm_eval("rr", data, tmp_path / "export", window=1)
    documents = [json.loads(line) for line in (export.folder / "rr_documents.jsonl").open()]
    assert [doc["id"] for doc in documents[:2]] == ["11/0", "11/1"] and len(documents) == 16
    texts, right, answered = {}, 0, 0
    for k, doc in enumerate(documents):
        gold = doc["targets"][0]
        other = next(label for label in doc["labels"] if label != gold)
        texts[doc["id"]] = [gold, gold.lower(), f"The marked sentence is {gold}.", other, "unclear"][k % 5]
        right += k % 5 in (0, 1, 2)
        answered += k % 5 != 4
    run_harness(export.folder, ["rr_generate"], ScriptedLM(texts=texts), tmp_path / "runs")
    [log] = samples_files(tmp_path / "runs")
    result, _ = score("rr", log, data, name="scripted")
    assert result.n == 16 and result.metrics["accuracy"] == pytest.approx(right / 16)
    assert result.coverage == pytest.approx(answered / 16)


@needs_harness
def test_real_scalr_questions_through_the_harness(tmp_path, offline, data_dir):
    export = export_lm_eval("scalr", data_dir, tmp_path / "export")
    documents = [json.loads(line) for line in (export.folder / "scalr_documents.jsonl").open()]
    assert len(documents) == export.n_documents == len(load_split(get_task("scalr"), data_dir, "test"))
    picks = {doc["id"]: doc["gold_indexes"][0] if k % 4 else (doc["gold_indexes"][0] + 1) % 5
             for k, doc in enumerate(documents)}  # every fourth question answered wrong
    run_harness(export.folder, ["scalr_mc"], ScriptedLM(picks=picks), tmp_path / "runs")
    result, _ = score("scalr", tmp_path / "runs", data_dir, name="scripted")
    wrong = len(range(0, len(documents), 4))
    assert result.metrics["accuracy"] == pytest.approx(1 - wrong / len(documents)) and result.coverage == 1.0


def test_export_refuses_a_non_empty_folder_and_writes_nothing_on_error(tmp_path, monkeypatch):
    data = scalr_data(tmp_path / "data")
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    runner = CliRunner()
    refused = runner.invoke(app, ["export", "lm-eval", "scalr", "--data-dir", str(data), "--out", str(out)])
    assert refused.exit_code == 2 and "not empty" in refused.output and refused.output.count("\n") == 1
    assert (out / "mine.txt").read_text() == "keep"
    wrong = runner.invoke(app, ["export", "lm-eval", "scalr", "--data-dir", str(data), "--out", str(out / "x"),
                                "--window", "3"])
    assert wrong.exit_code == 2 and "--window applies to rr only" in wrong.output
    not_an_export = runner.invoke(app, ["export", "lm-eval", "scalr", "--data-dir", str(data), "--out", str(out),
                                        "--force"])  # --force never replaces a folder of other files
    assert not_an_export.exit_code == 2 and "not an earlier export" in not_an_export.output
    assert (out / "mine.txt").read_text() == "keep"
    (out / "mine.txt").unlink()
    monkeypatch.setattr("baselines.export.lm_eval.harness_installed", lambda: False)
    assert runner.invoke(app, ["export", "lm-eval", "scalr", "--data-dir", str(data), "--out", str(out)]).exit_code == 0
    forced = runner.invoke(app, ["export", "lm-eval", "scalr", "--data-dir", str(data), "--out", str(out), "--force"])
    assert forced.exit_code == 0, forced.output
    assert "not installed here" in forced.output and "legal-baselines[llm]" in forced.output
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "export_manifest.json", "prompts.json",
                                                     "scalr_documents.jsonl", "scalr_generate.yaml", "scalr_mc.yaml"]
    assert "lm_eval --model hf" in (out / "README.md").read_text() and "scalr_generate" in forced.output

    cases = write_normalized(tmp_path / "cases")
    tasks_file = cases / "caselawqa" / "tasks.json"
    specs = json.loads(tasks_file.read_text())
    specs["sc_state"]["instruction"] = ""  # fails while the documents are being written
    tasks_file.write_text(json.dumps(specs))
    with pytest.raises(BaselinesError, match="no task instruction"):
        export_lm_eval("caselawqa", cases, tmp_path / "partial")
    assert not (tmp_path / "partial").exists() and not list(tmp_path.glob(".partial*"))


def test_caselawqa_prompt_is_lawmas_and_keeps_the_opinions_start(tmp_path):
    data = write_normalized(tmp_path / "data")
    item = next(i for i in load_split(get_task("caselawqa"), data, "test") if i.group == "sc_direction")
    document = caselawqa_document(item, max_chars=100)
    assert document["prompt"] == (f"Decide.\n\n{item.context[:100]}\n\nQuestion: Which outcome?\n"
                                  "A. affirmed\nB. reversed\nC. vacated\nAnswer:")
    assert document["opinion_chars"] == len(item.context) and document["truncated_chars"] == len(item.context) - 100
    whole = caselawqa_document(item, max_chars=0)
    assert item.context in whole["prompt"] and whole["truncated_chars"] == 0
    assert document["id"] == item.id and document["targets"] == [item.labels[item.answer[0]]]
    parquet = write_lawma_tasks(tmp_path / "parquet")  # the official layout carries the instruction per row
    same = next(i for i in load_split(get_task("caselawqa"), parquet, "test")
                if i.group == item.group and i.context == item.context)
    assert caselawqa_document(same, max_chars=100)["prompt"] == document["prompt"]


def test_rr_prompt_shows_the_window_and_marks_the_sentence(tmp_path):
    [doc, _] = load_split(get_task("rr"), rr_data(tmp_path / "data"), "dev")
    documents = rr_documents(doc, window=2)
    prompt = documents[3]["prompt"]
    shown = [k for k in range(8) if f"Sentence {k} of judgment 11." in prompt]
    assert shown == [1, 2, 3, 4, 5] and ">>> Sentence 3 of judgment 11. <<<" in prompt
    assert prompt.count("\n>>> ") == 1 and "ARG_PETITIONER: arguments of the petitioner" in prompt
    assert "NONE" not in prompt  # only the roles of the training data are offered
    assert [d["id"] for d in documents] == [s.id for s in doc.sentences] and documents[0]["targets"] == ["PREAMBLE"]
    assert [k for k in range(8) if f"Sentence {k} of" in rr_documents(doc, window=0)[3]["prompt"]] == [3]


def test_baselines_does_not_import_the_harness():
    code = ("import sys, baselines.cli.commands, baselines.runs.run, baselines.export.lm_eval, baselines.evaluation.predictions; "
            "from typer.testing import CliRunner; CliRunner().invoke(baselines.cli.commands.app, ['ls']); "
            "print('lm_eval' in sys.modules)")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.strip().splitlines()[-1] == "False"


@needs_harness
def test_scalr_in_legalbench_prompt_is_read_with_the_digits_it_offered(tmp_path, offline):
    """`--prompt legalbench`: LegalBench's base prompt (choices 0-4 after one worked example); its logs are read
    with the digits the documents offered, so a letter names nothing there, and continuations are cut."""
    data = scalr_data(tmp_path / "data")
    export = export_lm_eval("scalr", data, tmp_path / "export", prompt="legalbench")
    assert export.tasks == ["scalr_legalbench_mc", "scalr_legalbench"]
    [document] = [json.loads(line) for line in (export.folder / "scalr_legalbench_documents.jsonl").open()][:1]
    assert document["labels"] == list("01234") and document["numbering"] == "legalbench"
    assert document["prompt_short"].startswith("Given the following question presented in a court case")
    assert document["prompt_short"].endswith(f"4: {SCALR[0]['choice_4']}\nAnswer: ")
    assert "Answer: 1\n\nQuestion: Question 0: may a court do thing 0?\nChoices:\n0: holding" in document["prompt_mc"]
    texts = {"0": "0",                                                          # right
             "1": "Answer: 1\n\nQuestion: Whether?\nChoices:\n0: a\nAnswer: 3",  # right, then a continuation
             "2": f'2: "{SCALR[2]["choice_2"]}"',                               # right
             "3": "C",                                                          # a letter: not offered
             "4": f'3: "{SCALR[4]["choice_4"]}"',                               # two different choices
             "5": " 1"}                                                         # wrong (gold 0)
    run_harness(export.folder, ["scalr_legalbench"], ScriptedLM(texts=texts), tmp_path / "gen")
    result, folder = score("scalr", tmp_path / "gen", data, name="legalbench-generate")
    assert result.metrics["accuracy"] == pytest.approx(3 / 6) and result.coverage == pytest.approx(4 / 6)
    samples = [json.loads(line) for line in (folder / "samples.jsonl").open()]
    assert [sample["rule"] for sample in samples] == ["whole", "whole+cut", "leading", None, "leading:several",
                                                      "whole"]

    picks = {str(k): k % 5 if k < 5 else 2 for k in range(6)}
    run_harness(export.folder, ["scalr_legalbench_mc"], ScriptedLM(picks=picks), tmp_path / "mc")
    result, _ = score("scalr", tmp_path / "mc", data, name="legalbench-mc")
    assert result.metrics["accuracy"] == pytest.approx(5 / 6) and result.coverage == 1.0
    with pytest.raises(BaselinesError, match="unknown --prompt 'helm' for scalr; valid: ours, legalbench"):
        export_lm_eval("scalr", data, tmp_path / "other", prompt="helm")


def test_count_tokens_gives_each_run_the_mean_prompt_size_of_its_documents(tmp_path, monkeypatch):
    from baselines.runs import llm_cost

    monkeypatch.setattr(llm_cost, "token_counter", lambda: (len, "characters"))  # a token per character
    plain = export_lm_eval("scalr", scalr_data(tmp_path / "data"), tmp_path / "plain")
    assert plain.prompt_tokens == {} and "prompt tokens" not in (plain.folder / "README.md").read_text()
    scalr = export_lm_eval("scalr", tmp_path / "data", tmp_path / "scalr", count_tokens=True)
    documents = [json.loads(line) for line in (scalr.folder / "scalr_documents.jsonl").open()]
    assert scalr.prompt_tokens == {run: sum(len(doc[field]) for doc in documents) / len(documents)
                                   for run, field in (("scalr_mc", "prompt_mc"), ("scalr_generate", "prompt_generate"))}
    assert scalr.prompt_size().startswith("prompt tokens per document, mean (characters): scalr_mc ")
    assert scalr.prompt_size() in (scalr.folder / "README.md").read_text()

    chosen = ["sc_authority", "sc_direction", "sc_state"]  # a group: the mean over the documents of its tasks
    caselawqa = export_lm_eval("caselawqa", write_normalized(tmp_path / "cdata"), tmp_path / "caselawqa",
                               max_chars=300, load_options={"subtasks": chosen}, count_tokens=True)
    prompts = {Path(file).stem: [len(json.loads(line)["prompt"]) for line in (caselawqa.folder / file).open()]
               for file in caselawqa.documents}
    for group, members in (("caselawqa", chosen), ("caselawqa_mc", ["sc_authority", "sc_direction"])):
        sizes = [size for name in members for size in prompts[name]]
        assert caselawqa.prompt_tokens[group] == pytest.approx(sum(sizes) / len(sizes))


def test_count_tokens_from_the_command_line(tmp_path):
    data = scalr_data(tmp_path / "data")
    said = CliRunner().invoke(app, ["export", "lm-eval", "scalr", "--data-dir", str(data), "--out",
                                    str(tmp_path / "out"), "--count-tokens", "--quiet"])
    assert said.exit_code == 0, said.output
    assert "prompt tokens per document, mean (" in said.output and "scalr_generate " in said.output


def test_a_group_of_one_task_is_said_so():
    from baselines.export.harness import Export

    export = Export("caselawqa", "test", Path("out"), ["a", "b", "c"], groups={"one": ["a"], "two": ["b", "c"]})
    assert export.summary() == "one (1 task), two (2 tasks)"
