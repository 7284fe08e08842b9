"""Adding a folder whose client data lies a level or more down (issue 21 item 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from curator.bench.client_shapes import lmstudio_conversation, open_webui_database
from curator.engine import Engine, SourceError

CHAT = [("user", "I keep bees on the roof."), ("assistant", "Lovely.")]


def test_a_home_folder_with_a_hidden_lm_studio_folder_is_added_as_lm_studio(tmp_path: Path) -> None:
    home = tmp_path / "home"
    lmstudio_conversation(home / ".lmstudio", "bees", CHAT)
    (home / "Documents").mkdir()
    (home / "Documents" / "notes.txt").write_text("not a chat", "utf-8")
    with Engine(tmp_path / "vault", triggers=False) as engine:
        source = engine.add_source(home)
        assert source.adapter == "lmstudio" and Path(source.path).name == "conversations"
        engine.scan_all()
        assert engine.index.turns("default")[0].text == "I keep bees on the roof."


def test_an_open_webui_folder_with_data_webui_db_below_is_found(tmp_path: Path) -> None:
    app = tmp_path / "open-webui"
    open_webui_database(app / "backend" / "data", "bees", CHAT)
    with Engine(tmp_path / "vault", triggers=False) as engine:
        source = engine.add_source(app)
        assert source.adapter == "openwebui" and source.path.endswith("data")


def test_two_clients_below_are_named_not_guessed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    lmstudio_conversation(home / ".lmstudio", "bees", CHAT)
    open_webui_database(home / "open-webui" / "data", "bees", CHAT)
    with Engine(tmp_path / "vault", triggers=False) as engine, pytest.raises(SourceError) as refused:
        engine.add_source(home)
    assert "LM Studio" in str(refused.value) and "Open WebUI" in str(refused.value)
