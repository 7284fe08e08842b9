"""Where the project's data folders (prompts/, models/, resources/) are, from any cwd.

In a checkout or an editable install they sit beside the packages; an installed wheel
carries them inside ``curator/_data/`` (pyproject's force-include).
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """The folder ``name`` (``prompts``, ``models`` or ``resources``)."""
    for candidate in (_PACKAGE.parent / name, _PACKAGE / "_data" / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"data folder {name!r} not found beside {_PACKAGE}")


def demo_dir() -> Path:
    """The bundled demo source folder."""
    return data_dir("resources") / "demo"


def readme_path() -> Path | None:
    """The README (beside the packages in a checkout, in ``_data`` in a wheel), if present."""
    for candidate in (_PACKAGE.parent / "README.md", _PACKAGE / "_data" / "README.md"):
        if candidate.is_file():
            return candidate
    return None
