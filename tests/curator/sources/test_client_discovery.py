"""Finding installed chat clients at their default places, under a temporary home."""

import json

import pytest
from fakes.chatdbs import (
    anything_put,
    make_anythingllm,
    make_ollama,
    make_webui,
    ollama_save_chat,
    webui_message,
    webui_put_chat,
)

from curator.engine import Engine
from curator.sources.discovery import discover_clients

T0 = 1767225600


def fill(home, platform):
    """Install the three SQLite clients where ``platform`` keeps them; returns their db paths."""
    if platform == "win32":
        anything = home / "AppData/Roaming/anythingllm-desktop/storage/anythingllm.db"
        ollama = home / "AppData/Local/Ollama/db.sqlite"
    elif platform == "darwin":
        anything = home / "Library/Application Support/anythingllm-desktop/storage/anythingllm.db"
        ollama = home / "Library/Application Support/Ollama/db.sqlite"
    else:
        anything = home / "cfg/anythingllm-desktop/storage/anythingllm.db"  # XDG_CONFIG_HOME
        ollama = home / ".ollama/db.sqlite"
    webui = home / "openwebui-data/webui.db"  # DATA_DIR
    for path in (anything, ollama, webui):
        path.parent.mkdir(parents=True)
    conn = make_anythingllm(anything)
    anything_put(conn, "q1", "a1", T0 * 1000)
    anything_put(conn, "q2", "a2", T0 * 1000, thread=None)
    conn.close()
    conn = make_ollama(ollama)
    for chat in ("c1", "c2", "c3"):
        ollama_save_chat(conn, chat, chat, [("user", "hi", "2026-01-01 12:00:00+00:00")])
    conn.close()
    conn = make_webui(webui)
    webui_put_chat(conn, "w1", "u-ana", "W", [webui_message("m1", None, "user", "hello", T0)], "m1", T0)
    conn.close()
    return {"AnythingLLM": anything, "Ollama app": ollama, "Open WebUI": webui}


@pytest.mark.parametrize("platform", ["linux", "darwin", "win32"])
def test_discovers_clients_with_versions_and_counts(tmp_path, platform):
    home = tmp_path / "home"
    paths = fill(home, platform)
    (home / ".claude/projects/-work-x").mkdir(parents=True)
    (home / ".claude/projects/-work-x/s1.jsonl").write_text(
        '{"type": "user", "message": {"role": "user", "content": "hi"}, "timestamp": "2026-01-01T00:00:00Z"}\n')
    (home / ".local/share/nomic.ai/GPT4All").mkdir(parents=True)
    env = {"HOME": str(home), "USERPROFILE": str(home), "XDG_CONFIG_HOME": str(home / "cfg"),
           "DATA_DIR": str(home / "openwebui-data")}
    found = {c.client: c for c in discover_clients(env=env, platform=platform, system_paths=False)}
    assert {name: (found[name].path, found[name].conversations) for name in paths} == {
        "AnythingLLM": (str(paths["AnythingLLM"]), 2), "Ollama app": (str(paths["Ollama app"]), 3),
        "Open WebUI": (str(paths["Open WebUI"]), 1)}
    assert found["Ollama app"].version == "schema 18" and found["Ollama app"].adapter == "ollama"
    assert found["Claude Code"].conversations == 1 and found["Claude Code"].supported
    if platform == "linux":
        assert not found["GPT4All"].supported and "binary" in found["GPT4All"].detail


def test_nothing_installed_finds_nothing(tmp_path):
    assert discover_clients(env={"HOME": str(tmp_path)}, platform="linux", system_paths=False) == []


def test_engine_adds_discovered_clients_once(tmp_path):
    home = tmp_path / "home"
    fill(home, "linux")
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / "cfg"), "DATA_DIR": str(home / "openwebui-data")}
    with Engine(tmp_path / "vault", triggers=False) as engine:
        clients = engine.discover_clients(env=env, platform="linux", system_paths=False)
        added = engine.add_discovered(clients)
        assert sorted(s.adapter for s in added) == ["anythingllm", "ollama", "openwebui"]
        again = engine.discover_clients(env=env, platform="linux", system_paths=False)
        assert all(c.source_id for c in again) and engine.add_discovered(again) == []
        engine.scan_all()
        details = engine.source_details()
        assert {d.client for d in details.values()} == {"AnythingLLM", "Ollama app", "Open WebUI"}
        assert all(d.version and d.health == "available" for d in details.values())


def test_unsupported_version_shows_in_source_details(tmp_path):
    folder = tmp_path / "ollama"
    folder.mkdir()
    make_ollama(folder / "db.sqlite", version=42).close()
    with Engine(tmp_path / "vault", triggers=False) as engine:
        source = engine.add_source(folder / "db.sqlite")
        report = engine.scan_all()
        assert report.added == [] and any("unsupported version" in p for p in report.problems)
        details = engine.source_details()[source.id]
        assert (details.client, details.version, details.health) == ("Ollama app", "schema 42", "unsupported version")
        status = engine.status()["sources"][0]
        assert any("unsupported version" in p for p in status["problems"])


def test_jan_data_folder_moved_through_settings(tmp_path):
    home = tmp_path / "home"
    moved = tmp_path / "elsewhere" / "jan-data"
    thread = moved / "threads" / "jan_1717666232"
    thread.mkdir(parents=True)
    line = {"id": "01J", "thread_id": "jan_1717666232", "object": "thread.message", "role": "user",
            "status": "ready", "created_at": 1717666232000,
            "content": [{"type": "text", "text": {"value": "hello jan", "annotations": []}}]}
    (thread / "messages.jsonl").write_text(json.dumps(line) + "\n")
    (home / ".config/Jan").mkdir(parents=True)
    (home / ".config/Jan/settings.json").write_text(json.dumps({"data_folder": str(moved)}))
    found = discover_clients(env={"HOME": str(home)}, platform="linux", system_paths=False)
    assert [(c.client, c.path, c.supported, c.conversations) for c in found] == [("Jan", str(moved), True, 1)]
