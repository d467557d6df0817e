"""Two speeds of the test suite, for every test path (tests/ and the doctests of src/bacc).

Plain ``pytest`` is the fast run for development: the tests marked ``slow`` (long statistical
checks, long simulations, the build of the documentation site) are left out, and the summary
counts them as deselected. ``pytest --full`` runs every test; ``scripts/test.sh`` (the README's
test command, and CI's) does.
"""

from __future__ import annotations

import os


def pytest_addoption(parser):
    parser.addoption("--full", action="store_true", default=False,
                     help="run every test, the slow ones too (scripts/test.sh and CI do)")


def full_run(config) -> bool:
    """Every test runs with --full, with BACC_FULL_TESTS=1, or when -m chooses the tests."""
    return bool(config.getoption("--full") or os.environ.get("BACC_FULL_TESTS")
                or config.getoption("-m"))


def pytest_collection_modifyitems(config, items):
    """The fast run leaves out the tests marked slow (deselected, and counted in the summary)."""
    if full_run(config):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]


def pytest_report_header(config):
    if full_run(config):
        return "bacc: the full run (every test)"
    return "bacc: the fast run (tests marked slow are left out; pytest --full runs them)"
