"""A plain numpy MCMC sampler of the normal-binomial mixed-effects model.

The independent reference of ``tests/test_mixed_effects.py`` (bacc's exact posterior must agree
with it within its Monte Carlo error).

Metropolis-within-Gibbs, vectorised over chains, classes and subjects: per sweep, each class's
population mean ``mu`` given the subjects' logit accuracies (normal, conjugate), its precision
``lambda`` (gamma, conjugate), then every subject's logit accuracy ``rho`` by three random-walk
Metropolis steps whose proposal sd is 2.4 times the subject's approximate posterior sd. Written
for the tests and the benchmark only; nothing in bacc uses it.
"""

from __future__ import annotations

import numpy as np
from scipy import special as sc


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
