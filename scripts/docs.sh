#!/usr/bin/env bash
# Builds the documentation site into docs/_build/html: installs bacc with its `docs` extra, then
# runs Sphinx with warnings as errors. Every gallery example and every code block of the user
# guide runs during the build. Open docs/_build/html/index.html in a browser.
#   bash scripts/docs.sh            # install and build
#   BACC_DOCS_NO_INSTALL=1 bash scripts/docs.sh   # build only (the docs extra already installed)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${BACC_DOCS_NO_INSTALL:-}" ]; then
  python -m pip install --quiet -e ".[docs]"
fi
out="${BACC_DOCS_OUT:-docs/_build}"
# every example runs in every build: no page of a renamed or removed example survives either
rm -rf docs/auto_examples docs/api/generated docs/api/modules
MPLBACKEND=Agg python -m sphinx -W --keep-going -n -q -b html -d "$out/doctrees" docs "$out/html"
echo "site built: $out/html/index.html"
