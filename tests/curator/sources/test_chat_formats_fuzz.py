"""Fuzzing every client adapter: malformed lines, wrong types, truncation, huge lines and
invalid UTF-8 give per-line skips with reasons, never an exception, a crashed watcher or a
write into the source. Mutations come from a seeded generator, so runs are repeatable."""

from __future__ import annotations

import hashlib
import json
import math
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fakes import chat_clients as cc

from curator.engine import Engine
from curator.index.search import SearchFilters
from curator.sources.adapters import common, detect_formats, get_adapter, jsonl
from curator.sources.adapters.base import ReadResult
from curator.sources.turns import ROLES

MAKERS: dict[str, Callable[[Path], Any]] = {
    "sillytavern": cc.sillytavern_current,
    "sillytavern-group": cc.sillytavern_group,
    "jan": cc.jan_new,
    "lmstudio": cc.lmstudio_chat,
    "textgen_webui": cc.textgen_new,
    "chatgpt": cc.chatgpt_export,
    "claude_ai": cc.claude_ai_export,
    "claude_code": cc.claude_code_session,
    "openclaw": cc.openclaw_home,
    "koboldcpp": lambda r: cc.kobold_story(r, 3),
}
WRONG_VALUES: list[Any] = [None, 0, -1, 1e308, True, "", "x" * 300, [], {}, [1, [2]], {"a": {"b": None}}]


def wrong_types(value: Any, rng: random.Random) -> Any:
    """``value`` with some of its members replaced by values of other types."""
    if isinstance(value, dict):
        return {k: (rng.choice(WRONG_VALUES) if rng.random() < 0.3 else wrong_types(v, rng)) for k, v in value.items()}
    if isinstance(value, list):
        return [rng.choice(WRONG_VALUES) if rng.random() < 0.3 else wrong_types(v, rng) for v in value]
    return value


def mutate(data: bytes, rng: random.Random, kind: str) -> bytes:
    lines = data.split(b"\n")
    if kind == "truncate":
        return data[: rng.randrange(max(1, len(data)))]
    if kind == "utf8":
        at = rng.randrange(max(1, len(data)))
        return data[:at] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00"]) + data[at:]
    if kind == "garbage":
        at = rng.randrange(len(lines) + 1)
        junk = rng.choice([b"{", b"not json", b"[1,2", b'{"a": }', b"\x1b[31m", b"null", b"42", b'"str"'])
        return b"\n".join([*lines[:at], junk, *lines[at:]])
    if kind == "huge":
        at = rng.randrange(len(lines) + 1)
        return b"\n".join([*lines[:at], b'{"mes": "' + b"a" * 5000 + b'"}', *lines[at:]])
    # wrong types: through JSON when the whole file or a line parses
    try:
        return json.dumps(wrong_types(json.loads(data), rng)).encode()
    except ValueError:
        out = []
        for line in lines:
            try:
                out.append(json.dumps(wrong_types(json.loads(line), rng)).encode())
            except ValueError:
                out.append(line)
        return b"\n".join(out)


def files_of(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def check(result: ReadResult) -> None:
    for turn in result.turns:
        assert turn.role in ROLES and turn.role != "tool"
        assert isinstance(turn.text, str) and turn.text.strip()
        assert isinstance(turn.speaker, str) and isinstance(turn.conversation, str)
        assert isinstance(turn.timestamp, float) and math.isfinite(turn.timestamp)
    assert all(isinstance(p, str) and p for p in result.problems)


@pytest.mark.parametrize("client", sorted(MAKERS))
def test_fuzzed_files_give_skips_with_reasons(tmp_path: Path, client: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(common, "MAX_LINE_BYTES", 4000)
    monkeypatch.setattr(jsonl, "MAX_LINE_BYTES", 4000)
    pristine = tmp_path / "pristine"
    pristine.mkdir()
    MAKERS[client](pristine)
    originals = {p: p.read_bytes() for p in pristine.rglob("*") if p.is_file()}
    rng = random.Random(f"fuzz-{client}")
    adapter = get_adapter("auto")
    problems = 0
    for round_no in range(40):
        kind = ["truncate", "utf8", "garbage", "huge", "types"][round_no % 5]
        for path, data in originals.items():
            path.write_bytes(mutate(data, rng, kind))
        before = files_of(pristine)
        for unit in adapter.list_units(pristine):
            result = adapter.read(pristine, unit, "fuzz", None)
            check(result)
            problems += len(result.problems)
        assert files_of(pristine) == before, "an adapter wrote into the source"
    assert problems > 0, "no mutation was ever reported"


def test_watcher_survives_fuzzed_sources_and_keeps_reading(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    rng = random.Random("watch")
    for name, make in MAKERS.items():
        make(source / name)
    for path in [p for p in source.rglob("*") if p.is_file()]:
        path.write_bytes(mutate(path.read_bytes(), rng, rng.choice(["truncate", "utf8", "garbage", "types"])))
    formats = detect_formats(source)
    engine = Engine(tmp_path / "vault", triggers=False)
    try:
        engine.settings.set("watch.debounce_ms", 100)
        engine.settings.set("watch.rescan_seconds", 60.0)
        engine.add_source(source, adapter="auto" if len(formats) > 1 else None)
        before = files_of(source)
        engine.start_watching()
        time.sleep(0.5)
        fresh = cc.jan_old(source / "fresh")
        with open(fresh, "a", encoding="utf-8") as handle:
            handle.write('{"id": "z", "role": "user", "status": "ready", "created": 1723493400000, '
                         '"content": [{"type": "text", "text": {"value": "quokkafresh"}}]}\n')
        for _ in range(300):  # up to 15 s of looks
            if engine.search("quokkafresh", SearchFilters(kinds=("turn",))):
                break
            time.sleep(0.05)
        assert engine.search("quokkafresh", SearchFilters(kinds=("turn",)))
        assert engine.watcher is not None and engine.watcher._thread is not None and engine.watcher._thread.is_alive()
        problems = " ".join(p for _, _, p in engine.index.problems())
        assert "adapter error" not in problems
        after = files_of(source)
        assert {k: v for k, v in after.items() if not k.startswith("fresh/")} == before
    finally:
        engine.close()
