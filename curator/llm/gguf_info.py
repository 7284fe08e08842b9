"""What a GGUF header says about a model file: its tensor table and metadata, read by ``gguf``."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from curator.llm.gguf_format import FILE_TYPES, TENSOR_TYPES


class GGUFError(Exception):
    """The file is not a usable GGUF file; ``str(error)`` is one line for a person."""


@dataclass(frozen=True)
class TensorInfo:
    """One entry of the tensor table."""

    name: str
    shape: tuple[int, ...]
    type_id: int
    offset: int

    @property
    def type_name(self) -> str:
        """The ggml type name (``Q4_K``), or ``type<N>`` for a type this reader does not know."""
        entry = TENSOR_TYPES.get(self.type_id)
        return entry[0] if entry else f"type{self.type_id}"

    @property
    def n_bytes(self) -> int | None:
        """Size of the tensor's data, or None when its type is unknown."""
        entry = TENSOR_TYPES.get(self.type_id)
        if entry is None:
            return None
        _, block, size = entry
        elements = 1
        for dim in self.shape:
            elements *= dim
        return (elements + block - 1) // block * size


@dataclass
class GGUFInfo:
    """What a GGUF header says about a model file."""

    path: Path
    file_size: int
    version: int
    tensor_count: int
    kv_count: int
    metadata: dict[str, Any] = field(default_factory=dict)
    tensors: list[TensorInfo] = field(default_factory=list)
    data_offset: int = 0

    @property
    def parameters(self) -> int:
        """The model's parameter count: the elements of every tensor."""
        total = 0
        for tensor in self.tensors:
            elements = 1
            for dim in tensor.shape:
                elements *= dim
            total += elements
        return total

    @property
    def name(self) -> str:
        """``general.name``, or the file name without extension."""
        value = self.metadata.get("general.name")
        return str(value).strip() if isinstance(value, str) and value.strip() else self.path.stem

    @property
    def architecture(self) -> str:
        """``general.architecture`` (``llama``, ``qwen2``...), empty when missing."""
        value = self.metadata.get("general.architecture")
        return value if isinstance(value, str) else ""

    @property
    def context_length(self) -> int | None:
        """The context length the model was trained for (``<arch>.context_length``)."""
        value = self.metadata.get(f"{self.architecture}.context_length")
        return int(value) if isinstance(value, int) and not isinstance(value, bool) else None

    @property
    def file_type(self) -> int | None:
        """``general.file_type`` (llama.cpp's ``llama_ftype``), None when missing."""
        value = self.metadata.get("general.file_type")
        return int(value) if isinstance(value, int) and not isinstance(value, bool) else None

    @property
    def quantization(self) -> str:
        """The quantization name (``Q4_1``, ``Q4_K_M``...).

        Taken from ``general.file_type``; files without it are named after the most common
        tensor type among the weight matrices.
        """
        if self.file_type is not None:
            return FILE_TYPES.get(self.file_type, f"ftype{self.file_type}")
        weights = Counter(t.type_name for t in self.tensors if len(t.shape) >= 2)
        if weights:
            return weights.most_common(1)[0][0]
        return "unknown"

    @property
    def has_chat_template(self) -> bool:
        """Whether the file carries ``tokenizer.chat_template``."""
        return "tokenizer.chat_template" in self.metadata

    @property
    def expected_size(self) -> int | None:
        """File size the tensor table implies, or None when a tensor type is unknown."""
        end = self.data_offset
        for tensor in self.tensors:
            size = tensor.n_bytes
            if size is None:
                return None
            end = max(end, self.data_offset + tensor.offset + size)
        return end

    def summary(self) -> dict[str, Any]:
        """A plain dict for JSON output and listings."""
        return {
            "name": self.name,
            "architecture": self.architecture,
            "quantization": self.quantization,
            "context_length": self.context_length,
            "chat_template": self.has_chat_template,
            "tensors": self.tensor_count,
            "version": self.version,
            "size": self.file_size,
        }
