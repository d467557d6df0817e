"""The list of tests that the fast run leaves out (``tests/slow_tests.txt``) names tests that
exist, once each, so it cannot silently stop marking a renamed test or mark nothing; and the
workers of a distributed run share the cores rather than each starting a BLAS thread per core."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

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


def _conftest():
    import importlib.util

    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_conftest_reads_the_same_list():
    assert _conftest().measured_slow(ROOT) == set(_ids())


def test_workers_share_the_cores_and_a_choice_already_made_stands():
    share = _conftest().share_the_cores
    env: dict[str, str] = {}
    assert share(2, env, cores=2) == 1
    assert env["OPENBLAS_NUM_THREADS"] == env["OMP_NUM_THREADS"] == "1"
    env = {}
    assert share(2, env, cores=8) == 4 and env["MKL_NUM_THREADS"] == "4"
    env = {}
    assert share(3, env, cores=2) == 1  # never fewer than one thread
    env = {}
    assert share("auto", env, cores=4) == 1  # pytest-xdist's one worker per core
    env = {"OPENBLAS_NUM_THREADS": "3"}
    share(2, env, cores=2)
    assert env["OPENBLAS_NUM_THREADS"] == "3" and env["OMP_NUM_THREADS"] == "1"


def test_workers_keep_the_memory_they_free_and_a_choice_already_made_stands():
    steady = _conftest().steady_allocator
    env: dict[str, str] = {}
    got = steady(env)
    assert got == env and int(env["MALLOC_MMAP_THRESHOLD_"]) >= 64 << 20
    assert int(env["MALLOC_TRIM_THRESHOLD_"]) >= int(env["MALLOC_MMAP_THRESHOLD_"])
    env = {"MALLOC_TRIM_THRESHOLD_": "0"}
    assert steady(env)["MALLOC_TRIM_THRESHOLD_"] == "0"


def test_a_distributed_run_gives_its_workers_one_blas_thread_per_core_share(tmp_path):
    """The BLAS libraries that numpy and scipy load in a worker of ``-n 2`` run as many threads
    as the worker's share of the cores (read by threadpoolctl, in the test extra), and the
    worker has the allocator settings of ``steady_allocator``."""
    pytest.importorskip("xdist")
    pytest.importorskip("threadpoolctl")
    probe = tmp_path / "test_probe.py"
    seen = tmp_path / "seen.txt"
    probe.write_text(
        "import os\nimport numpy, scipy.linalg, threadpoolctl\n\ndef test_probe():\n"
        "    assert os.environ.get('PYTEST_XDIST_WORKER')\n"
        "    blas = [i['num_threads'] for i in threadpoolctl.threadpool_info() if i['user_api'] == 'blas']\n"
        f"    open({str(seen)!r}, 'w').write(' '.join(map(str, blas)))\n"
        f"    open({str(seen) + '.malloc'!r}, 'w').write(' '.join(os.environ.get(k, '-') for k in\n"
        f"        {sorted(_conftest().ALLOCATOR_VARIABLES)!r}))\n", encoding="utf-8")
    conf = _conftest()
    env = {k: v for k, v in os.environ.items()
           if k not in conf.THREAD_VARIABLES and k not in conf.ALLOCATOR_VARIABLES}
    # the project's conftest.py is loaded as a plugin: the probe lives outside the project
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-n", "2", "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"),
                           "-p", "conftest", str(probe)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    threads = seen.read_text().split()
    assert threads and set(threads) == {str(max(1, cores // 2))}
    malloc = (tmp_path / "seen.txt.malloc").read_text().split()
    assert malloc == [conf.ALLOCATOR_VARIABLES[k] for k in sorted(conf.ALLOCATOR_VARIABLES)]
