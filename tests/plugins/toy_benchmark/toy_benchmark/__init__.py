"""A toy benchmark in a package of its own: the role a sentence of a judgment plays (its facts, a party's argument,
or the court's ruling), 16 training and 8 test sentences.

The package declares the benchmark here (`BENCHMARK`) and names it in its pyproject.toml as the entry point
`toy` of the group legal_baselines.benchmarks; every `baselines` command then knows the task `toy`. The hooks
are named as 'module:function' and imported only when a command uses them, so discovering the benchmark costs
nothing but this module."""
from __future__ import annotations

from baselines.core.lazy import lazy_function
from baselines.registry import Answers, Benchmark, Contents, Download, LmEvalExport, RawText, Task

BENCHMARK = Benchmark(
    task=Task(
        name="toy",
        answer_type="classification",
        description="Toy: the role of a sentence of a judgment (facts, argument or ruling), lettered A-C",
        load=lazy_function("toy_benchmark.data:load_toy"),
        references=lazy_function("toy_benchmark.data:references"),
        splits=("train", "test"), eval_split="test", train_split="train",
        metrics=("accuracy", "macro_f1"), main_metric="accuracy",
        default_method="tfidf-logreg",
        confusion=True,
        capabilities=(
            Contents(units=lazy_function("toy_benchmark.data:units"),
                     document=lazy_function("toy_benchmark.data:document"),
                     identities=lazy_function("toy_benchmark.data:identities"),
                     unit_name="sentences", document_name="sentences"),
            Answers(numbering="the letters A-C of the roles in the prompt's order (A: facts, B: argument, C: "
                              "ruling)"),
            Download(lazy_function("toy_benchmark.data:download_toy")),
            RawText(predict=lazy_function("toy_benchmark.predict:role_labeller")),
            LmEvalExport(lazy_function("toy_benchmark.export:lm_eval_writer")),
        ),
    ),
    methods={
        "tfidf-logreg": "toy_benchmark.methods:ToyTfidfLogreg",
        "majority": "toy_benchmark.methods:ToyMajority",
    },
    listed=1000,  # after the built-in benchmarks in `baselines ls`
    fixture=lazy_function("toy_benchmark.data:contract_sentences"),
    configs="toy_benchmark:configs",  # its own named configs (configs/toy/ of the host wins)
    docs="toy_benchmark:README.md",
)
