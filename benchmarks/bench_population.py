"""Mixed-effects inference (``bacc.population``) against a long MCMC run of the same model.

Run: ``python benchmarks/bench_population.py``

Baseline: Metropolis-within-Gibbs for the normal-binomial model in numpy
(``tests/mcmc_population.py``, the tests' independent reference: conjugate updates of each class's population mean and precision,
random-walk Metropolis for every subject's logit accuracy, vectorised over classes and
subjects), 20 000 draws after 2 000 of burn-in, timed once in the same process. bacc's answer is
deterministic; the MCMC's summaries carry Monte Carlo error (its standard error of the mean is
printed, from batch means).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _timing import timed  # noqa: E402
from mcmc_population import gibbs_population  # noqa: E402

import bacc  # noqa: E402


def simulate(l: int, m: int, seed: int, sizes: tuple[int, int] = (20, 120)):
    """Counts from the model: class means and spreads, then subjects, then examples."""
    rng = np.random.default_rng(seed)
    mu = rng.normal(1.5, 0.5, size=l)
    lam = rng.gamma(4.0, 1.0, size=l)
    rho = rng.normal(mu[:, None], 1.0 / np.sqrt(lam)[:, None], size=(l, m))
    n = rng.integers(*sizes, size=(l, m))
    return rng.binomial(n, 1.0 / (1.0 + np.exp(-rho))), n


def batch_se(x: np.ndarray, batches: int = 50) -> float:
    b = x[: len(x) // batches * batches].reshape(batches, -1).mean(axis=1)
    return float(b.std(ddof=1) / np.sqrt(batches))


def row(name: str, l: int, m: int, seed: int, draws: int = 20_000,
        sizes: tuple[int, int] = (20, 120)) -> None:
    k, n = simulate(l, m, seed, sizes)
    t_b = timed(lambda: bacc.population(correct=k, totals=n), repeat=3, most=20)
    pop = bacc.population(correct=k, totals=n)
    t0 = time.perf_counter()
    _ = pop.subjects
    t_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    s = gibbs_population(k, n, draws=draws, burn=2_000, random_state=seed)
    t_m = time.perf_counter() - t0
    q = np.quantile(s, [0.025, 0.975])
    chance = 1.0 / l
    print(f"{name:24s} {1e3 * t_b:9.1f} {1e3 * t_s:11.1f} {t_m:9.2f} {t_m / t_b:8.0f}")
    ps = pop.summary
    print(f"    bacc (exact)  mean {ps.mean:.4f}  95% [{ps.lower:.4f}, {ps.upper:.4f}]  "
          f"P(> chance) {pop.p_above_chance:.6f}")
    print(f"    MCMC {draws:6d}   mean {s.mean():.4f}  95% [{q[0]:.4f}, {q[1]:.4f}]  "
          f"P(> chance) {np.mean(s > chance):.6f}  (se of mean {batch_se(s):.1e})")


if __name__ == "__main__":
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, load {os.getloadavg()[0]:.2f}")
    print(f"{'case':24s} {'bacc (ms)':>9s} {'subjects ms':>11s} {'MCMC (s)':>9s} {'ratio':>8s}")
    row("2 classes x 20 subjects", 2, 20, 1)
    row("10 classes x 100 subjects", 10, 100, 2)
    # many subjects of one to three examples each (few distinct counts, shared computations)
    row("3 x 500 subjects of 1-3", 3, 500, 3, sizes=(1, 4))
