"""A cheaper answer to PySide6's question about every module imported after it.

PySide6 hooks the import system: each module imported once Qt is loaded is asked whether it
uses PySide6 (for its ``__feature__`` switching), and the answer came from
``inspect.getsource``, which tokenises the file through linecache. The window imports about
ninety modules after Qt; those checks were 13 ms of its start. The same question is
answered here by looking for the bytes ``PySide6`` in the module's file: the answer is the
same for every module with a source file, and anything else is left to PySide6's own check.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType

_FEATURE_MODULES = ("PySide6.support.feature", "shibokensupport.feature")


def _quick_check(original: Callable[[ModuleType], bool]) -> Callable[[ModuleType], bool]:
    def uses_pyside(module: ModuleType) -> bool:
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not path.endswith(".py"):
            return original(module)
        try:
            with open(path, "rb") as handle:
                return b"PySide6" in handle.read()
        except OSError:
            return original(module)

    uses_pyside.quick = True  # type: ignore[attr-defined]
    return uses_pyside


def install() -> bool:
    """Answer PySide6's per-import question from the file's bytes; False when PySide6's
    internals are not the ones this was written for (nothing is changed then)."""
    import PySide6.QtCore  # noqa: F401  (loads the feature module)

    for name in _FEATURE_MODULES:
        feature = sys.modules.get(name)
        original = getattr(feature, "_mod_uses_pyside", None)
        if feature is None or not callable(original):
            continue
        if not getattr(original, "quick", False):
            setattr(feature, "_mod_uses_pyside", _quick_check(original))  # noqa: B010 (a private name)
        return True
    return False
