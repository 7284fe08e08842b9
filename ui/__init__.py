"""Memory Curator's Qt face: thin panes over Qt models that drive the ``curator`` engine.

No business rule lives here; everything a pane does is an engine call run off the GUI thread.
"""

from ui.infra.qt_imports import install as _install_quick_import_check

# First thing: every module the window imports after Qt pays PySide6's per-import check.
_install_quick_import_check()
