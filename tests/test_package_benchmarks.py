"""The benchmark scripts (``benchmarks/bench_*.py``) share one timer and stand on their own.

* Read with ``ast``: every script times with ``benchmarks/_timing.py`` (no clock of its own:
  no ``time`` or ``timeit`` import), leaves ``sys.path`` alone, imports nothing from
  ``tests/``, and offers a ``--quick`` run.
* Run: each script's ``--quick`` run (a few seconds) exits with status 0 and prints a ratio
  against its baseline. No time is asserted.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.glob("bench_*.py"))
TEST_MODULES = {p.stem for p in (ROOT / "tests").glob("*.py")} - {"conftest"}
CLOCKS = {"time", "timeit"}


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _imported(tree: ast.Module) -> set[str]:
    """Top-level names of every module the source imports, wherever the import stands."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_there_are_benchmarks():
    assert len(SCRIPTS) >= 10
    assert (BENCHMARKS / "_timing.py").is_file()


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_benchmark_uses_the_shared_timer(path):
    tree = _tree(path)
    imported = _imported(tree)
    assert "_timing" in imported, f"{path.name} does not time with benchmarks/_timing.py"
    own = imported & CLOCKS
    assert not own, f"{path.name} imports {sorted(own)}: time with benchmarks/_timing.py"
    calls = {
        f"{node.value.id}.{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
        and node.value.id in CLOCKS
    }
    assert not calls, f"{path.name} reads a clock of its own: {sorted(calls)}"


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_benchmark_leaves_sys_path_alone_and_tests_out(path):
    tree = _tree(path)
    touched = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "path"
        and isinstance(node.value, ast.Name) and node.value.id == "sys"
    ]
    assert not touched, f"{path.name} uses sys.path (lines {touched})"
    from_tests = _imported(tree) & TEST_MODULES
    assert not from_tests, f"{path.name} imports {sorted(from_tests)} from tests/"


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_benchmark_has_a_quick_run(path):
    strings = {
        node.value for node in ast.walk(_tree(path))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    assert "--quick" in strings, f"{path.name} has no --quick run"


def test_timing_helper_is_the_only_clock():
    """The one file of benchmarks/ that reads the clock is the shared timer."""
    for path in sorted(BENCHMARKS.glob("*.py")):
        if path.name != "_timing.py":
            assert not (_imported(_tree(path)) & CLOCKS), path.name


@pytest.fixture(scope="module")
def preloaded():
    """Runs scripts as ``python script --quick`` would, forked from a process that has imported
    numpy and scipy (tests/support/preloaded.py): each quick run starts about 0.7 s sooner."""
    from support.preloaded import Preloaded

    server = Preloaded({**os.environ, "MPLBACKEND": "Agg"})
    yield server
    server.close()


@pytest.mark.slow
@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_quick_run(path, tmp_path, preloaded):
    done = preloaded.run(path, ["--quick"], cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert re.search(r"ratio|\d x\b|\dx\b", done.stdout), done.stdout[-2000:]


def test_a_script_runs_as_a_fresh_process_would(preloaded, tmp_path):
    """The preloaded runner gives what ``python script args`` gives: the script's folder first
    on ``sys.path`` (and not the tests' folder), its arguments and working folder, an empty
    standard input, a fresh ``bacc`` (no module of it loaded before the script's own import),
    the exit status of ``sys.exit``, and an uncaught exception's traceback with status 1."""
    script = tmp_path / "probe.py"
    script.write_text(
        "import json, os, sys\n"
        "print(json.dumps({'path0': sys.path[0], 'argv': sys.argv[1:], 'cwd': os.getcwd(),\n"
        "                  'stdin': sys.stdin.read(), 'bacc': sorted(m for m in sys.modules\n"
        "                  if m == 'bacc' or m.startswith('bacc.')),\n"
        "                  'tests': any(p.endswith('tests') for p in sys.path)}))\n"
        "if sys.argv[1:] == ['fail']:\n"
        "    raise KeyError('boom')\n"
        "sys.exit(int(sys.argv[1]))\n", encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    for args in (["0"], ["3"]):
        done = preloaded.run(script, args, cwd=work, timeout=60)
        seen = json.loads(done.stdout)
        fresh = subprocess.run([sys.executable, str(script), *args], cwd=work, capture_output=True,
                               text=True, stdin=subprocess.DEVNULL, timeout=60, check=False)
        assert done.returncode == fresh.returncode == int(args[0])
        assert seen == json.loads(fresh.stdout)
        assert seen["path0"] == str(tmp_path) and seen["argv"] == args and seen["cwd"] == str(work)
        assert seen["bacc"] == [] and seen["stdin"] == "" and not seen["tests"]
    failed = preloaded.run(script, ["fail"], cwd=work, timeout=60)
    assert failed.returncode == 1
    assert "KeyError: 'boom'" in failed.stderr and "Traceback" in failed.stderr
    # a run past its time is killed with its server, and the next run gets a new server
    stuck = tmp_path / "stuck.py"
    stuck.write_text("import time\ntime.sleep(60)\n", encoding="utf-8")
    with pytest.raises(subprocess.TimeoutExpired):
        preloaded.run(stuck, [], cwd=work, timeout=0.5)
    assert preloaded.run(script, ["0"], cwd=work, timeout=60).returncode == 0
