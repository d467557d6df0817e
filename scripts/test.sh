#!/usr/bin/env bash
# Installs bacc with its test dependencies and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install --quiet -e ".[test]"
python -m pytest -q
