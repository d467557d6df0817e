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
  # the browser: Debian's headless shell (the same engine as chromium, lighter to run)
  command -v chromium-headless-shell >/dev/null 2>&1 || need+=(chromium-headless-shell)
  command -v java >/dev/null 2>&1 || need+=(openjdk-17-jre-headless)
  if [ ${#need[@]} -gt 0 ]; then
    echo "installing ${need[*]} (apt-get)"
    apt-get update -qq >/dev/null || true
    for package in "${need[@]}"; do
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package" >/dev/null \
        || echo "could not install $package"
    done
  fi
  # a release without the headless shell: the full browser serves the same tests
  if ! command -v chromium-headless-shell >/dev/null 2>&1 && ! command -v chromium >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null \
      || echo "could not install chromium; the tests that need a browser will be skipped"
  fi
fi
python -m pip install --quiet -e ".[test,docs]"
python -m pytest -q --full
