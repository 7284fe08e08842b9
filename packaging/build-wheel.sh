#!/usr/bin/env bash
# Builds the installable wheel (with prompts/, models/ and resources/ inside it) into dist/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .dev/setup
.venv/bin/python -m pip install --quiet build
.venv/bin/python -m build --wheel --outdir dist
ls -l dist/*.whl
