"""Two speeds of the test suite, for every test path (tests/ and the doctests of src/bacc).

Plain ``pytest`` is the fast run for development: the tests marked ``slow`` (long statistical
checks, long simulations, the build of the documentation site) and those listed in
``tests/slow_tests.txt`` (measured to take a second or more) are left out, and the summary
counts them as deselected. ``pytest --full`` runs every test; ``scripts/test.sh`` (the README's
test command, and CI's) does.

Both runs use two worker processes when pytest-xdist is installed (it is in the ``test`` extra),
see ``pytest_cmdline_main`` below, and each worker's BLAS runs on its share of the cores
(``share_the_cores``). Tests that share files outside their temporary folders run in
one worker: they carry ``@pytest.mark.xdist_group(...)`` and the run distributes with
``--dist loadgroup``.
"""

from __future__ import annotations

import os

import pytest

#: Worker processes of the default run (plain ``pytest`` and ``pytest --full``); the machines
#: this project runs on have 2 cores. ``BACC_TEST_WORKERS=N`` chooses another number (0: one
#: process, as without pytest-xdist).
WORKERS = 2


def pytest_addoption(parser):
    parser.addoption("--full", action="store_true", default=False,
                     help="run every test, the slow ones too (scripts/test.sh and CI do)")


def full_run(config) -> bool:
    """Every test runs with --full, with BACC_FULL_TESTS=1, or when -m chooses the tests."""
    return bool(config.getoption("--full") or os.environ.get("BACC_FULL_TESTS")
                or config.getoption("-m"))


# ----------------------------------------------------------------------------------------------
# two workers by default
def _default_run(config) -> bool:
    """No test files or folders were named: the run of every test path (testpaths)."""
    source = getattr(config, "args_source", None)
    return source is not None and source != pytest.Config.ArgsSource.ARGS


def _workers(config) -> int:
    """How many workers the run gets from here: 0 leaves the run as pytest-xdist would have it.

    Two workers for the default run, when pytest-xdist is there and nothing asks otherwise.
    This is done here rather than with ``-n 2`` in ``addopts``, which would make pytest refuse to
    start where pytest-xdist is not installed. Left alone: an explicit ``-n``/``--tx`` (``-n 0``
    runs in one process), ``-p no:xdist``, a run of named files or tests (a developer's targeted
    run stays in one process, where ``print``, ``-s`` and ``--pdb`` work; give ``-n 2`` to spread
    it), ``--collect-only``, ``--pdb``, ``--trace``, ``-s``, and the workers themselves.
    """
    if not config.pluginmanager.hasplugin("xdist") or hasattr(config, "workerinput"):
        return 0
    o = config.option
    if (o.numprocesses is not None or getattr(o, "tx", None) or o.collectonly
            or o.usepdb or getattr(o, "trace", False) or o.capture == "no"
            or not _default_run(config)):
        return 0
    try:
        return max(0, int(os.environ.get("BACC_TEST_WORKERS", WORKERS)))
    except ValueError:
        return WORKERS


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """Plain ``pytest`` and ``pytest --full`` run on two workers (``-n 2 --dist loadgroup``).

    This runs before pytest-xdist reads its options (its hook is ``tryfirst`` too, and a
    conftest's hook of the same kind is called before an installed plugin's).
    """
    if hasattr(config, "workerinput"):
        # a worker parses the command line as it was typed, so it does not know the --dist the
        # main process was given here: pytest_configure_node passes it on
        if config.workerinput.get("bacc_loadgroup"):
            config.option.loadgroup = True
        return
    n = _workers(config)
    if n > 0:
        config.option.numprocesses = n
    if config.pluginmanager.hasplugin("xdist") and config.option.numprocesses \
            and config.option.dist == "no":
        # distributed (by here or by -n) and no --dist given: the groups stay in one worker
        config.option.dist = "loadgroup"
    if config.pluginmanager.hasplugin("xdist") and config.option.numprocesses:
        share_the_cores(config.option.numprocesses)
        steady_allocator()


#: The variables through which BLAS and OpenMP libraries read how many threads to start.
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def share_the_cores(workers, environ=os.environ, cores=None) -> int:
    """Give each worker process its share of the cores for its BLAS threads.

    numpy's and scipy's OpenBLAS start one thread per core in every process. With two workers on
    two cores that is four threads on two cores, and OpenBLAS's threads wait for work by
    spinning: measured on the 2-core machine, a run of three test files took 92-96 s (172-178 s
    of CPU) against 73-74 s (134-136 s) with one thread per worker. The workers (and every
    program they start: the command line, the site's build) inherit these variables, which
    OpenBLAS reads when it loads, so they are set here, in the main process, before the workers
    start. A variable already set is left as it is. Returns the threads given to each worker.
    """
    if cores is None:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    try:
        workers = int(workers)
    except (TypeError, ValueError):  # -n auto / logical: pytest-xdist starts one per core
        workers = cores or 1
    threads = max(1, (cores or 1) // max(1, workers))
    for name in THREAD_VARIABLES:
        environ.setdefault(name, str(threads))
    return threads


#: glibc's malloc settings for the worker processes (and every program they start): blocks of
#: up to 256 MB come from the heap, and up to 1 GB freed at its top is kept for the next ones.
ALLOCATOR_VARIABLES = {"MALLOC_MMAP_THRESHOLD_": str(256 << 20), "MALLOC_TRIM_THRESHOLD_": str(1 << 30)}


def steady_allocator(environ=os.environ) -> dict[str, str]:
    """Let each worker keep the memory it frees for its next arrays (glibc's malloc).

    By default glibc serves a block of more than 128 kB (its threshold then grows with the
    blocks freed, up to 32 MB) by mapping fresh pages, and returns memory freed at the top of
    the heap beyond twice that threshold. A test that makes arrays of several MB one after the
    other (a simulation over thousands of streams, the betting sequence's blocks) then faults
    every page in again: measured on the 2-core machine, the peeking checks of the betting
    sequence (tests/test_anytime_betting.py) took 25.1 s, 9.5 s of it in the kernel for 4.3
    million page faults; with these settings 15.4 s, 0.1 s in the kernel, and a peak memory of
    117 MB instead of 104 MB. Like ``share_the_cores``, the variables are set here, in the main
    process, before the workers start (glibc reads them when a process starts), and a variable
    already set is left as it is. Other C libraries ignore them. Returns what the workers get.
    """
    for name, value in ALLOCATOR_VARIABLES.items():
        environ.setdefault(name, value)
    return {name: environ[name] for name in ALLOCATOR_VARIABLES}


def pytest_unconfigure(config):
    """A worker at the end of its run: one full collection of the cyclic garbage, then what is
    left frozen (``gc.freeze()``).

    pytest then collects five times over, so that the finalizers of the run's garbage run and
    any exception they raise is reported (``_pytest.unraisableexception``), and the interpreter
    collects once more as it exits. Each full collection walks every object the worker still
    holds (the modules, caches and results of some 1 900 tests): at the end of the full run
    these took 2.2-2.6 s per worker. What survives the first collection is alive, so the later
    ones need only the objects made since, which freezing leaves them: the same finalizers run
    (and this collection's are reported, pytest's hook still being in place).
    """
    if hasattr(config, "workerinput"):
        import gc

        gc.collect()
        gc.freeze()


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist
def pytest_configure_node(node):
    """Tell each worker to keep the tests of an ``xdist_group`` together (see above)."""
    if node.config.option.dist == "loadgroup":
        node.workerinput["bacc_loadgroup"] = True


# ----------------------------------------------------------------------------------------------
# the fast run
def measured_slow(root) -> set[str]:
    """The test ids listed in ``tests/slow_tests.txt``: tests measured to take a second or more,
    marked ``slow`` here as if they carried the mark."""
    path = root / "tests" / "slow_tests.txt"
    if not path.is_file():
        return set()
    ids = (line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines())
    return {i for i in ids if i}


def pytest_collection_modifyitems(config, items):
    """The fast run leaves out the tests marked slow (deselected, and counted in the summary):
    those that carry the mark and those listed in ``tests/slow_tests.txt``.

    In a worker of the full run, the slow tests come first: pytest-xdist hands out the tests in
    this order (after the groups of ``xdist_group``, largest first), so the long ones start
    early and the short ones fill both workers up to the end, rather than one long test
    starting last while the other worker idles.
    """
    measured = measured_slow(config.rootpath)
    for item in items:
        if item.nodeid in measured:
            item.add_marker(pytest.mark.slow)
    if full_run(config):
        if hasattr(config, "workerinput"):
            items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]


def pytest_deselected(items):
    """In a worker, keep the deselected tests (slow, ``-k``, ``-m``) for the summary of the run.

    Under pytest-xdist each worker collects and deselects, but only the main process writes the
    summary, and pytest-xdist does not pass deselections on: ``pytest_testnodedown`` below does.
    """
    config = getattr(items[0], "config", None) if items else None
    if config is not None and hasattr(config, "workeroutput"):
        config.workeroutput.setdefault("bacc_deselected", []).extend(i.nodeid for i in items)


class _Deselected:
    """A test deselected in a worker, as the main process's summary counts it."""

    def __init__(self, nodeid: str) -> None:
        self.nodeid = nodeid


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: unknown to pytest without it
def pytest_testnodedown(node, error):
    """The main process counts the deselected tests once (every worker collects the same)."""
    config = node.config
    ids = getattr(node, "workeroutput", {}).get("bacc_deselected")
    if ids and not getattr(config, "_bacc_deselected_counted", False):
        config._bacc_deselected_counted = True
        config.hook.pytest_deselected(items=[_Deselected(i) for i in ids])


def pytest_report_header(config):
    if full_run(config):
        return "bacc: the full run (every test)"
    return "bacc: the fast run (tests marked slow are left out; pytest --full runs them)"
