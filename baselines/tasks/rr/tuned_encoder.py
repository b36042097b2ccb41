"""A sentence encoder whose top transformer layers are trained together with the tagger.

The lower layers are frozen and run once per sentence: their token states are kept in memory as float16.
The top `tuned_layers` layers, mean pooling and L2 normalisation run in every training step, so a step
costs a fraction of a full forward and backward pass. Prediction takes the same two stages, so training and
prediction compute a sentence's vector the same way (lower-layer states rounded to float16 in both). Saved
as a sentence-transformers folder (the source folder with the tuned weights), loadable by
sentence-transformers itself, whose vectors then differ from the tagger's only by that rounding.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import torch
from torch import nn

from baselines.core import progress
from baselines.core.errors import BaselinesError

WEIGHTS = (".safetensors", ".bin", ".onnx", ".h5", ".msgpack")  # not copied: the tuned weights replace them
SUPPORTED = ("bert", "mpnet")  # encoders run layer by layer here: BERT variants (MiniLM) and MPNet


class TunedEncoder(nn.Module):
    """Frozen lower layers (run once per text), trainable top layers, mean pooling, unit length."""

    def __init__(self, folder: str | Path, tuned_layers: int, max_seq_length: int):
        super().__init__()
        from transformers import AutoModel, AutoTokenizer

        self.source = Path(folder)
        progress.library_bars_off()
        self.tokenizer = AutoTokenizer.from_pretrained(str(folder))
        self.transformer = AutoModel.from_pretrained(str(folder)).eval()
        kind = getattr(self.transformer.config, "model_type", None)
        if kind not in SUPPORTED:
            raise BaselinesError(f"{folder}: the tuned tagger runs these encoder types layer by layer: "
                                 f"{', '.join(SUPPORTED)}; this one is {kind!r}")
        layers = self.transformer.encoder.layer
        if not 1 <= tuned_layers <= len(layers):
            raise BaselinesError(f"tuned_layers must be between 1 and the encoder's {len(layers)} layers, "
                                 f"got {tuned_layers}")
        self.mpnet = kind == "mpnet"  # MPNet: no token types, a relative position bias in every layer
        self.cut = len(layers) - tuned_layers
        self.top = nn.ModuleList(layers[self.cut:])  # the same modules as in the transformer
        self.max_seq_length = max_seq_length
        for parameter in self.transformer.parameters():
            parameter.requires_grad_(False)
        for parameter in self.top.parameters():
            parameter.requires_grad_(True)

    @property
    def dimension(self) -> int:
        return int(self.transformer.config.hidden_size)

    def lower_states(self, texts: list[str], batch_size: int = 64, progress=None) -> list[torch.Tensor]:
        """Per text a (tokens, hidden) float16 tensor: its token states after the frozen layers."""
        self.eval()
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        states: list = [None] * len(texts)
        with torch.no_grad():
            for begin in range(0, len(order), batch_size):
                rows = order[begin:begin + batch_size]
                batch = self.tokenizer([texts[i] for i in rows], padding=True, truncation=True,
                                       max_length=self.max_seq_length, return_tensors="pt")
                hidden = self._lower(batch)  # (B, T, H)
                for row, i in enumerate(rows):
                    n = int(batch["attention_mask"][row].sum())
                    states[i] = hidden[row, :n].to(torch.float16).clone()
                if progress is not None:
                    progress.update(len(rows))
        return states

    def _lower(self, batch) -> torch.Tensor:
        """Token states (B, T, H) after the embeddings and the frozen layers."""
        if self.mpnet:  # positions from the ids
            hidden = self.transformer.embeddings(input_ids=batch["input_ids"])
        else:
            hidden = self.transformer.embeddings(input_ids=batch["input_ids"],
                                                 token_type_ids=batch.get("token_type_ids"))
        additive = _additive_mask(batch["attention_mask"].float())
        bias = self._position_bias(hidden)
        for layer in self.transformer.encoder.layer[:self.cut]:
            hidden = _run(layer, hidden, additive, bias)
        return hidden

    def _position_bias(self, hidden: torch.Tensor) -> torch.Tensor | None:
        """MPNet's relative position bias (B, heads, T, T), shared by its layers; None for BERT."""
        return self.transformer.encoder.compute_position_bias(hidden) if self.mpnet else None

    def pooled(self, states: list[torch.Tensor]) -> torch.Tensor:
        """(len(states), hidden) unit vectors: the top layers over each text's token states, mean-pooled."""
        width = max(s.shape[0] for s in states)
        hidden = torch.zeros(len(states), width, self.dimension)  # (B, T, H)
        mask = torch.zeros(len(states), width)  # (B, T)
        for row, state in enumerate(states):
            hidden[row, :state.shape[0]] = state.float()
            mask[row, :state.shape[0]] = 1.0
        additive = _additive_mask(mask)
        bias = self._position_bias(hidden)
        for layer in self.top:
            hidden = _run(layer, hidden, additive, bias)
        summed = (hidden * mask[:, :, None]).sum(dim=1)  # (B, H)
        pooled = summed / mask.sum(dim=1, keepdim=True).clamp(min=1e-9)
        return nn.functional.normalize(pooled, dim=1)

    def encode(self, texts: list[str], batch_size: int = 64, progress=None) -> np.ndarray:
        """(len(texts), hidden) float32 unit vectors, through both stages, without gradients."""
        return self.top_vectors(self.lower_states(texts, batch_size, progress), batch_size)

    def top_vectors(self, states: list[torch.Tensor], batch_size: int = 64) -> np.ndarray:
        """(len(states), hidden) float32 unit vectors of texts given by their lower_states, without gradients."""
        self.eval()
        order = sorted(range(len(states)), key=lambda i: -states[i].shape[0])  # similar lengths share a batch
        vectors = np.zeros((len(states), self.dimension), dtype=np.float32)
        with torch.no_grad():
            for begin in range(0, len(order), batch_size):
                rows = order[begin:begin + batch_size]
                vectors[rows] = self.pooled([states[i] for i in rows]).numpy()
        return vectors

    def save(self, folder: Path) -> None:
        """The source sentence-transformers folder with the tuned transformer weights, at `folder`; its
        token limit is the one the tagger was trained with, and tuned.json (a digest of the weights) gives
        each tuned encoder its own cache key (encoder_names.encoder_key)."""
        shutil.copytree(self.source, folder, ignore=_weights_and_exports)
        self.transformer.save_pretrained(str(folder))
        config = folder / "sentence_bert_config.json"
        settings = json.loads(config.read_text()) if config.is_file() else {}
        config.write_text(json.dumps({**settings, "max_seq_length": self.max_seq_length}, indent=2) + "\n")
        digest = hashlib.sha256()
        for weights in sorted(folder.glob("*.safetensors")):
            digest.update(weights.read_bytes())
        (folder / "tuned.json").write_text(json.dumps({"source": self._source_name(), "tuned_layers":
                                                       len(self.top), "weights_sha256": digest.hexdigest()}) + "\n")

    def _source_name(self) -> str:
        """The name of the encoder the tuning started from (kept when a saved tuned encoder is saved again)."""
        earlier = self.source / "tuned.json"
        return json.loads(earlier.read_text())["source"] if earlier.is_file() else self.source.name


def _run(layer, hidden: torch.Tensor, additive: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    """One transformer layer on (B, T, H) states (with MPNet's position bias when given); older transformers
    return a tuple."""
    out = layer(hidden, additive) if bias is None else layer(hidden, additive, position_bias=bias)
    return out[0] if isinstance(out, tuple) else out


def _additive_mask(mask: torch.Tensor) -> torch.Tensor:
    """(B, T) 1/0 mask -> (B, 1, 1, T) additive attention mask (0 or the most negative float)."""
    return (1.0 - mask)[:, None, None, :] * torch.finfo(torch.float32).min


def _weights_and_exports(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n.endswith(WEIGHTS) or n in ("onnx", "openvino")]
