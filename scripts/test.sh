#!/usr/bin/env bash
# Installs bacc with its test dependencies (and, where apt-get is available, the headless
# Chromium used by the report and site tests and Java for the PySpark test), then runs every test,
# the examples in the docstrings of src/bacc (pyproject.toml: testpaths, --doctest-modules) and
# the build of the documentation site (tests/test_package_site.py runs scripts/docs.sh). The run
# uses two worker processes (pytest-xdist, in the test extra; conftest.py gives the run that names
# no test files `-n 2 --dist loadgroup`); README.md gives how long it takes.
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  need=()
  command -v chromium-headless-shell >/dev/null 2>&1 || need+=(chromium-headless-shell)
  command -v java >/dev/null 2>&1 || need+=(openjdk-17-jre-headless)
  if [ ${#need[@]} -gt 0 ]; then
    echo "installing ${need[*]} (apt-get)"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}") >/dev/null \
      || echo "could not install ${need[*]}; the tests that need them use what is installed or are skipped"
  fi
fi
python -m pip install --quiet -e ".[test,docs]"
python -m pytest -q --full
