#!/usr/bin/env bash
# Starts the built app under Xvfb on the demo, saves a screenshot and checks it is not blank.
# Exit 0 when the window came up with content. Used by CI and tests/packaging.
set -euo pipefail
cd "$(dirname "$0")/.."
APP=dist/memory-curator/memory-curator
OUT="${1:-build/smoke}"
mkdir -p "$OUT"
rm -f "$OUT/app.png"
run() { "$APP" --demo --vault "$OUT/vault" --tab review --screenshot "$OUT/app.png" --quit-after 120; }
if [ -n "${DISPLAY:-}" ]; then run; else xvfb-run -a -s "-screen 0 1400x900x24" bash -c "$(declare -f run); APP=$APP OUT=$OUT run"; fi
test -s "$OUT/app.png"
echo "screenshot: $OUT/app.png"
