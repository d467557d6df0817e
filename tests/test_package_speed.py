"""The list of tests that the fast run leaves out (``tests/slow_tests.txt``) names tests that
exist, once each, so it cannot silently stop marking a renamed test or mark nothing."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIST = ROOT / "tests" / "slow_tests.txt"


def _ids() -> list[str]:
    lines = LIST.read_text(encoding="utf-8").splitlines()
    return [i for i in (line.split("#", 1)[0].strip() for line in lines) if i]


def test_every_listed_slow_test_exists_once():
    ids = _ids()
    assert ids, "the list is empty"
    assert len(ids) == len(set(ids)), "a test is listed twice"
    for test_id in ids:
        path, _, rest = test_id.partition("::")
        source = ROOT / path
        assert source.is_file(), f"{test_id}: no file {path}"
        name = re.sub(r"\[.*\]$", "", rest).rsplit(".", 1)[-1].split("::")[-1]
        text = source.read_text(encoding="utf-8")
        assert re.search(rf"^\s*def {re.escape(name)}\(", text, re.M), \
            f"{test_id}: no function {name} in {path}"


def test_the_conftest_reads_the_same_list():
    import importlib.util

    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.measured_slow(ROOT) == set(_ids())
