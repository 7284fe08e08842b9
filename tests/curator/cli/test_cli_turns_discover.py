"""`curator turns` and `curator source discover` in-process, on client databases the tests write."""

import contextlib
import io
import json

from fakes.chatdbs import make_ollama, make_webui, ollama_save_chat, webui_message, webui_put_chat

from curator.cli.main import main

T0 = 1767225600


def cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def test_turns_lists_what_was_read_with_roles_speakers_and_times(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    conn = make_webui(data / "webui.db")
    webui_put_chat(conn, "c1", "u-ana", "Capitals",
                   [webui_message("m1", None, "user", "capital of France?", T0),
                    webui_message("m2", "m1", "assistant", "Paris.", T0 + 1)], "m2", T0 + 1)
    webui_put_chat(conn, "c2", "u-ben", "Other", [webui_message("x1", None, "user", "kites", T0 + 5)], "x1", T0 + 5)
    conn.close()
    vault = tmp_path / "vault"
    assert cli("--vault", vault, "init")[0] == 0
    code, out, _ = cli("--vault", vault, "--json", "source", "add", data)
    source = json.loads(out)
    assert source["adapter"] == "openwebui"
    code, out, err = cli("--vault", vault, "--json", "turns")
    assert code == 0 and "not imported yet" in err
    assert [t["id"] for t in json.loads(out)] == [None, None, None]
    assert cli("--vault", vault, "import", data)[0] == 0
    code, out, _ = cli("--vault", vault, "--json", "turns", "--source", source["id"], "--conversation", "c1")
    turns = json.loads(out)
    assert [(t["role"], t["speaker"], t["timestamp"], t["text"]) for t in turns] == [
        ("user", "Ana", "2026-01-01T00:00:00Z", "capital of France?"),
        ("assistant", "Llama 3.1 8B", "2026-01-01T00:00:01Z", "Paris."),
    ]
    assert all(isinstance(t["id"], int) and t["title"] == "Capitals" for t in turns)
    code, out, _ = cli("--vault", vault, "turns")
    assert "== " in out and "user (Ana):" in out and "    Paris." in out


def test_turns_time_unknown_is_null(tmp_path):
    folder = tmp_path / "o"
    folder.mkdir()
    conn = make_ollama(folder / "db.sqlite")
    ollama_save_chat(conn, "c", "t", [("user", "when was this", "not a time")])
    conn.close()
    vault = tmp_path / "vault"
    cli("--vault", vault, "init")
    cli("--vault", vault, "source", "add", folder / "db.sqlite")
    cli("--vault", vault, "import", folder / "db.sqlite")
    _, out, _ = cli("--vault", vault, "--json", "turns")
    assert [(t["text"], t["timestamp"]) for t in json.loads(out)] == [("when was this", None)]
    assert "time unknown" in cli("--vault", vault, "turns")[1]


def test_source_discover_lists_and_adds(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".ollama").mkdir(parents=True)
    conn = make_ollama(home / ".ollama/db.sqlite")
    ollama_save_chat(conn, "c", "t", [("user", "hi", "2026-01-01 12:00:00+00:00")])
    conn.close()
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "DATA_DIR", "STORAGE_DIR"):
        monkeypatch.delenv(name, raising=False)
    vault = tmp_path / "vault"
    cli("--vault", vault, "init")
    code, out, _ = cli("--vault", vault, "source", "discover")
    assert code == 0 and "Ollama app schema 18" in out and "1 conversations" in out and "not added" in out
    code, out, _ = cli("--vault", vault, "--json", "source", "discover", "--add")
    data = json.loads(out)
    ollama = [c for c in data["clients"] if c["client"] == "Ollama app"]
    assert ollama[0]["source_id"] and [s["adapter"] for s in data["added"]] == ["ollama"]
    code, out, _ = cli("--vault", vault, "--json", "source", "discover", "--add")
    assert json.loads(out)["added"] == []


def test_turns_lists_what_an_import_of_a_folder_that_is_no_source_read(tmp_path):
    chats = tmp_path / "chats"
    chats.mkdir()
    (chats / "a.jsonl").write_text(json.dumps({"role": "user", "content": "I keep bees on the roof.",
                                               "created_at": "2026-01-01T00:00:00Z"}) + "\n", "utf-8")
    vault = tmp_path / "vault"
    cli("--vault", vault, "init")
    assert cli("--vault", vault, "import", chats)[0] == 0  # never added as a source
    code, out, _ = cli("--vault", vault, "--json", "turns")
    [turn] = json.loads(out)
    assert code == 0 and turn["text"] == "I keep bees on the roof." and isinstance(turn["id"], int)
    assert turn["source"].startswith("import-")
    code, out, _ = cli("--vault", vault, "turns", "--source", turn["source"])
    assert code == 0 and "I keep bees on the roof." in out and out != "no turns\n"
