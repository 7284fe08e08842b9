"""Entry point of the packaged window (PyInstaller runs this file as ``__main__``)."""

from ui.app import main

raise SystemExit(main())
