"""CaselawQA (Lawma): Supreme Court Database variables of court opinions, one multiple-choice task each. The
benchmark declares itself here (`BENCHMARK`, found through the legal_baselines.benchmarks entry point); its code
is in this folder, imported only when used."""
from __future__ import annotations

from baselines.core.lazy import lazy_function
from baselines.registry import (Answers, Benchmark, Download, ExternalFormat, Formats, LmEvalExport, Options,
                                 PlainClasses, PublishedFigures, RawText, ReferencesOnly, ScaleData, SpeedTexts,
                                 Subtasks, Task, choice_contents, choice_references)

BENCHMARK = Benchmark(
    task=Task(
        name="caselawqa",
        answer_type="classification",
        description="CaselawQA (Lawma): SCDB/Songer variables of court opinions, one multiple-choice task each",
        load=lazy_function("baselines.tasks.caselawqa.data:load_caselawqa"),
        references=choice_references,
        splits=("train", "val", "test"), eval_split="test", train_split="train",
        metrics=("mean_task_accuracy", "accuracy"), main_metric="mean_task_accuracy",
        default_method="linear",
        per_label=False, breakdowns=("per_supergroup", "per_group"),
        capabilities=(
            choice_contents("opinions"),
            ReferencesOnly(load=lazy_function("baselines.tasks.caselawqa.data:load_caselawqa_references"),
                           whole=lazy_function("baselines.tasks.caselawqa.data:load_caselawqa_ids"),
                           leaves_out="opinion texts"),
            Answers(numbering="each task's labels as Lawma's prompt offers them: letters, or zero-padded numbers "
                              "for tasks of more than 26 choices (7 reads 007)",
                    continuation=lazy_function("baselines.tasks.caselawqa.prompts:continuation_openers")),
            Subtasks(supergroup=lazy_function("baselines.tasks.caselawqa.data:court_of"),
                     group_name="task", supergroup_name="court",
                     bootstrap_unit="items within each CaselawQA task"),
            PublishedFigures(source="baselines.tasks.caselawqa:published.yaml", headline_versus="linear"),
            Download(lazy_function("baselines.tasks.caselawqa.download:download_caselawqa")),
            LmEvalExport(lazy_function("baselines.tasks.caselawqa.export:lm_eval_writer"),
                         prompts=lazy_function("baselines.tasks.caselawqa.export:prompt_texts")),
            RawText(predict=lazy_function("baselines.tasks.caselawqa.predict:corpus_labeller")),
            Formats({"lawma": ExternalFormat(
                read=lazy_function("baselines.tasks.caselawqa.lawma:lawma_predictions"),
                help="a folder of Lawma's released <task>.json responses, or one such file", folder=True,
                whole_records=True,  # joined by the cases' Caselaw Access Project ids, kept with the opinions
                summary=lazy_function("baselines.tasks.caselawqa.lawma:join_summary"))}),
            SpeedTexts(read=lazy_function("baselines.tasks.caselawqa.speed:opinion_chunk_texts"),
                       label="CaselawQA opinion chunks",
                       help="opinion chunks as embed-linear encodes them (128 tokens)", max_seq_length=128),
            ScaleData(write=lazy_function("baselines.tasks.caselawqa.scale:write_scaled_caselawqa"),
                      methods=("linear", "stacked"),
                      full={"examples": 718_971, "test": 143_635, "tasks": 260},
                      layout="Lawma's lawma-tasks parquet files (one folder per task; train, val and test files with "
                             "columns opinion, instruction, question, choices, answer and case_id): copy 1 of the "
                             "cases is the local data, each further copy gives every case a new id and a text opened "
                             "by \"(copy N)\"; task copies take Lawma's courts-of-appeals (songer_*) names; cases "
                             "move from train to test until test holds Lawma's share (143,635 of 718,971)"),
            PlainClasses({"Head": "baselines.tasks.caselawqa.heads:Head"}),
            Options({
                "--subtasks": "comma-separated subset of its task names",
                "--backend": "per-task jobs: loky | threading | sequential | dask",
                "--scheduler": "Dask scheduler for --backend dask, e.g. tcp://HOST:8786",
                "--scatter": "system plotted per task against the reference (default: the best other)",
                "--max-chars": "characters of each opinion kept, from its start (default 24000; 0: whole)",
                "--prompt": "lawma (the default and only one: our prompt is Lawma's)",
            }),
        ),
    ),
    methods={
        "majority": "baselines.tasks.caselawqa.majority:CaselawMajority",
        "linear": "baselines.tasks.caselawqa.linear:CaselawLinear",
        "embed-linear": "baselines.tasks.caselawqa.embed:CaselawEmbedLinear",
        "signals": "baselines.tasks.caselawqa.signals:CaselawSignals",
        "readers": "baselines.tasks.caselawqa.signals:CaselawReaders",
        "stacked": "baselines.tasks.caselawqa.stacked:CaselawStacked",
    },
    former_modules={
        "baselines.methods.caselawqa_common": "baselines.tasks.caselawqa.common",
        "baselines.methods.caselawqa_embed": "baselines.tasks.caselawqa.embed",
        "baselines.methods.caselawqa_features": "baselines.tasks.caselawqa.features",
        "baselines.methods.caselawqa_heads": "baselines.tasks.caselawqa.heads",
        "baselines.methods.caselawqa_linear": "baselines.tasks.caselawqa.linear",
        "baselines.methods.caselawqa_majority": "baselines.tasks.caselawqa.majority",
    },
    fixture=lazy_function("baselines.tasks.caselawqa.fixture:contract_items"),
    quick={"embed-linear": {}},
    listed=20,
)
