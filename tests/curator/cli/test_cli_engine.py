"""The `curator` command as a real process: watch, search --json, kill -9, restart, reindex."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

TIMEOUT = 15.0


def curator(*args, check=True):
    result = subprocess.run(
        [sys.executable, "-m", "curator.cli.main", *map(str, args)], capture_output=True, text=True, timeout=60
    )
    if check and result.returncode != 0:
        raise AssertionError(f"curator {args} failed ({result.returncode}): {result.stderr}")
    return result


def msg(role, content, mid=None):
    fields = {"role": role, "content": content, "timestamp": "2026-11-20T18:00:00Z"}
    if mid:
        fields["id"] = mid
    return json.dumps(fields) + "\n"


def cli(vault, *args):
    """Run a short command in-process (the real-process path is covered by `watch` and errors)."""
    import contextlib
    import io

    from curator.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--vault", str(vault), *map(str, args)]) == 0
    return out.getvalue()


class Watch:
    """A `curator watch` process whose output lines are collected by a thread."""

    def __init__(self, vault: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "curator.cli.main", "--vault", str(vault), "watch", "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self.lines: list[dict] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        assert wait_for(lambda: any(e.get("event") == "ready" for e in self.lines)), self.lines

    def _read(self) -> None:
        for raw in self.proc.stdout:
            try:
                self.lines.append(json.loads(raw))
            except ValueError:
                pass

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=20)

    def kill(self) -> None:
        self.proc.kill()  # SIGKILL: no clean-up at all
        self.proc.wait(timeout=20)


def wait_for(predicate, timeout=TIMEOUT, step=0.2):
    for _ in range(int(timeout / step)):  # bounded by a count of looks, not by the clock
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


def found_by_search(vault, words):
    """{word: numbers of the turns that `curator search --json` returns whose own text holds it}."""
    hits = json.loads(curator("--vault", vault, "search", "--json", " ".join(words), "--limit", "100").stdout)
    numbers = [h["number"] for h in hits if h["item_type"] == "turn"]
    conn = sqlite3.connect(vault / "index.sqlite")
    try:
        text = dict(conn.execute("SELECT number, text FROM turns"))
    finally:
        conn.close()
    return {w: [n for n in numbers if w in text[n]] for w in words}


def active_texts(vault):
    conn = sqlite3.connect(vault / "index.sqlite")
    try:
        return [r[0] for r in conn.execute("SELECT text FROM turns WHERE status = 'active'")]
    finally:
        conn.close()


@pytest.fixture
def vault(tmp_path):
    from curator.cli.main import main

    v = tmp_path / "vault"
    assert main(["--vault", str(v), "init"]) == 0
    return v


def test_watch_process_finds_each_write_pattern_once(tmp_path, vault):
    chats = tmp_path / "chats"
    chats.mkdir()
    (chats / "live.jsonl").write_text("")
    turns = tmp_path / "turns"
    turns.mkdir()
    cli(vault, "source", "add", chats)
    cli(vault, "source", "add", turns, "--adapter", "turn_folder")
    listed = json.loads(cli(vault, "source", "list", "--json"))
    assert [s["adapter"] for s in listed] == ["jsonl", "turn_folder"]
    watch = Watch(vault)
    try:
        with open(chats / "live.jsonl", "a") as handle:  # appended line by line
            for i in range(3):
                handle.write(msg("user", f"appended{i} words"))
                handle.flush()
                time.sleep(0.05)
        tmp = chats / ".whole.jsonl.tmp"  # temp + rename
        tmp.write_text(msg("user", "renamedfile words") + msg("assistant", "renamedreply words"))
        os.replace(tmp, chats / "whole.jsonl")
        unit = turns / "turn_000001"  # a turn folder, file by file
        unit.mkdir()
        (unit / "context.md").write_text("## §0 Query\nfolderquestion words\n")
        time.sleep(0.1)
        (unit / "response.md").write_text("folderanswer words")
        (unit / "metadata.json").write_text("{}")
        words = ["appended0", "appended1", "appended2", "renamedfile", "renamedreply", "folderquestion", "folderanswer"]
        assert wait_for(lambda: len(active_texts(vault)) == 7, step=0.05), active_texts(vault)
        found = found_by_search(vault, words)
        assert all(len(numbers) == 1 for numbers in found.values()), found
        status = json.loads(curator("--vault", vault, "status", "--json").stdout)
        assert status["writer"]["pid"] == watch.proc.pid
        assert [s["status"] for s in status["sources"]] == ["watching", "watching"]
        assert status["turns"]["default"]["active"] == 7
        assert any(e.get("event") == "turn" for e in watch.lines)
        # a writer is running: a second writer is refused with a clear message
        locked = curator("--vault", vault, "import", chats, check=False)
        assert locked.returncode == 3 and "in use by process" in locked.stderr
    finally:
        assert watch.stop() == 0


def test_kill_9_in_a_burst_then_restart_keeps_every_turn_once(tmp_path, vault):
    chats = tmp_path / "chats"
    chats.mkdir()
    f = chats / "burst.jsonl"
    f.write_text("")
    cli(vault, "source", "add", chats)
    watch = Watch(vault)
    total = 300
    killed = threading.Event()

    def write_burst():
        with open(f, "a") as handle:
            for i in range(total):
                handle.write(msg("user" if i % 2 == 0 else "assistant", f"burst{i} line"))
                handle.flush()
                if i == total // 3:
                    killed.wait(10)
                time.sleep(0.002)

    writer = threading.Thread(target=write_burst)
    writer.start()
    assert wait_for(lambda: len(active_texts(vault)) > 0, step=0.05)
    watch.kill()
    killed.set()
    writer.join()
    watch = Watch(vault)
    try:
        assert wait_for(lambda: len(active_texts(vault)) == total), len(active_texts(vault))
    finally:
        assert watch.stop() == 0
    texts = active_texts(vault)
    assert len(texts) == len(set(texts)) == total
    report = json.loads(cli(vault, "reindex", "--json"))
    assert report["equal"] is True, report["differences"]
    assert report["turns"] == total
    assert sorted(active_texts(vault)) == sorted(texts)


def test_user_errors_are_one_line_and_non_zero(tmp_path, vault, capsys):
    from curator.cli.main import main

    cases = [
        (("--vault", tmp_path / "none", "search", "x"), "no vault at"),
        (("--vault", vault, "source", "add", tmp_path / "missing"), "does not exist"),
        (("--vault", vault, "source", "add", tmp_path, "--adapter", "nope"), "unknown adapter"),
        (("--vault", vault, "source", "remove", "nope"), "no source"),
        (("--vault", vault, "search", "x", "--since", "yesterday"), "cannot read the time"),
        (("--vault", vault, "show", "12345"), "nothing with id"),
        (("--vault", vault, "show", "../../etc/passwd"), "unsafe"),
        (("--vault", vault, "import", vault), "inside the vault"),
    ]
    for args, expected in cases:
        code = main([str(a) for a in args])
        err = capsys.readouterr().err
        assert code != 0, args
        assert expected in err and err.count("\n") == 1, (args, err)
    # and the same through a real process, where a traceback would show
    result = curator("--vault", tmp_path / "none", "status", check=False)
    assert result.returncode == 2 and "Traceback" not in result.stderr and "no vault at" in result.stderr


def test_import_search_show_and_json_everywhere(tmp_path, vault, capsys):
    from curator.cli.main import main

    def run(*args):
        assert main([str(a) for a in args]) == 0
        return capsys.readouterr().out

    chats = tmp_path / "chats"
    chats.mkdir()
    (chats / "a.jsonl").write_text(msg("user", "The marmalade recipe uses Seville oranges", "m1"))
    assert json.loads(run("--vault", vault, "import", chats, "--json"))["added"] == 1
    assert json.loads(run("import", chats, "--json", "--vault", vault))["added"] == 0
    hits = json.loads(run("--vault", vault, "--json", "search", "seville", "--user", "default", "--kind", "turn"))
    assert [h["number"] for h in hits] == [1]
    shown = json.loads(run("--vault", vault, "show", "1", "--json"))
    assert shown["text"].startswith("The marmalade") and shown["provenance"]["key"] == "id:m1"
    assert "marmalade" in run("--vault", vault, "show", "#1")
    assert json.loads(run("--vault", vault, "search", "nothingmatches", "--json")) == []
    status = json.loads(run("--vault", vault, "status", "--json"))
    assert status["turns"] == {"default": {"active": 1}} and status["writer"] is None
    assert "identical to the live index" in run("--vault", vault, "reindex")
