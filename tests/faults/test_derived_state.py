"""Items 3 and 4 of issue 11: a damaged index heals itself; settings are never silently lost."""

from __future__ import annotations

import sqlite3

import pytest
from faultkit import cli, msg

from curator.engine import Engine
from curator.vault.settings import load_settings


def _vault_with_turns(tmp_path):
    vault, source = tmp_path / "vault", tmp_path / "chats"
    source.mkdir()
    (source / "a.jsonl").write_text(
        msg("user", "My parrot is called Kiwi", "m1") + msg("assistant", "Hello Kiwi", "m2")
    )
    with Engine(vault, triggers=False) as engine:
        engine.add_source(source)
        engine.scan_all()
        engine.memory.save(title="Parrot", content="The parrot Kiwi likes grapes.", area="knowledge")
    return vault, source


def _damage(index_file, how):
    if how == "garbage":
        index_file.write_bytes(b"this is not a database at all" * 100)
    elif how == "empty":
        index_file.write_bytes(b"")
    elif how == "truncated":
        data = index_file.read_bytes()
        index_file.write_bytes(data[: len(data) // 3])
    elif how == "schema":
        conn = sqlite3.connect(index_file)
        conn.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
        conn.commit()
        conn.close()
    elif how == "foreign":
        index_file.unlink()
        conn = sqlite3.connect(index_file)
        conn.execute("CREATE TABLE turns(x)")
        conn.commit()
        conn.close()


@pytest.mark.parametrize("how", ["garbage", "empty", "truncated", "schema", "foreign"])
def test_a_damaged_index_is_set_aside_and_rebuilt(tmp_path, how):
    vault, _ = _vault_with_turns(tmp_path)
    for extra in ("-wal", "-shm"):
        (vault / f"index.sqlite{extra}").unlink(missing_ok=True)
    _damage(vault / "index.sqlite", how)
    events = []
    from curator.events import EventBus

    bus = EventBus()
    bus.subscribe(lambda e: events.append(e), "index.")
    with Engine(vault, triggers=False, bus=bus) as engine:
        assert [h.number for h in engine.search("parrot Kiwi") if h.item_type == "turn"][:1] == [1]
        assert any(h.item_type == "document" for h in engine.search("grapes"))
        if how != "empty":  # an empty file is a valid empty database to SQLite
            assert any("moved aside" in w for w in engine.warnings)
            assert list(vault.glob("index.sqlite.corrupt-*"))
            assert events[0].data["stage"] == "started"
            assert events[-1].data["stage"] == "done"
        assert engine.reindex().equal


def test_every_command_works_on_a_damaged_index(tmp_path):
    vault, _ = _vault_with_turns(tmp_path)
    _damage(vault / "index.sqlite", "garbage")
    for extra in ("-wal", "-shm"):
        (vault / f"index.sqlite{extra}").unlink(missing_ok=True)
    result = cli(vault, "search", "Kiwi")  # a reader heals it when no writer runs
    assert result.returncode == 0, result.stderr
    assert "Kiwi" in result.stdout
    for args in (("status",), ("review", "list"), ("reindex",)):
        result = cli(vault, *args)
        assert result.returncode == 0 and "Traceback" not in result.stderr, (args, result.stderr)


def test_stale_rebuild_files_of_a_killed_reindex_are_removed(tmp_path):
    vault, _ = _vault_with_turns(tmp_path)
    for name in (".index-rebuild-999999.sqlite", ".index-rebuild-999999.sqlite-wal", ".index-rebuild-5.sqlite-shm"):
        (vault / name).write_bytes(b"x" * 1000)
    with Engine(vault, triggers=False):
        pass
    assert list(vault.glob(".index-rebuild-*")) == []


def _settings_with_source(tmp_path):
    vault, source = _vault_with_turns(tmp_path)
    with Engine(vault, triggers=False) as engine:
        engine.update_settings({"triggers.batch_turns": 7} if "triggers.batch_turns" in engine.settings.values
                               else {})
    return vault, source


@pytest.mark.parametrize("bad", [b"", b"   \n", b"sources: [unclosed\n  - : :", b"- a list\n- not a mapping\n",
                                 b"\xff\xfe\x00garbage"])
def test_a_broken_settings_file_falls_back_to_the_last_good_copy(tmp_path, bad):
    vault, source = _settings_with_source(tmp_path)
    settings_file = vault / "curator.yaml"
    settings_file.write_bytes(bad)
    settings, warnings = load_settings(settings_file)
    assert [s.path for s in settings.sources] == [str(source.resolve())]
    assert warnings and "last good copy" in warnings[0]
    aside = list(vault.glob("curator.yaml.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == bad
    # The engine says so and keeps working with the sources; the backup is never emptied.
    with Engine(vault, triggers=False) as engine:
        assert [s.path for s in engine.settings.sources] == [str(source.resolve())]
    assert (vault / "curator.yaml.bak").read_bytes().strip()
    assert load_settings(settings_file)[0].sources


def test_the_backup_is_never_overwritten_by_an_empty_file(tmp_path):
    vault, _ = _settings_with_source(tmp_path)
    settings_file = vault / "curator.yaml"
    settings_file.write_bytes(b"")
    with Engine(vault, triggers=False) as engine:
        engine.update_settings({})
    assert b"sources" in (vault / "curator.yaml.bak").read_bytes()
    assert load_settings(settings_file)[0].sources


def test_the_fallback_is_the_newest_good_settings_not_the_generation_before(tmp_path):
    vault, first = _vault_with_turns(tmp_path)
    second = tmp_path / "more-chats"
    second.mkdir()
    (second / "b.jsonl").write_text('{"role": "user", "content": "hello"}\n')
    with Engine(vault, triggers=False) as engine:
        engine.add_source(second)  # the last change before the file is emptied
    (vault / "curator.yaml").write_bytes(b"")
    settings, warnings = load_settings(vault / "curator.yaml")
    assert sorted(s.path for s in settings.sources) == sorted([str(first.resolve()), str(second.resolve())])
    assert warnings and "last good copy" in warnings[0]


def test_a_good_hand_edit_becomes_the_last_good_copy(tmp_path):
    vault, _ = _settings_with_source(tmp_path)
    settings_file = vault / "curator.yaml"
    edited = settings_file.read_bytes() + b"\n# edited by hand\n"
    settings_file.write_bytes(edited)
    load_settings(settings_file)
    assert (vault / "curator.yaml.bak").read_bytes() == edited


def test_an_index_of_an_earlier_version_is_replaced_not_kept_aside(tmp_path):
    vault, _ = _vault_with_turns(tmp_path)
    conn = sqlite3.connect(vault / "index.sqlite")
    conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with Engine(vault, triggers=False) as engine:
        assert [h.number for h in engine.search("parrot Kiwi") if h.item_type == "turn"][:1] == [1]
        assert any("earlier version" in w for w in engine.warnings)
        assert engine.reindex().equal
    assert not list(vault.glob("index.sqlite.corrupt-*"))

