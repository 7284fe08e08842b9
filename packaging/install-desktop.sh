#!/usr/bin/env bash
# Puts the built app's desktop entry and icon where the desktop finds them (your user only).
set -euo pipefail
cd "$(dirname "$0")/.."
APP=dist/memory-curator
[ -x "$APP/memory-curator" ] || { echo "build it first: bash packaging/build-app.sh" >&2; exit 1; }
mkdir -p ~/.local/share/applications ~/.local/share/icons/hicolor/scalable/apps
cp "$APP/share/applications/"*.desktop ~/.local/share/applications/
cp "$APP/share/icons/hicolor/scalable/apps/"*.svg ~/.local/share/icons/hicolor/scalable/apps/
echo "Memory Curator is in your applications menu."
