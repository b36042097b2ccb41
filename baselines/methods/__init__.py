"""The method registry: task -> method name -> 'module:Class', imported only when used."""
from __future__ import annotations

import importlib

from ..errors import unknown_name
from ..tasks import get_task

METHODS: dict[str, dict[str, str]] = {
    "scalr": {
        "tfidf": "baselines.methods.scalr_similarity:TfidfChooser",
        "embed": "baselines.methods.scalr_similarity:EmbedChooser",
        "random": "baselines.methods.floors:RandomChooser",
        "majority": "baselines.methods.floors:MajorityChooser",
        "learned": "baselines.methods.scalr_learned:LearnedChooser",
    },
    "caselawqa": {
        "majority": "baselines.methods.caselawqa_majority:CaselawMajority",
        "linear": "baselines.methods.caselawqa_linear:CaselawLinear",
        "embed-linear": "baselines.methods.caselawqa_embed:CaselawEmbedLinear",
    },
    "rr": {
        "bilstm_crf": "baselines.methods.rr_bilstm_crf:BiLstmCrfTagger",
        "tfidf_logreg": "baselines.methods.rr_simple:RRTfidfLogreg",
        "majority": "baselines.methods.rr_simple:RRMajority",
    },
}


def method_names(task: str) -> list[str]:
    get_task(task)
    return sorted(METHODS.get(task, {}))


def method_class(task: str, name: str):
    """The class registered as `name` for `task`; an unknown name lists the valid ones."""
    get_task(task)
    registry = METHODS.get(task, {})
    if name not in registry:
        raise unknown_name(f"method for task {task!r}", name, registry)
    module, attr = registry[name].split(":")
    return getattr(importlib.import_module(module), attr)
