"""Mixed-effects inference (``bacc.population``) against a long MCMC run of the same model.

Run: ``python benchmarks/bench_population.py [--quick]`` (``--quick``: the smallest case,
2 000 draws, and 30 subjects in the second table)

Baseline: Metropolis-within-Gibbs for the normal-binomial model in numpy (``gibbs_population``
below: conjugate updates of each class's population mean and precision, random-walk Metropolis
for every subject's logit accuracy, vectorised over classes and subjects), 20 000 draws after
2 000 of burn-in, timed once in the same process. bacc's time is that of the whole result as
``print(pop)`` shows it (``population()`` and the summaries it computes on first access:
``summary``, ``classes``, ``predictive``, ``verdict``). bacc's answer is
deterministic; the MCMC's summaries carry Monte Carlo error (its standard error of the mean is
printed, from batch means).

Second table: the beta-binomial model's per-subject posteriors (``Population.subjects``) on 100
subjects of 1 to 20 000 examples per class (log-uniform), with perfect, all-wrong and
one-example subjects: the blocked sums (now) against the dense sums of every node at every grid
point (``_subject_results(dense=True)``, the previous path), in the same process, each timed
as the fastest of a few calls (wall-clock and CPU), with the largest difference of the five
numbers of each subject's summary.
"""

from __future__ import annotations

import sys

import numpy as np
from _timing import Stopwatch, fastest, machine, once, timed
from scipy import special as sc

import bacc


def gibbs_population(k, n, draws: int = 20_000, burn: int = 2_000, random_state: int = 0,
                     chains: int = 1, mu0: float = 0.0, eta0: float = 1.0, a0: float = 1.0,
                     b0: float = 1.0) -> np.ndarray:
    """Draws of the population balanced accuracy ``mean_i sigmoid(mu_i)``.

    ``k``, ``n``: arrays of shape (classes, subjects); priors as in ``bacc.population``.
    Returns an array of shape ``(draws, chains)`` (``(draws,)`` for one chain).
    """
    rng = np.random.default_rng(random_state)
    k = np.atleast_2d(np.asarray(k, dtype=float))[None]
    n = np.atleast_2d(np.asarray(n, dtype=float))[None]
    l, m = k.shape[1:]
    p = (k + 0.5) / (n + 1.0)
    rho = np.repeat(np.log(p / (1 - p)), chains, axis=0)
    mu = rho.mean(axis=2)
    lam = np.ones((chains, l))

    def loglik(r):
        return k * -np.logaddexp(0.0, -r) + (n - k) * -np.logaddexp(0.0, r)

    out = np.empty((draws, chains))
    ll = loglik(rho)
    for it in range(burn + draws):
        prec = eta0 + m * lam
        mu = rng.normal((eta0 * mu0 + lam * rho.sum(axis=2)) / prec, 1.0 / np.sqrt(prec))
        rate = 1.0 / b0 + 0.5 * ((rho - mu[..., None]) ** 2).sum(axis=2)
        lam = rng.gamma(a0 + 0.5 * m, 1.0 / rate)
        step = 2.4 / np.sqrt(n * p * (1 - p) + lam[..., None])
        for _ in range(3):
            prop = rho + step * rng.standard_normal(rho.shape)
            llp = loglik(prop)
            log_a = (llp - ll) - 0.5 * lam[..., None] * ((prop - mu[..., None]) ** 2 - (rho - mu[..., None]) ** 2)
            take = np.log(rng.random(rho.shape)) < log_a
            rho = np.where(take, prop, rho)
            ll = np.where(take, llp, ll)
        if it >= burn:
            out[it - burn] = sc.expit(mu).mean(axis=1)
    return out[:, 0] if chains == 1 else out


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


def whole(pop):
    """The population result with every summary it computes on first access (what
    ``print(pop)`` shows), as ``population()`` computed them all before they were lazy."""
    _ = pop.summary, pop.classes, pop.predictive, pop.verdict
    return pop


def row(name: str, l: int, m: int, seed: int, draws: int = 20_000,
        sizes: tuple[int, int] = (20, 120)) -> None:
    k, n = simulate(l, m, seed, sizes)
    t_b = timed(lambda: whole(bacc.population(correct=k, totals=n)), repeat=3, most=20)
    pop = bacc.population(correct=k, totals=n)
    _, t_s = once(lambda: pop.subjects)
    s, t_m = once(lambda: gibbs_population(k, n, draws=draws, burn=min(2_000, draws),
                                           random_state=seed))
    q = np.quantile(s, [0.025, 0.975])
    chance = 1.0 / l
    print(f"{name:24s} {1e3 * t_b:9.1f} {1e3 * t_s:11.1f} {t_m:9.2f} {t_m / t_b:8.0f}")
    ps = pop.summary
    print(f"    bacc (exact)  mean {ps.mean:.4f}  95% [{ps.lower:.4f}, {ps.upper:.4f}]  "
          f"P(> chance) {pop.p_above_chance:.6f}")
    print(f"    MCMC {draws:6d}   mean {s.mean():.4f}  95% [{q[0]:.4f}, {q[1]:.4f}]  "
          f"P(> chance) {np.mean(s > chance):.6f}  (se of mean {batch_se(s):.1e})")


def subject_mix(m: int, seed: int):
    """Two classes, ``m`` subjects of 1 to 20 000 examples per class (log-uniform), varied
    accuracies, with perfect, all-wrong and one-example subjects."""
    rng = np.random.default_rng(seed)
    n = np.exp(rng.uniform(0.0, np.log(20_000), size=(2, m))).astype(np.int64)
    k = rng.binomial(n, rng.beta(rng.uniform(2, 20), rng.uniform(1, 5), size=(2, m)))
    pick = rng.choice(m, 10, replace=False)
    k[0, pick[:3]] = n[0, pick[:3]]
    k[1, pick[3:6]] = 0
    k[:, pick[6]] = n[:, pick[6]]
    n[:, pick[7]], k[:, pick[7]] = 1, (1, 0)
    return k, n


def subjects_row(m: int, seed: int, repeat: int) -> None:
    k, n = subject_mix(m, seed)
    model = "beta-binomial"
    t_p, c_p = fastest(lambda: whole(bacc.population(correct=k, totals=n, model=model)),
                       repeat=repeat)
    pop = bacc.population(correct=k, totals=n, model=model)
    t_n, c_n = fastest(lambda: pop._subject_results(), repeat=repeat)
    with Stopwatch() as sw:  # the previous path, once: its result is compared below
        before = pop._subject_results(dense=True)
    t_d, c_d = sw.wall, sw.cpu
    now = pop._subject_results()
    diff = max(abs(getattr(a.shrunken, q) - getattr(b.shrunken, q))
               for a, b in zip(now, before, strict=True)
               for q in ("mean", "median", "mode", "lower", "upper"))  # fmt: skip
    print(f"{m:4d} {seed:4d} {t_p:6.2f} {c_p:5.2f} {t_d:7.2f} {c_d:5.2f} {t_n:6.2f} {c_n:5.2f} "
          f"{c_d / c_n:6.1f} {t_p + t_n:6.2f} {c_p + c_n:5.2f} {diff:9.1e}")  # fmt: skip


def main(quick: bool = False) -> None:
    print(machine("numpy", "scipy"))
    print(f"{'case':24s} {'bacc (ms)':>9s} {'subjects ms':>11s} {'MCMC (s)':>9s} {'ratio':>8s}")
    if quick:
        row("2 classes x 20 subjects", 2, 20, 1, draws=2_000)
    else:
        row("2 classes x 20 subjects", 2, 20, 1)
        row("10 classes x 100 subjects", 10, 100, 2)
        # many subjects of one to three examples each (few distinct counts, shared computations)
        row("3 x 500 subjects of 1-3", 3, 500, 3, sizes=(1, 4))
    print()
    print("beta-binomial subject posteriors, 1-20 000 examples per subject and class (seconds; "
          "wall and CPU)")
    print("(ratio: before / after in CPU time; pop+after: population and its subjects, the "
          "figure to hold within 1 s)")
    print(f"{'m':>4s} {'seed':>4s} {'pop':>6s} {'cpu':>5s} {'before':>7s} {'cpu':>5s} "
          f"{'after':>6s} {'cpu':>5s} {'ratio':>6s} {'pop+after':>6s} {'cpu':>5s} {'max diff':>9s}")
    for seed in (0,) if quick else range(6):
        subjects_row(30 if quick else 100, seed, repeat=1 if quick else 3)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
