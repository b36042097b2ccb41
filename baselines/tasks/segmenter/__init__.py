"""Sentence boundaries of the LegalEval judgments: raw text in, sentence character spans out. The benchmark
declares itself here (`BENCHMARK`, found through the legal_baselines.benchmarks entry point); its code is in
this folder, imported only when used. Its items are RR's judgments (`gold.py` reads them through RR's loader:
a dependency listed in the import contracts)."""
from __future__ import annotations

from baselines.core.lazy import lazy_function
from baselines.registry import Benchmark, Contents, Diagnostics, Documents, Download, ItemsFromPredictions, Task

BENCHMARK = Benchmark(
    task=Task(
        name="segmenter",
        answer_type="segmentation",
        description="Sentence boundaries of LegalEval judgments: raw text in, sentence character spans out",
        load=lazy_function("baselines.tasks.segmenter.gold:load_judgments"),
        references=lazy_function("baselines.tasks.segmenter.boundaries:span_references"),
        splits=("train", "dev"), eval_split="dev", train_split="train",
        metrics=("boundary_f1", "boundary_precision", "boundary_recall"), main_metric="boundary_f1",
        default_method="trained",
        per_label=False,
        capabilities=(
            Contents(units=lazy_function("baselines.tasks.rr.documents:sentence_texts"),
                     document=lazy_function("baselines.tasks.rr.documents:document_key"),
                     identities=lazy_function("baselines.tasks.rr.documents:document_identities"),
                     unit_name="sentences", document_name="documents"),
            Download(lazy_function("baselines.tasks.segmenter.gold:download_judgments")),
            Documents(unit="documents"),
            ItemsFromPredictions(expand=lazy_function("baselines.tasks.segmenter.boundaries:expand"),
                                 absent=lazy_function("baselines.tasks.segmenter.boundaries:absent_item"),
                                 name="boundary items"),
            Diagnostics(lazy_function("baselines.tasks.segmenter.gold:boundary_diagnostics")),
        ),
    ),
    methods={
        "rule": "baselines.tasks.segmenter.methods:RuleSegmenterMethod",
        "trained": "baselines.tasks.segmenter.methods:TrainedSegmenterMethod",
    },
    former_modules={"baselines.methods.segmenters": "baselines.tasks.segmenter.methods"},
    fixture=lazy_function("baselines.tasks.rr.fixture:contract_documents"),
    quick={"trained": {"epochs": 1, "val_docs": 1}},
    listed=40,
)
