"""A write that lands while a unit is being read must leave the unit looking changed.

The ingestor skips a unit whose fingerprint equals the one its last read stored. A fingerprint
taken after the bytes were read describes bytes that were never read: a line a client appended
in that moment was then called unchanged and waited for a later write (the last message of a
conversation waits forever). Each adapter is read with a write injected mid-read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from fakes import chat_clients as cc

from curator.engine import Engine
from curator.sources.adapters import detect_adapter, get_adapter
from curator.sources.adapters import episodes as episodes_module
from curator.sources.adapters import jsonl as jsonl_module
from curator.sources.adapters import turn_folder as turn_folder_module
from curator.sources.adapters.common import FileAdapter


def msg(role: str, text: str) -> str:
    return json.dumps({"role": role, "content": text}) + "\n"


def touch(path: Path) -> None:
    """A write as the fingerprint sees it: a later modification time (the size may stay)."""
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def write_turn_folder(root: Path) -> Path:
    unit = root / "turn_000001"
    unit.mkdir(parents=True)
    (unit / "context.md").write_text("## §0 Query\nWhich fern likes shade?")
    (unit / "response.md").write_text("A maidenhair fern.")
    return unit


def write_episode(root: Path) -> Path:
    day = root / "memory" / "episodes" / "2026-02-04.md"
    day.parent.mkdir(parents=True)
    day.write_text("# 2026-02-04\n\n## 09:15\nuser: my fern is drooping\n")
    return day


def write_jsonl(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    f = root / "chat.jsonl"
    f.write_text(msg("user", "first words") + msg("assistant", "second words"))
    return f


def hook_module(monkeypatch: pytest.MonkeyPatch, module: object, name: str, write: Callable[[], None]) -> None:
    """Run ``write`` the first time ``module.name`` is called (after the adapter read some bytes)."""
    original = getattr(module, name)
    done: list[bool] = []

    def wrapped(*args, **kwargs):
        if not done:
            done.append(True)
            write()
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapped)


def hook_parse(monkeypatch: pytest.MonkeyPatch, adapter: FileAdapter, write: Callable[[], None]) -> None:
    """Run ``write`` once the adapter has parsed the file (a whole-file format)."""
    original = type(adapter).parse

    def wrapped(self, unit, out):
        original(self, unit, out)
        write()

    monkeypatch.setattr(type(adapter), "parse", wrapped)


CASES: dict[str, Callable[[Path], Path]] = {
    "jsonl": write_jsonl,
    "turn_folder": write_turn_folder,
    "episodes": write_episode,
    "chatgpt": lambda root: cc.chatgpt_export(root),
    "lmstudio": cc.lmstudio_chat,
    "sillytavern": cc.sillytavern_current,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_write_during_the_read_is_not_taken_as_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      case: str) -> None:
    root = tmp_path / "src"
    root.mkdir()
    CASES[case](root)
    name, _ = detect_adapter(root)
    adapter = get_adapter(name)
    (unit,) = adapter.list_units(root)
    if case == "jsonl":
        hook_module(monkeypatch, jsonl_module, "decode_utf8", lambda: touch(unit))
    elif case == "turn_folder":  # the reply written while the context is read
        hook_module(monkeypatch, turn_folder_module, "decode_utf8", lambda: touch(unit / "response.md"))
    elif case == "episodes":
        hook_module(monkeypatch, episodes_module, "decode_utf8", lambda: touch(unit))
    else:
        assert isinstance(adapter, FileAdapter)
        hook_parse(monkeypatch, adapter, lambda: touch(unit))
    before = adapter.fingerprint(unit)
    result = adapter.read(root, unit, "src", None)
    assert result.ready and result.turns and result.state is not None
    assert adapter.fingerprint(unit) != before  # the hook did write
    assert result.state.fingerprint != adapter.fingerprint(unit)
    monkeypatch.undo()
    again = adapter.read(root, unit, "src", None)
    assert again.state is not None and again.state.fingerprint == adapter.fingerprint(unit)  # quiet: read once


def test_a_line_appended_while_the_file_is_read_is_indexed_at_the_next_look(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The watcher flake this was found by: the last line of a rewritten log never searchable."""
    source = tmp_path / "chats"
    chat = write_jsonl(source)
    engine = Engine(tmp_path / "vault", triggers=False)
    try:
        config = engine.add_source(source, adapter="jsonl")
        engine.ingestor.ingest_unit(config, chat)
        assert len(engine.index.turns("default")) == 2

        def append() -> None:
            with open(chat, "a") as handle:
                handle.write(msg("user", "third words"))

        with open(chat, "a") as handle:
            handle.write(msg("assistant", "fourth words"))
        hook_module(monkeypatch, jsonl_module, "decode_utf8", append)
        engine.ingestor.ingest_unit(config, chat)  # reads "fourth"; "third" lands after its bytes were read
        monkeypatch.undo()
        engine.ingestor.ingest_unit(config, chat)  # what the next event or rescan does
        assert sorted(t.text for t in engine.index.turns("default")) == [
            "first words", "fourth words", "second words", "third words"]
    finally:
        engine.close()
