"""Rhetorical roles (LegalEval 2023 Task 6A): the role of each sentence of an Indian judgment. The benchmark
declares itself here (`BENCHMARK`, found through the legal_baselines.benchmarks entry point); its code is in
this folder, imported only when used."""
from __future__ import annotations

from baselines.core.lazy import lazy_function
from baselines.registry import (Answers, Benchmark, Contents, Documents, Download, LmEvalExport, Options, PublishedFigures,
                                 RawText, SpeedTexts, Task)

BENCHMARK = Benchmark(
    task=Task(
        name="rr",
        answer_type="sequence-labelling",
        description="LegalEval 2023 Task 6A: rhetorical role of each sentence of an Indian judgment",
        load=lazy_function("baselines.tasks.rr.data:load_rr"),
        references=lazy_function("baselines.tasks.rr.data:rr_references"),
        splits=("train", "dev", "test"), eval_split="dev", train_split="train",
        metrics=("weighted_f1", "macro_f1", "accuracy"), main_metric="weighted_f1",
        default_method="bilstm-crf",
        confusion=True, breakdowns=("per_label",),
        capabilities=(
            Contents(units=lazy_function("baselines.tasks.rr.documents:sentence_texts"),
                     document=lazy_function("baselines.tasks.rr.documents:document_key"),
                     identities=lazy_function("baselines.tasks.rr.documents:document_identities"),
                     unit_name="sentences", document_name="documents"),
            Answers(numbering="the role names (FAC, ANALYSIS, ...)",
                    continuation=lazy_function("baselines.tasks.rr.prompts:continuation_openers")),
            Download(lazy_function("baselines.tasks.rr.download:download_rr")),
            Documents(unit="documents"),
            RawText(predict=lazy_function("baselines.tasks.rr.pipeline:corpus_labeller"),
                    end_to_end=lazy_function("baselines.tasks.rr.pipeline:end_to_end_predictions"),
                    segmenter_in_effect=lazy_function("baselines.tasks.rr.pipeline:segmenter_in_effect")),
            LmEvalExport(lazy_function("baselines.tasks.rr.export:lm_eval_writer"),
                         prompts=lazy_function("baselines.tasks.rr.export:prompt_texts")),
            SpeedTexts(read=lazy_function("baselines.tasks.rr.speed:sentence_texts"), label="RR sentences",
                       help="RR training sentences", default=True),
            Options({"--window": "context sentences on each side of the target (default 2)"}),
            PublishedFigures(source="baselines.tasks.rr:published.yaml"),
        ),
    ),
    methods={
        "bilstm-crf": "baselines.tasks.rr.bilstm_crf:BiLstmCrfTagger",
        "bilstm-crf-ft": "baselines.tasks.rr.bilstm_crf_ft:FineTunedTagger",
        "bilstm-crf-ft-ensemble": "baselines.tasks.rr.tuned_ensemble:TunedEnsemble",
        "tfidf-logreg": "baselines.tasks.rr.simple:RRTfidfLogreg",
        "majority": "baselines.tasks.rr.simple:RRMajority",
    },
    aliases={"bilstm-crf": ("bilstm_crf",), "bilstm-crf-ft": ("bilstm_crf_ft",), "tfidf-logreg": ("tfidf_logreg",)},
    former_modules={
        "baselines.methods.rr_bilstm_crf": "baselines.tasks.rr.bilstm_crf",
        "baselines.methods.rr_bilstm_crf_ft": "baselines.tasks.rr.bilstm_crf_ft",
        "baselines.methods.rr_common": "baselines.tasks.rr.common",
        "baselines.methods.rr_ensemble": "baselines.tasks.rr.ensemble",
        "baselines.methods.rr_features": "baselines.tasks.rr.features",
        "baselines.methods.rr_joint_training": "baselines.tasks.rr.joint_training",
        "baselines.methods.rr_network": "baselines.tasks.rr.network",
        "baselines.methods.rr_objectives": "baselines.tasks.rr.objectives",
        "baselines.methods.rr_simple": "baselines.tasks.rr.simple",
        "baselines.methods.rr_trainer": "baselines.tasks.rr.trainer",
        "baselines.methods.rr_tuned_encoder": "baselines.tasks.rr.tuned_encoder",
    },
    fixture=lazy_function("baselines.tasks.rr.fixture:contract_documents"),
    quick={"bilstm-crf": {"max_epochs": 2}, "bilstm-crf-ft": {"max_epochs": 2, "tune_epochs": 1, "max_seq_length": 16},
           "bilstm-crf-ft-ensemble": {"max_epochs": 2, "tune_epochs": 1, "max_seq_length": 16, "members": 2}},
    listed=30,
)
