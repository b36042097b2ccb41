"""SCALR (LegalBench): the holding of a question presented to the U.S. Supreme Court, among five. The benchmark
declares itself here (`BENCHMARK`, found through the legal_baselines.benchmarks entry point); its code is in
this folder, imported only when used."""
from __future__ import annotations

from baselines.core.lazy import lazy_function
from baselines.registry import (Answers, Benchmark, Download, LmEvalExport, Options, PublishedFigures, Task,
                                 choice_contents, choice_references)

BENCHMARK = Benchmark(
    task=Task(
        name="scalr",
        answer_type="multiple-choice",
        description="SCALR (LegalBench): pick the holding of a Supreme Court question among five",
        load=lazy_function("baselines.tasks.scalr.data:load_scalr"),
        references=choice_references,
        splits=("test",), eval_split="test", train_split=None,
        metrics=("accuracy", "balanced_accuracy"), main_metric="accuracy",
        default_method="tfidf",
        capabilities=(
            choice_contents("questions"),
            Answers(aliases={letter: str(i) for i, letter in enumerate("ABCDE")},
                    numbering="the letters A-E or LegalBench's digits 0-4, both zero-based in the data's order (0 "
                              "and A are choice_0)",
                    continuation=lazy_function("baselines.tasks.scalr.prompts:continuation_openers")),
            Download(lazy_function("baselines.tasks.scalr.download:download_scalr")),
            LmEvalExport(lazy_function("baselines.tasks.scalr.export:lm_eval_writer"),
                         prompts=lazy_function("baselines.tasks.scalr.export:prompt_texts")),
            Options({"--prompt": "ours (default: holdings lettered A-E) | legalbench (LegalBench's base prompt: "
                                 "holdings numbered 0-4 after one worked example)"}),
            PublishedFigures(source="baselines.tasks.scalr:published.yaml",
                             construction_systems=("learned", "tfidf-least")),  # they use the distractors' TF-IDF
        ),
    ),
    methods={
        "tfidf": "baselines.tasks.scalr.similarity:TfidfChooser",
        "embed": "baselines.tasks.scalr.similarity:EmbedChooser",
        "random": "baselines.methods.floors:RandomChooser",
        "majority": "baselines.methods.floors:MajorityChooser",
        "learned": "baselines.tasks.scalr.learned:LearnedChooser",
    },
    former_modules={
        "baselines.methods.scalr_features": "baselines.tasks.scalr.features",
        "baselines.methods.scalr_learned": "baselines.tasks.scalr.learned",
        "baselines.methods.scalr_similarity": "baselines.tasks.scalr.similarity",
    },
    listed=10,
    fixture=lazy_function("baselines.tasks.scalr.fixture:contract_items"),
)
