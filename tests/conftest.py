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

