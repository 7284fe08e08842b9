"""GGUF header reading on small synthetic files: valid ones and each kind of broken one."""

from __future__ import annotations

import struct
import tracemalloc
from pathlib import Path

import pytest
from fakes.gguf_writer import build_gguf

from curator.llm.gguf import GGUFError, check_gguf, read_gguf

Q4_K = 12
F32 = 0
Q8_0 = 8


def _model_bytes(**extra: object) -> bytes:
    metadata: dict[str, object] = {
        "general.architecture": "llama",
        "general.name": "Tiny Test Model",
        "llama.context_length": 2048,
        "general.file_type": 15,
        "tokenizer.chat_template": "{% for m in messages %}{{ m['content'] }}{% endfor %}",
        "tokenizer.ggml.tokens": ["<s>", "</s>", "hello", "world"],
    }
    metadata.update(extra)
    return build_gguf(metadata, [("token_embd.weight", (256, 4), Q4_K), ("output_norm.weight", (64,), F32)])


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny-Q4_K_M.gguf"
    path.write_bytes(_model_bytes())
    return path


def test_reads_name_architecture_context_quantization_and_template(model_file: Path) -> None:
    info = read_gguf(model_file)
    assert info.version == 3
    assert info.name == "Tiny Test Model"
    assert info.architecture == "llama"
    assert info.context_length == 2048
    assert info.quantization == "Q4_K_M"
    assert info.has_chat_template
    assert info.tensor_count == 2
    assert info.expected_size == model_file.stat().st_size
    assert len(info.metadata["tokenizer.ggml.tokens"]) == 4
    assert check_gguf(model_file) is None


def test_summary_is_plain_data(model_file: Path) -> None:
    summary = read_gguf(model_file).summary()
    assert summary == {
        "name": "Tiny Test Model",
        "architecture": "llama",
        "quantization": "Q4_K_M",
        "context_length": 2048,
        "chat_template": True,
        "tensors": 2,
        "version": 3,
        "size": model_file.stat().st_size,
    }


@pytest.mark.parametrize(
    ("file_type", "name"),
    [(0, "F32"), (1, "F16"), (2, "Q4_0"), (3, "Q4_1"), (7, "Q8_0"), (18, "Q6_K"), (32, "BF16")],
)
def test_file_type_names(tmp_path: Path, file_type: int, name: str) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(_model_bytes(**{"general.file_type": file_type}))
    assert read_gguf(path).quantization == name


def test_quantization_falls_back_to_the_dominant_weight_type(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(
        build_gguf(
            {"general.architecture": "qwen2"},
            [("a", (64, 2), Q8_0), ("b", (64, 2), Q8_0), ("norm", (64,), F32)],
        )
    )
    info = read_gguf(path)
    assert info.quantization == "Q8_0"
    assert info.name == "m"  # no general.name: the file name
    assert info.context_length is None
    assert not info.has_chat_template


def test_version_1_with_32_bit_counts(tmp_path: Path) -> None:
    path = tmp_path / "old.gguf"
    path.write_bytes(
        build_gguf(
            {"general.architecture": "llama", "llama.context_length": 512},
            [("w", (32, 2), 2)],
            version=1,
        )
    )
    info = read_gguf(path)
    assert info.version == 1
    assert info.context_length == 512


def test_custom_alignment(tmp_path: Path) -> None:
    path = tmp_path / "aligned.gguf"
    path.write_bytes(build_gguf({"general.architecture": "llama"}, [("w", (32, 3), Q8_0)], alignment=64))
    info = read_gguf(path)
    assert info.data_offset % 64 == 0
    assert check_gguf(path) is None


# ---- Broken files: each gives a GGUFError with one line, never another exception


def _one_line_error(path: Path) -> str:
    with pytest.raises(GGUFError) as caught:
        read_gguf(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message == check_gguf(path)
    return message


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.gguf"
    path.write_bytes(b"")
    assert "empty file" in _one_line_error(path)


def test_wrong_magic(tmp_path: Path) -> None:
    path = tmp_path / "fake.gguf"
    path.write_bytes(b"NOPE" + b"\0" * 100)
    assert "not a GGUF file" in _one_line_error(path)


def test_html_download_is_recognised(tmp_path: Path) -> None:
    path = tmp_path / "page.gguf"
    path.write_bytes(b"<!DOCTYPE html><html>Not found</html>")
    assert "HTML" in _one_line_error(path)


def test_old_ggml_format_gets_a_hint(tmp_path: Path) -> None:
    path = tmp_path / "old.bin"
    path.write_bytes(b"ggjt" + b"\0" * 64)
    assert "GGML" in _one_line_error(path)


def test_shorter_than_the_magic(tmp_path: Path) -> None:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GG")
    assert "truncated" in _one_line_error(path)


def test_truncated_inside_the_header(tmp_path: Path) -> None:
    data = _model_bytes()
    path = tmp_path / "cut.gguf"
    path.write_bytes(data[:60])
    assert "truncated" in _one_line_error(path)


def test_truncated_tensor_data(tmp_path: Path) -> None:
    data = _model_bytes()
    path = tmp_path / "half.gguf"
    path.write_bytes(data[: len(data) - 100])
    message = _one_line_error(path)
    assert "truncated GGUF file" in message and "%" in message


def test_truncated_at_half_of_a_real_sized_layout(tmp_path: Path) -> None:
    data = build_gguf({"general.architecture": "llama"}, [("w", (4096, 64), Q8_0)])
    path = tmp_path / "half.gguf"
    path.write_bytes(data[: len(data) // 2])
    assert "truncated" in _one_line_error(path)


def test_unsupported_version(tmp_path: Path) -> None:
    path = tmp_path / "v9.gguf"
    path.write_bytes(b"GGUF" + struct.pack("<I", 9) + b"\0" * 32)
    assert "unsupported GGUF version 9" in _one_line_error(path)


def test_missing_file_and_folder(tmp_path: Path) -> None:
    assert "no such file" in _one_line_error(tmp_path / "absent.gguf")
    assert "folder" in _one_line_error(tmp_path)


def test_vocabulary_only_file_is_not_a_model(tmp_path: Path) -> None:
    path = tmp_path / "vocab.gguf"
    path.write_bytes(build_gguf({"general.architecture": "llama"}, []))
    assert "no tensors" in _one_line_error(path)


def _crafted(kv_count: int, body: bytes) -> bytes:
    return b"GGUF" + struct.pack("<I", 3) + struct.pack("<Q", 0) + struct.pack("<Q", kv_count) + body


def test_huge_string_length_is_refused_without_allocating(tmp_path: Path) -> None:
    key = b"general.name"
    body = struct.pack("<Q", len(key)) + key + struct.pack("<I", 8) + struct.pack("<Q", 2**40)
    path = tmp_path / "crafted.gguf"
    path.write_bytes(_crafted(1, body))
    # Measured in bytes, not seconds: the 1 TiB length must be refused before any allocation.
    tracemalloc.start()
    try:
        assert "implausible" in _one_line_error(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 1024 * 1024, f"{peak} bytes allocated while reading the header"


def test_huge_array_length_is_refused(tmp_path: Path) -> None:
    key = b"tokenizer.ggml.tokens"
    body = struct.pack("<Q", len(key)) + key + struct.pack("<I", 9) + struct.pack("<I", 8) + struct.pack("<Q", 2**50)
    path = tmp_path / "crafted.gguf"
    path.write_bytes(_crafted(1, body))
    assert "implausible" in _one_line_error(path)


def test_huge_kv_count_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "crafted.gguf"
    path.write_bytes(_crafted(2**60, b""))
    assert "implausible" in _one_line_error(path)


def test_huge_key_length_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "crafted.gguf"
    path.write_bytes(_crafted(1, struct.pack("<Q", 2**33)))
    assert "implausible" in _one_line_error(path)


def test_array_of_strings_that_runs_past_the_end(tmp_path: Path) -> None:
    key = b"tokenizer.ggml.tokens"
    items = b"".join(struct.pack("<Q", 3) + b"abc" for _ in range(10))
    body = (
        struct.pack("<Q", len(key))
        + key
        + struct.pack("<I", 9)
        + struct.pack("<I", 8)
        + struct.pack("<Q", 1000)
        + items
    )
    path = tmp_path / "crafted.gguf"
    path.write_bytes(_crafted(1, body))
    assert "truncated" in _one_line_error(path)


def test_unknown_value_type(tmp_path: Path) -> None:
    key = b"x"
    body = struct.pack("<Q", len(key)) + key + struct.pack("<I", 77)
    path = tmp_path / "crafted.gguf"
    path.write_bytes(_crafted(1, body))
    assert "unknown GGUF value type" in _one_line_error(path)


def test_random_bytes(tmp_path: Path) -> None:
    import random

    rng = random.Random(7)
    for index in range(20):
        data = b"GGUF" + struct.pack("<I", 3) + bytes(rng.randrange(256) for _ in range(200))
        path = tmp_path / f"r{index}.gguf"
        path.write_bytes(data)
        assert check_gguf(path) is not None
