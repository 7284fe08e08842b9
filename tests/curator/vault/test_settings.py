import pytest
import yaml

from curator.vault.settings import (
    OPTIONS,
    SCHEMA_VERSION,
    Settings,
    SourceConfig,
    load_settings,
    save_settings,
)


def test_every_option_declared_once_with_help():
    keys = [o.key for o in OPTIONS]
    assert len(keys) == len(set(keys))
    for option in OPTIONS:
        assert option.help and option.coerce(option.default) == option.default


def test_seed_numbers_are_the_defaults():
    s = Settings()
    assert s["batch.turn_threshold"] == 10
    assert s["batch.urgency_threshold"] == 5.0
    assert s["summary.inactivity_minutes"] == 5.0 and s["summary.min_messages"] == 5
    assert s["micro.max_facts"] == 8
    assert s["batch.auto_promote"] is False


def test_save_load_round_trip(tmp_path):
    path = tmp_path / "curator.yaml"
    s = Settings()
    s.set("batch.turn_threshold", "12")
    s.sources.append(SourceConfig(path="/chats", adapter="jsonl", user_id="maya", id="s1"))
    save_settings(path, s)
    loaded, warnings = load_settings(path)
    assert warnings == []
    assert loaded["batch.turn_threshold"] == 12
    assert loaded.sources[0].user_id == "maya"
    assert yaml.safe_load(path.read_text())["schema_version"] == SCHEMA_VERSION


def test_out_of_range_value_is_rejected():
    with pytest.raises(ValueError, match="minimum"):
        Settings().set("batch.turn_threshold", 0)


def test_migration_from_version_1_keeps_values_and_backup(tmp_path):
    path = tmp_path / "curator.yaml"
    path.write_text("turn_threshold: 7\nmodel_path: /m.gguf\nsources: [/chats]\n")
    loaded, _ = load_settings(path)
    assert loaded["batch.turn_threshold"] == 7
    assert loaded["model.path"] == "/m.gguf"
    assert loaded.sources[0].path == "/chats"
    assert (tmp_path / "curator.yaml.v1.bak").read_text().startswith("turn_threshold: 7")
    assert yaml.safe_load(path.read_text())["schema_version"] == SCHEMA_VERSION


def test_broken_file_is_kept_aside(tmp_path):
    path = tmp_path / "curator.yaml"
    path.write_text("settings: [unclosed\n")
    loaded, warnings = load_settings(path)
    assert loaded["batch.turn_threshold"] == 10
    assert warnings and "kept aside" in warnings[0]
    assert (tmp_path / "curator.yaml.corrupt-1").exists()


def test_unknown_and_invalid_values_warn(tmp_path):
    path = tmp_path / "curator.yaml"
    path.write_text(f"schema_version: {SCHEMA_VERSION}\nsettings:\n  batch:\n    turn_threshold: lots\n    bogus: 1\n")
    loaded, warnings = load_settings(path)
    assert loaded["batch.turn_threshold"] == 10
    assert len(warnings) == 2
