"""Read a GGUF file's header (metadata and tensor table) without loading the model.

The header tells what a file is (name, architecture, quantization, context length, whether
it carries a chat template) and lets us check that the file is complete before llama.cpp
sees it: llama.cpp may crash or allocate wildly on a truncated or crafted file, so every
count and length read here is capped, and the tensor table is checked against the size of
the file on disk.
"""

from __future__ import annotations

import mmap
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from curator.llm.gguf_format import _ARRAY, _SCALAR_FORMATS, _STRING, GGUF_MAGIC, SUPPORTED_VERSIONS
from curator.llm.gguf_info import GGUFError, GGUFInfo, TensorInfo

# The header records are re-exported: callers import them from here.
__all__ = ["GGUFError", "GGUFInfo", "TensorInfo", "check_gguf", "read_gguf"]

# Caps that keep a crafted header from making us allocate or loop for long. Real files stay
# far below them: the largest vocabularies hold ~260k tokens, chat templates are a few KB.
MAX_KV_COUNT = 100_000
MAX_TENSOR_COUNT = 1_000_000
MAX_KEY_BYTES = 65_536
MAX_STRING_BYTES = 4 * 1024 * 1024
MAX_ARRAY_ITEMS = 8_000_000
MAX_HEADER_BYTES = 512 * 1024 * 1024
MAX_DIMS = 4
# String values longer than this are not kept in ``metadata`` (only their presence).
KEEP_STRING_CHARS = 65_536
# Arrays are summarised in ``metadata`` (their length), never kept, except short numeric ones.
KEEP_ARRAY_ITEMS = 64


class _Reader:
    """Bounded little-endian (or big-endian) reads from a file.

    The file is memory-mapped when possible: a large vocabulary is ~100k strings in the
    header, and skipping them through ``read``/``seek`` calls is several times slower.
    """

    def __init__(self, handle: BinaryIO, file_size: int, path: Path) -> None:
        self.handle = handle
        self.file_size = file_size
        self.path = path
        self.endian = "<"
        self.pos = handle.tell()
        self.view: Any = None
        try:
            self.view = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):
            self.view = None

    def close(self) -> None:
        if self.view is not None:
            self.view.close()

    def tell(self) -> int:
        return self.pos

    def _truncated(self, what: str) -> GGUFError:
        return GGUFError(
            f"{self.path.name}: truncated GGUF file (ends inside the header while reading "
            f"{what} at byte {self.pos})"
        )

    def read(self, count: int, what: str) -> bytes:
        if self.pos + count > self.file_size:
            raise self._truncated(what)
        if self.view is not None:
            data = self.view[self.pos : self.pos + count]
        else:
            self.handle.seek(self.pos)
            data = self.handle.read(count)
        if len(data) != count:
            raise self._truncated(what)
        self.pos += count
        return bytes(data)

    def skip(self, count: int, what: str) -> None:
        if self.pos + count > self.file_size:
            raise self._truncated(what)
        self.pos += count

    def scalar(self, fmt: str, what: str) -> Any:
        size = struct.calcsize(fmt)
        if self.view is not None:
            if self.pos + size > self.file_size:
                raise self._truncated(what)
            value = struct.unpack_from(self.endian + fmt, self.view, self.pos)[0]
            self.pos += size
            return value
        return struct.unpack(self.endian + fmt, self.read(size, what))[0]

    def count(self, wide: bool, what: str) -> int:
        return int(self.scalar("Q" if wide else "I", what))

    def string(self, wide: bool, limit: int, what: str, keep: bool = True) -> str | None:
        length = self.count(wide, f"{what} length")
        if length > limit:
            raise GGUFError(
                f"{self.path.name}: implausible GGUF header ({what} claims {length} bytes)"
            )
        if not keep:
            self.skip(length, what)
            return None
        return self.read(length, what).decode("utf-8", errors="replace")

    def skip_strings(self, wide: bool, number: int, what: str) -> None:
        """Skip ``number`` length-prefixed strings (a vocabulary) quickly."""
        fmt = self.endian + ("Q" if wide else "I")
        step = 8 if wide else 4
        view, pos, end = self.view, self.pos, self.file_size
        if view is None:
            for _ in range(number):
                self.string(wide, MAX_STRING_BYTES, what, keep=False)
            return
        unpack = struct.Struct(fmt).unpack_from
        for _ in range(number):
            if pos + step > end:
                self.pos = pos
                raise self._truncated(what)
            length = unpack(view, pos)[0]
            if length > MAX_STRING_BYTES:
                self.pos = pos
                raise GGUFError(
                    f"{self.path.name}: implausible GGUF header ({what} claims {length} bytes)"
                )
            pos += step + length
        if pos > end:
            raise self._truncated(what)
        self.pos = pos


def _read_value(reader: _Reader, value_type: int, wide: bool, key: str, depth: int = 0) -> Any:
    if value_type in _SCALAR_FORMATS:
        return reader.scalar(_SCALAR_FORMATS[value_type], f"value of {key}")
    if value_type == _STRING:
        # Remember long strings only by presence: a chat template is kept, a huge blob is not.
        length = reader.count(wide, f"value of {key} length")
        if length > MAX_STRING_BYTES:
            raise GGUFError(
                f"{reader.path.name}: implausible GGUF header ({key} claims a {length}-byte string)"
            )
        if length > KEEP_STRING_CHARS:
            reader.skip(length, f"value of {key}")
            return f"<{length} bytes>"
        return reader.read(length, f"value of {key}").decode("utf-8", errors="replace")
    if value_type == _ARRAY:
        if depth > 1:
            raise GGUFError(f"{reader.path.name}: implausible GGUF header (nested arrays in {key})")
        item_type = int(reader.scalar("I", f"item type of {key}"))
        length = reader.count(wide, f"length of {key}")
        if length > MAX_ARRAY_ITEMS:
            raise GGUFError(
                f"{reader.path.name}: implausible GGUF header ({key} claims {length} items)"
            )
        if item_type in _SCALAR_FORMATS:
            size = struct.calcsize(_SCALAR_FORMATS[item_type])
            if length <= KEEP_ARRAY_ITEMS:
                raw = reader.read(size * length, f"items of {key}")
                return list(struct.unpack(reader.endian + _SCALAR_FORMATS[item_type] * length, raw))
            reader.skip(size * length, f"items of {key}")
            return _ArraySummary(item_type, length)
        if item_type == _STRING:
            reader.skip_strings(wide, length, f"items of {key}")
            return _ArraySummary(item_type, length)
        if item_type == _ARRAY:
            for _ in range(length):
                _read_value(reader, _ARRAY, wide, key, depth + 1)
            return _ArraySummary(item_type, length)
        raise GGUFError(f"{reader.path.name}: unknown GGUF array item type {item_type} in {key}")
    raise GGUFError(f"{reader.path.name}: unknown GGUF value type {value_type} for {key}")


@dataclass(frozen=True)
class _ArraySummary:
    """Stands in for a long array in ``metadata``: its item type and length."""

    item_type: int
    length: int

    def __len__(self) -> int:
        return self.length

    def __repr__(self) -> str:
        return f"<array of {self.length}>"


def read_gguf(path: str | os.PathLike[str], *, check_size: bool = True) -> GGUFInfo:
    """Read and check the header of a GGUF file.

    Args:
        path: The file.
        check_size: Also check that the file is long enough for every tensor the header
            lists (catches files cut short by an interrupted download or copy).

    Returns:
        The header's metadata and tensor table.

    Raises:
        GGUFError: The file is missing, unreadable, empty, not GGUF, of an unsupported
            version, has an implausible header, or is truncated. The message is one line.
    """
    file_path = Path(path)
    name = file_path.name or str(file_path)
    try:
        if file_path.is_dir():
            raise GGUFError(f"{name}: is a folder, not a GGUF file")
        file_size = file_path.stat().st_size
        handle = file_path.open("rb")
    except FileNotFoundError:
        raise GGUFError(f"{file_path}: no such file") from None
    except PermissionError:
        raise GGUFError(f"{name}: cannot be read (permission denied)") from None
    except OSError as exc:
        raise GGUFError(f"{name}: cannot be read ({exc.strerror or exc})") from None
    with handle:
        if file_size == 0:
            raise GGUFError(f"{name}: empty file (0 bytes), not a GGUF model")
        try:
            return _parse(handle, file_path, file_size, check_size)
        except OSError as exc:
            raise GGUFError(f"{name}: cannot be read ({exc.strerror or exc})") from None


def _parse(handle: BinaryIO, path: Path, file_size: int, check_size: bool) -> GGUFInfo:
    name = path.name
    magic = handle.read(4)
    if magic != GGUF_MAGIC:
        if len(magic) < 4:
            raise GGUFError(f"{name}: truncated file ({file_size} bytes), not a GGUF model")
        hint = ""
        if magic in (b"ggml", b"lmgg", b"fmgg", b"tjgg", b"ggjt", b"ggla"):
            hint = " (an old GGML-era format; convert it to GGUF)"
        elif magic[:2] == b"PK":
            hint = " (looks like a zip archive)"
        elif magic.startswith(b"<") or magic.startswith(b"{"):
            hint = " (looks like a text/HTML page, perhaps a failed download)"
        raise GGUFError(f"{name}: not a GGUF file (magic {magic!r}){hint}")
    reader = _Reader(handle, file_size, path)
    try:
        return _parse_after_magic(reader, path, file_size, check_size)
    finally:
        reader.close()


def _parse_after_magic(reader: _Reader, path: Path, file_size: int, check_size: bool) -> GGUFInfo:
    name = path.name
    raw_version = reader.read(4, "version")
    version = struct.unpack("<I", raw_version)[0]
    if version not in SUPPORTED_VERSIONS:
        swapped = struct.unpack(">I", raw_version)[0]
        if swapped in SUPPORTED_VERSIONS:
            # Big-endian GGUF (made for s390x); readable, but llama.cpp on x86/ARM cannot run it.
            reader.endian = ">"
            version = swapped
        else:
            raise GGUFError(f"{name}: unsupported GGUF version {version}")
    wide = version >= 2
    tensor_count = reader.count(wide, "tensor count")
    kv_count = reader.count(wide, "metadata count")
    if tensor_count > MAX_TENSOR_COUNT:
        raise GGUFError(f"{name}: implausible GGUF header ({tensor_count} tensors)")
    if kv_count > MAX_KV_COUNT:
        raise GGUFError(f"{name}: implausible GGUF header ({kv_count} metadata entries)")

    metadata: dict[str, Any] = {}
    for _ in range(kv_count):
        key = reader.string(wide, MAX_KEY_BYTES, "metadata key") or ""
        value_type = int(reader.scalar("I", f"type of {key}"))
        metadata[key] = _read_value(reader, value_type, wide, key)
        if reader.tell() > MAX_HEADER_BYTES:
            raise GGUFError(f"{name}: implausible GGUF header (metadata over {MAX_HEADER_BYTES} bytes)")

    tensors: list[TensorInfo] = []
    for _ in range(tensor_count):
        tensor_name = reader.string(wide, MAX_KEY_BYTES, "tensor name") or ""
        n_dims = int(reader.scalar("I", f"dimensions of {tensor_name}"))
        if n_dims > MAX_DIMS:
            raise GGUFError(f"{name}: implausible GGUF header ({tensor_name} has {n_dims} dimensions)")
        shape = tuple(reader.count(wide, f"shape of {tensor_name}") for _ in range(n_dims))
        if any(dim > 2**40 for dim in shape):
            raise GGUFError(f"{name}: implausible GGUF header ({tensor_name} shape {shape})")
        type_id = int(reader.scalar("I", f"type of {tensor_name}"))
        offset = int(reader.scalar("Q", f"offset of {tensor_name}"))
        tensors.append(TensorInfo(tensor_name, shape, type_id, offset))

    alignment = metadata.get("general.alignment", 32)
    if not isinstance(alignment, int) or isinstance(alignment, bool) or alignment <= 0:
        alignment = 32
    header_end = reader.tell()
    data_offset = (header_end + alignment - 1) // alignment * alignment
    info = GGUFInfo(
        path=path,
        file_size=file_size,
        version=version,
        tensor_count=tensor_count,
        kv_count=kv_count,
        metadata=metadata,
        tensors=tensors,
        data_offset=data_offset,
    )
    if check_size:
        _check_complete(info)
    return info


def _check_complete(info: GGUFInfo) -> None:
    name = info.path.name
    if info.tensor_count == 0:
        raise GGUFError(f"{name}: GGUF file has no tensors (a vocabulary-only file, not a model)")
    expected = info.expected_size
    if expected is None:
        # An unknown tensor type: we cannot size it, so at least every tensor must start
        # inside the file.
        last_start = max(info.data_offset + t.offset for t in info.tensors)
        if last_start >= info.file_size:
            raise GGUFError(
                f"{name}: truncated GGUF file ({info.file_size} bytes; tensor data starts "
                f"beyond the end)"
            )
        return
    if info.file_size < expected:
        percent = 100.0 * info.file_size / expected if expected else 0.0
        raise GGUFError(
            f"{name}: truncated GGUF file ({info.file_size:,} of {expected:,} bytes, "
            f"{percent:.0f}%); download or copy it again"
        )


def check_gguf(path: str | os.PathLike[str]) -> str | None:
    """Validate a GGUF file; returns None when it is usable, else a one-line reason."""
    try:
        read_gguf(path)
    except GGUFError as exc:
        return str(exc)
    return None
