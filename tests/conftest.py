import pathlib
import sys

import pytest

# tests/references/reference.py is imported by name
sys.path.insert(0, str(pathlib.Path(__file__).parent))


@pytest.hookimpl(hookwrapper=True)
def pytest_collect_file(file_path, parent):
    """Test files are not doctest modules (``--doctest-modules`` is for the docstrings of src/bacc).

    Without this, each file here would also be imported as a doctest module with no examples,
    and a module skipped for a missing optional dependency would be reported twice.
    """
    outcome = yield
    collectors = outcome.get_result()
    outcome.force_result([c for c in collectors if type(c).__name__ != "DoctestModule"])


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium shared by the browser checks of one test file (started once per file
    and worker; skipped, with the reason, where Chromium or Playwright is missing)."""
    from support.browser import chromium

    with chromium() as b:
        yield b


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory):
    """``bacc demo`` run once as a new process in an empty folder, as a new user runs it.

    Returns the completed process (its output is checked by tests/test_cli.py), the report it
    wrote (measured by tests/test_display_report.py) and the seconds the run took. The tests that
    use it run in one worker (``xdist_group("test_display_report")``), so the demo runs once.
    """
    import os
    import subprocess
    import time

    folder = tmp_path_factory.mktemp("demo")
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONWARNINGS="default")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "bacc", "demo"], capture_output=True, text=True,
                          cwd=folder, env=env, timeout=300, check=False)
    seconds = time.perf_counter() - start
    assert done.returncode == 0, done.stderr[-3000:]
    return done, folder / "bacc-demo.html", seconds
