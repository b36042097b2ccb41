"""Sentence encoding with ONNX Runtime: the encoder's transformer exported once to ONNX (fp32, or int8 weights
quantised per channel), then mean pooling and L2 normalisation in numpy, as sentence-transformers does.

Backends: `onnx-int8`, `onnx` (fp32) and `torch` (sentence-transformers itself); `auto` (the default) is
onnx-int8 for an encoder whose int8 vectors stay close to its fp32 ones (MiniLM), else onnx. Exported models
are kept under <cache>/onnx/<encoder key>-<precision>/model.onnx, and a copy travels in every model folder
trained with them (encoder_bundle).
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from baselines.core import progress
from baselines.core.errors import BaselinesError
from baselines.core.paths import cache_root
from baselines.core.progress import bar

logger = logging.getLogger(__name__)
BACKENDS = ("auto", "torch", "onnx", "onnx-int8")
CONCRETE = ("torch", "onnx", "onnx-int8")
DEFAULT_BACKEND = "auto"  # onnx-int8 where its vectors stay close to fp32 (FIDELITY), else onnx (fp32)
FIDELITY = 0.98  # least mean cosine of int8 with fp32 vectors on CHECK_TEXTS for `auto` to choose int8
CHECK_TEXTS = (  # a fixed probe of the int8 export: legal sentences of many lengths and shapes
    "The appeal is dismissed.", "Heard learned counsel for the parties.", "No order as to costs.",
    "The petitioner was appointed as a constable in the year 1998 and was dismissed from service in 2004.",
    "Section 302 of the Indian Penal Code reads as follows:",
    "Whether the High Court was justified in reversing the order of acquittal is the question before us.",
    "Learned counsel for the respondent submitted that the notification was issued without jurisdiction "
    "and that the assessee was entitled to the exemption claimed for the relevant assessment years.",
    "In our opinion, the Tribunal erred in law in holding that the transaction amounted to a sale.",
    "The accused, who was found in possession of the stolen articles, offered no explanation for it.",
    "Holding that the Fourth Amendment does not require a warrant for the search of a vehicle.",
    "Whether a state may tax the income of a nonresident earned within its borders.",
    "1. Leave granted.", "(ii) the date of the agreement;", "ORDER", "JUDGMENT",
    "The plaintiff filed the suit for specific performance of the agreement of sale dated 12.03.1991.",
    "We find no merit in this appeal, which is accordingly dismissed with costs quantified at Rs. 10,000.",
    "The evidence of PW-1 and PW-2 is consistent and inspires confidence.",
    "Article 14 forbids class legislation but does not forbid reasonable classification.",
    "The sentence of imprisonment for life is maintained, and the fine is reduced to Rs. 5,000.",
    "Whereas the respondent contends that the contract was frustrated by the supervening event.",
    "It is well settled that the burden of proving the exception lies on the accused.",
    "The trial court, relying upon the dying declaration, convicted the appellant under Section 304-B.",
    "The matter is remitted to the High Court for fresh consideration in accordance with law.",
)
PRECISIONS = {"onnx": "fp32", "onnx-int8": "int8-per-channel"}
INSTALL = "pip install onnxruntime onnx (dependencies of this package)"
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def resolve_backend(encoders: list, backend: str) -> str:
    """`backend`, with `auto` made concrete: onnx-int8 when every encoder's int8 vectors keep a mean cosine
    of at least FIDELITY with its fp32 vectors on CHECK_TEXTS, else onnx (fp32, which matches torch)."""
    if check_backend(backend) != "auto":
        return backend
    for encoder in encoders:
        cosines = int8_fidelity(encoder)
        if cosines["mean"] < FIDELITY:
            logger.warning("int8 encoding of %s is too lossy (cosine with fp32: mean %.3f, min %.3f): "
                           "encoding with onnx (fp32)", encoder or "minilm", cosines["mean"], cosines["min"])
            return "onnx"
    return "onnx-int8"


def int8_fidelity(encoder: str | None) -> dict:
    """{"mean", "min"} cosine of the int8 export's vectors with the fp32 export's on CHECK_TEXTS, measured once
    and kept in the int8 export's export.json (which travels with model folders)."""
    record = ensure_exported(encoder, "onnx-int8") / "export.json"
    info = json.loads(record.read_text()) if record.is_file() else {}
    if "fidelity" not in info:
        texts = list(CHECK_TEXTS)
        fp32 = load_onnx_encoder(encoder, "onnx").encode(texts)
        int8 = load_onnx_encoder(encoder, "onnx-int8").encode(texts)
        cosines = (fp32 * int8).sum(axis=1)
        info["fidelity"] = {"mean": round(float(cosines.mean()), 6), "min": round(float(cosines.min()), 6),
                            "texts": len(texts)}
        tmp = record.with_name(f".export.json.{os.getpid()}")
        tmp.write_text(json.dumps(info) + "\n")
        os.replace(tmp, record)
    return info["fidelity"]


def check_backend(backend: str) -> str:
    """`backend` if it is one of BACKENDS, else a BaselinesError listing them."""
    if backend not in BACKENDS:
        raise BaselinesError(f"encoding backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    return backend


def require_onnxruntime():
    """The onnxruntime module (onnx, which the export needs, checked too), or a BaselinesError saying how to
    install them."""
    try:
        import onnx  # noqa: F401
        import onnxruntime
    except ImportError:
        raise BaselinesError(f"the onnx encoding backends need onnxruntime and onnx: {INSTALL}") from None
    return onnxruntime


def onnx_export_folder(encoder: str | None, backend: str) -> Path:
    """Where the exported model of `encoder` for `backend` is kept (keyed by source model and precision)."""
    from baselines.encoders.names import encoder_key

    return cache_root() / "onnx" / f"{encoder_key(encoder)}-{PRECISIONS[check_backend(backend)]}"


def _source_folder(encoder: str | None) -> Path:
    """The local sentence-transformers folder of `encoder`, checked to use mean pooling."""
    from baselines.encoders.names import resolve_encoder

    folder = Path(resolve_encoder(encoder))
    if not (folder / "tokenizer.json").is_file():
        raise BaselinesError(f"the onnx backends (and auto, the default) need a local encoder folder with a "
                             f"tokenizer.json; {encoder!r} is not one: give such a folder, or --set encode_backend=torch")
    pooling = folder / "1_Pooling" / "config.json"
    if pooling.is_file() and not json.loads(pooling.read_text()).get("pooling_mode_mean_tokens", False):
        raise BaselinesError(f"the onnx backends support mean-pooling encoders only; {pooling} says otherwise")
    return folder


def _keyword_module(model):
    """A torch module calling the transformer with keyword arguments (the transformers 5 signature)."""
    import torch

    class KeywordInputs(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    return KeywordInputs(model).eval()


def _export(source: Path, target: Path, backend: str) -> None:
    """Export `source`'s transformer to `target`/model.onnx (quantised for onnx-int8), via a temporary folder."""
    import torch
    from transformers import AutoModel

    require_onnxruntime()
    started = time.time()
    logger.warning("exporting encoder %s to ONNX (%s), once: %s", source.name, PRECISIONS[backend], target)
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        progress.library_bars_off()
        module = _keyword_module(AutoModel.from_pretrained(str(source)))
        ids = torch.tensor([[101, 2023, 2003, 102], [101, 2023, 102, 0]])  # one padded row: the mask is traced
        example = {"input_ids": ids, "attention_mask": (ids > 0).long(), "token_type_ids": torch.zeros_like(ids)}
        axes = {name: {0: "batch", 1: "sequence"} for name in (*INPUTS, "last_hidden_state")}
        fp32 = work / ("fp32.onnx" if backend == "onnx-int8" else "model.onnx")
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(module, (), str(fp32), kwargs=example, input_names=list(INPUTS),
                              output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=17, dynamo=False)
        if backend == "onnx-int8":
            from onnxruntime.quantization import QuantType, quantize_dynamic

            logging.disable(logging.WARNING)  # the quantiser's advice to pre-process, on the root logger
            try:
                quantize_dynamic(str(fp32), str(work / "model.onnx"), per_channel=True, weight_type=QuantType.QInt8)
            finally:
                logging.disable(logging.NOTSET)
            fp32.unlink()
        (work / "export.json").write_text(json.dumps({"source": str(source), "backend": backend,
                                                      "precision": PRECISIONS[backend]}) + "\n")
        install_folder(work, target, started)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def install_folder(work: Path, target: Path, started: float) -> None:
    """Move the finished folder `work` to `target`. A model.onnx put there by another process since `started`
    wins (concurrent exports or restores); an older folder (a damaged export) is replaced."""
    model = target / "model.onnx"
    if model.is_file() and model.stat().st_mtime >= started:
        return
    if target.exists():
        shutil.rmtree(target, ignore_errors=True)
    try:
        os.replace(work, target)
    except OSError:
        if not model.is_file():  # not another process's finished folder: a real failure
            raise


def _session(path: Path):
    """An onnxruntime CPU session with one intra-op thread per core."""
    ort = require_onnxruntime()
    options = ort.SessionOptions()
    options.intra_op_num_threads = os.cpu_count() or 1
    options.log_severity_level = 3
    return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])


def exported_session(encoder: str | None, backend: str):
    """A session on the exported model, exporting it first when absent or unloadable (then re-exported)."""
    require_onnxruntime()
    source = _source_folder(encoder)
    folder = onnx_export_folder(encoder, backend)
    if (folder / "model.onnx").is_file():
        try:
            return _session(folder / "model.onnx")
        except Exception as exc:  # onnxruntime raises its own error types for damaged files
            logger.warning("exported encoder %s is unloadable (%s): exporting it again", folder,
                           str(exc).splitlines()[0][:160])
    _export(source, folder, backend)
    return _session(folder / "model.onnx")


def ensure_exported(encoder: str | None, backend: str) -> Path:
    """The folder of the exported model of `encoder` for `backend`, exported now if it is not there."""
    folder = onnx_export_folder(encoder, backend)
    if not (folder / "model.onnx").is_file():
        exported_session(encoder, backend)
    return folder


def default_max_length(source: Path) -> int:
    """The encoder's own token limit: sentence_bert_config.json, else its position embeddings."""
    for name, field in (("sentence_bert_config.json", "max_seq_length"), ("config.json", "max_position_embeddings")):
        path = source / name
        if path.is_file() and json.loads(path.read_text()).get(field):
            return int(json.loads(path.read_text())[field])
    return 512


class OnnxEncoder:
    """Normalised mean-pooled sentence embeddings from an exported encoder, batched by length."""

    def __init__(self, encoder: str | None, backend: str = "onnx", max_seq_length: int | None = None):
        from tokenizers import Tokenizer

        source = _source_folder(encoder)
        self.session = exported_session(encoder, backend)
        self.alone = backend == "onnx-int8"  # see encode
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.tokenizer = Tokenizer.from_file(str(source / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=max_seq_length or default_max_length(source))
        self.tokenizer.no_padding()
        self.dimension = int(json.loads((source / "config.json").read_text()).get("hidden_size", 0)) or None

    def _batch(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts)
        width = max(len(e.ids) for e in encodings)
        arrays = {name: np.zeros((len(texts), width), dtype=np.int64) for name in INPUTS}
        for row, e in enumerate(encodings):
            n = len(e.ids)
            arrays["input_ids"][row, :n] = e.ids
            arrays["attention_mask"][row, :n] = e.attention_mask
            arrays["token_type_ids"][row, :n] = e.type_ids
        hidden = self.session.run(None, {k: v for k, v in arrays.items() if k in self.inputs})[0]
        mask = arrays["attention_mask"][:, :, None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)

    def encode(self, texts: list[str], batch_size: int = 64, progress: bool = False) -> np.ndarray:
        """(len(texts), dim) float32 unit vectors; texts are batched longest first and returned in order.

        The int8 model quantizes its activations with one scale per batch (dynamic quantization), so a text's
        vector would depend on the texts batched with it, and with it the predictions on what happened to be
        cached: int8 encodes each text alone (on CPU no slower: nothing is padded)."""
        batch_size = 1 if self.alone else batch_size
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        batches = [order[start:start + batch_size] for start in range(0, len(order), batch_size)]
        vectors = [self._batch([texts[i] for i in rows])
                   for rows in bar(batches, desc="encoding sentences", unit="batch" if batch_size > 1 else "text",
                                   enabled=progress and len(batches) >= 2)]
        if not vectors:
            return np.zeros((0, self.dimension or 0), dtype=np.float32)
        out = np.zeros((len(texts), vectors[0].shape[1]), dtype=np.float32)
        for rows, block in zip(batches, vectors):
            out[rows] = block
        return out


_ENCODERS: dict = {}


def load_onnx_encoder(encoder: str | None, backend: str, max_seq_length: int | None = None) -> OnnxEncoder:
    """One OnnxEncoder per (encoder, backend, max_seq_length, cache folder) in this process."""
    key = (encoder, backend, max_seq_length, str(cache_root()))
    if key not in _ENCODERS:
        _ENCODERS[key] = OnnxEncoder(encoder, backend, max_seq_length)
    return _ENCODERS[key]
