"""Writes small GGUF files for tests: headers the reader must accept or refuse."""

from __future__ import annotations

import struct
from typing import Any

from curator.llm.gguf_format import (
    _ARRAY,
    _BOOL,
    _FLOAT32,
    _INT32,
    _INT64,
    _STRING,
    _UINT32,
    GGUF_MAGIC,
)
from curator.llm.gguf_info import TensorInfo


def build_gguf(
    metadata: dict[str, Any],
    tensors: list[tuple[str, tuple[int, ...], int]] = (),  # type: ignore[assignment]
    *,
    version: int = 3,
    alignment: int = 32,
) -> bytes:
    """Bytes of a small, valid GGUF file; for tests and fixtures, not for real models.

    Args:
        metadata: Key -> value (str, bool, int, float, or a list of str or of int).
        tensors: (name, shape, ggml type id) for each tensor; data is zero-filled.
        version: GGUF version to write (1 uses 32-bit counts).
        alignment: Data alignment (written as ``general.alignment`` when not 32).
    """
    wide = version >= 2
    count_fmt = "<Q" if wide else "<I"

    def string(text: str) -> bytes:
        raw = text.encode("utf-8")
        return struct.pack(count_fmt, len(raw)) + raw

    def value(item: Any) -> tuple[int, bytes]:
        if isinstance(item, bool):
            return _BOOL, struct.pack("<?", item)
        if isinstance(item, int):
            if 0 <= item < 2**32:
                return _UINT32, struct.pack("<I", item)
            return _INT64, struct.pack("<q", item)
        if isinstance(item, float):
            return _FLOAT32, struct.pack("<f", item)
        if isinstance(item, str):
            return _STRING, string(item)
        if isinstance(item, list):
            if all(isinstance(x, str) for x in item):
                body = b"".join(string(x) for x in item)
                return _ARRAY, struct.pack("<I", _STRING) + struct.pack(count_fmt, len(item)) + body
            body = b"".join(struct.pack("<i", int(x)) for x in item)
            return _ARRAY, struct.pack("<I", _INT32) + struct.pack(count_fmt, len(item)) + body
        raise TypeError(f"cannot write {type(item).__name__} to GGUF")

    meta = dict(metadata)
    if alignment != 32:
        meta["general.alignment"] = alignment
    out = bytearray(GGUF_MAGIC + struct.pack("<I", version))
    out += struct.pack(count_fmt, len(tensors)) + struct.pack(count_fmt, len(meta))
    for key, item in meta.items():
        kind, raw = value(item)
        out += string(key) + struct.pack("<I", kind) + raw
    offset = 0
    sizes = []
    for name, shape, type_id in tensors:
        info = TensorInfo(name, tuple(shape), type_id, offset)
        size = info.n_bytes or 0
        out += string(name) + struct.pack("<I", len(shape))
        out += b"".join(struct.pack(count_fmt, d) for d in shape)
        out += struct.pack("<I", type_id) + struct.pack("<Q", offset)
        sizes.append(size)
        offset += (size + alignment - 1) // alignment * alignment
    padding = (-len(out)) % alignment
    out += b"\0" * padding
    for size in sizes:
        out += b"\0" * ((size + alignment - 1) // alignment * alignment)
    return bytes(out)
