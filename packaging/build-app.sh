#!/usr/bin/env bash
# Builds the one-folder app into dist/memory-curator/ with PyInstaller, plus a Linux desktop
# entry and icon under dist/memory-curator/share/. Needs the project's venv (bash .dev/setup)
# and `pip install pyinstaller` in it. Takes a few minutes on 2 cores.
#   PYTHON=/path/to/python bash packaging/build-app.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
"$PY" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath dist --workpath build/pyinstaller packaging/memory-curator.spec
APP=dist/memory-curator
mkdir -p "$APP/share/applications" "$APP/share/icons/hicolor/scalable/apps"
sed "s|^Exec=.*|Exec=$(pwd)/$APP/memory-curator %F|" packaging/linux/io.github.memorycurator.MemoryCurator.desktop \
  > "$APP/share/applications/io.github.memorycurator.MemoryCurator.desktop"
cp resources/icons/io.github.memorycurator.MemoryCurator.svg "$APP/share/icons/hicolor/scalable/apps/"
du -sh "$APP"
echo "built $APP (start: $APP/memory-curator --demo; install the menu entry: bash packaging/install-desktop.sh)"
