"""The engine's tests in a lane where importing PySide6 (or ui) fails.

The engine must never need Qt: this installs an import blocker for PySide6, shiboken6 and
ui, then runs pytest on tests/curator without the pytest-qt plugin. Any engine module or
engine test that reaches for Qt fails here with ImportError.
"""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

BLOCKED = ("PySide6", "shiboken6", "ui", "pytestqt")


class QtBlocker(importlib.abc.MetaPathFinder):
    """Refuses every blocked top-level package and its submodules."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname.split(".", 1)[0] in BLOCKED:
            raise ImportError(f"{fullname} is blocked in the engine lane (curator must not need it)")
        return None


def main(argv: list[str]) -> int:
    sys.meta_path.insert(0, QtBlocker())
    import pytest

    # Without pytest-qt its qt_api option in pyproject is unknown; that warning is expected.
    quiet = ["-W", "ignore:Unknown config option:pytest.PytestConfigWarning"]
    return int(pytest.main(["-p", "no:pytest-qt", "-p", "no:cacheprovider", *quiet, *argv]))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:] or ["tests/curator", "-q", "-m", "not llm"]))
