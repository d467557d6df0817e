"""The command line starts at once: ``--version`` and ``--help`` load neither numpy nor scipy.

What a fresh process imports is read from ``python -X importtime`` (no time is asserted here;
``benchmarks/bench_startup.py`` measures the seconds).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = {"numpy", "scipy", "matplotlib", "pandas", "duckdb", "polars", "pyarrow", "sklearn"}


def _imported(*args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "bacc", *args],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return {line.split("|")[-1].strip() for line in done.stderr.splitlines()
            if line.startswith("import time:") and "|" in line}


@pytest.mark.parametrize("args", [("--version",), ("--help",), ("evaluate", "--help"),
                                  ("monitor", "--help"), ("plan", "--help")])
def test_version_and_help_load_no_numerics(args):
    modules = _imported(*args)
    assert {m.split(".")[0] for m in modules} & HEAVY == set()
    assert "bacc.cli.parser" in modules
    assert not any(m.startswith(("bacc.cli.commands", "bacc.evaluation", "bacc._engine"))
                   for m in modules)


def test_import_bacc_is_lazy_and_names_load_on_use():
    code = ("import sys, bacc; before = 'scipy' in sys.modules; ev = bacc.evaluate([[42, 3], [6, 4]]);"
            "print(before, 'scipy' in sys.modules, round(ev.balanced_accuracy_summary.mean, 6))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    # the posterior mean of the balanced accuracy: (43/47 + 5/12) / 2
    before, after, mean = done.stdout.split()
    assert (before, after) == ("False", "True")
    assert float(mean) == pytest.approx((43 / 47 + 5 / 12) / 2, abs=1e-6)


def test_every_public_name_resolves_and_unknown_names_raise():
    import bacc

    for name in bacc.__all__:
        assert getattr(bacc, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'evaluat'"):
        bacc.evaluat  # noqa: B018
