"""How long each ``bacc`` command takes to start, as a fresh process.

Every row runs a new Python process (``python -m bacc ...``), as a user's shell does, and takes
the median of several runs; the baseline is the interpreter alone (``python -c pass``), timed
in the same rounds, and the eager import the command line used to pay (``import bacc`` with
every module and scipy loaded) is shown beside. The evidence of what is imported comes from
``python -X importtime``: the modules that ``bacc --version`` loads, and whether scipy is one.

    python benchmarks/bench_startup.py            # 7 rounds
    python benchmarks/bench_startup.py --quick    # 1 round (a check that it runs)
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

from _timing import machine, once

COMMANDS = {
    "bacc --version": ["-m", "bacc", "--version"],
    "bacc --help": ["-m", "bacc", "--help"],
    "bacc evaluate --help": ["-m", "bacc", "evaluate", "--help"],
    "bacc monitor --help": ["-m", "bacc", "monitor", "--help"],
    'bacc evaluate --matrix "42,3;6,4"': ["-m", "bacc", "evaluate", "--matrix", "42,3;6,4"],
    "bacc coverage (20 simulations)": ["-m", "bacc", "coverage", "--sizes", "20,20",
                                       "--accuracies", "0.99,0.9", "--simulations", "20"],
}
BASELINE = ["-c", "pass"]
EAGER = ["-c", "import bacc, scipy.stats; [getattr(bacc, n) for n in bacc.__all__]"]


def run(args: list[str]) -> float:
    def call():
        subprocess.run([sys.executable, *args], capture_output=True, check=True)

    return once(call)[1]


def imported(args: list[str]) -> list[str]:
    """The modules a fresh process imports for ``args`` (``-X importtime``)."""
    done = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True,
                          text=True, check=True)
    return [line.split("|")[-1].strip() for line in done.stderr.splitlines()
            if line.startswith("import time:") and "|" in line][1:]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1 round instead of 7")
    rounds = 1 if ap.parse_args().quick else 7
    print(machine("numpy", "scipy"))
    rows = {"python -c pass (baseline)": BASELINE, "import bacc with every module (eager)": EAGER,
            **COMMANDS}
    times: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(rounds):  # every row once per round: a change of load hits all alike
        for name, args in rows.items():
            times[name].append(run(args))
    base = statistics.median(times["python -c pass (baseline)"])
    print(f"\n{'fresh process':44s} {'median':>8s} {'beyond python':>14s}")
    for name in rows:
        t = statistics.median(times[name])
        print(f"{name:44s} {t:7.3f}s {t - base:13.3f}s")
    eager = statistics.median(times["import bacc with every module (eager)"])
    version = statistics.median(times["bacc --version"])
    print(f"\nratio eager import / bacc --version: {eager / version:.1f}x")
    modules = imported(COMMANDS["bacc --version"])
    heavy = sorted({m.split(".")[0] for m in modules} & {"numpy", "scipy", "matplotlib",
                                                         "pandas", "duckdb"})
    ours = [m for m in modules if m.startswith("bacc")]
    print(f"bacc --version imports {len(modules)} modules; of bacc: {', '.join(ours)}; "
          f"numpy, scipy, matplotlib, pandas, duckdb among them: {heavy or 'none'}")


if __name__ == "__main__":
    main()
