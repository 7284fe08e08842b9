import json
import os

import pytest

from curator.vault import atomic
from curator.vault.atomic import atomic_write_bytes, read_json_state, write_json_state


def test_atomic_write_replaces_and_leaves_no_temp(tmp_path):
    target = tmp_path / "sub" / "file.txt"
    atomic_write_bytes(target, b"one")
    atomic_write_bytes(target, b"two")
    assert target.read_bytes() == b"two"
    assert [p.name for p in target.parent.iterdir()] == ["file.txt"]


def test_failed_write_keeps_old_bytes(tmp_path, monkeypatch):
    target = tmp_path / "file.txt"
    atomic_write_bytes(target, b"old")

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(atomic.os, "replace", boom)
    with pytest.raises(OSError):
        atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["file.txt"]


def test_refuses_to_write_through_symlink(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("x")
    link = tmp_path / "link.txt"
    os.symlink(real, link)
    with pytest.raises(OSError):
        atomic_write_bytes(link, b"y")
    assert real.read_text() == "x"


def test_json_state_keeps_backup_and_recovers_from_corruption(tmp_path):
    state = tmp_path / "state.json"
    write_json_state(state, {"n": 1})
    write_json_state(state, {"n": 2})
    assert json.loads((tmp_path / "state.json.bak").read_text()) == {"n": 1}
    state.write_text("{not json")
    value, warning = read_json_state(state, {"n": 0})
    assert value == {"n": 1}
    assert warning and "restored from state.json.bak" in warning
    assert (tmp_path / "state.json.corrupt-1").read_text() == "{not json"


def test_json_state_defaults_when_no_good_copy(tmp_path):
    state = tmp_path / "state.json"
    state.write_bytes(b"\xff\xfe garbage")
    value, warning = read_json_state(state, {"fresh": True})
    assert value == {"fresh": True}
    assert "defaults restored" in warning
    missing, none = read_json_state(tmp_path / "absent.json", [])
    assert missing == [] and none is None
