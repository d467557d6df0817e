"""An independent deterministic quadrature of the normal-binomial mixed-effects model.

Written for the tests of ``bacc.population`` without any of bacc's code: per class, the
posterior of the population mean ``mu`` (logit of the population accuracy) is

    p(mu | k) ∝ N(mu | mu0, 1/eta0) ∫ Gamma(lambda | a0, scale b0) prod_j L_j(mu, lambda) dlambda,
    L_j(mu, lambda) = ∫ Binomial(k_j | n_j, sigmoid(r)) N(r | mu, 1/lambda) dr.

Each ``L_j`` is an adaptive Gauss-Hermite rule (60 nodes) centred on the mode of its integrand
(Newton's method on the concave log integrand) and scaled by its curvature; the integral over
``lambda`` is a trapezoidal sum in ``t = log lambda`` over [-14, 6] (the integrand decays
fast at both ends, so the sum converges geometrically); the log density of ``mu`` is then a
Chebyshev interpolant on [-12, 14], and every integral over ``mu`` a Gauss-Legendre rule. The
settings were chosen by doubling them until the answers changed by less than 1e-10.
"""

from __future__ import annotations

import numpy as np
from numpy.polynomial import chebyshev
from scipy import special as sc

LO, HI = -12.0, 14.0  # range of mu (the density is below e^-80 of its peak outside)
_X, _W = np.polynomial.legendre.leggauss(300)


def _gl(a, b):
    a = np.asarray(a, float)[..., None]
    b = np.asarray(b, float)[..., None]
    return (b - a) / 2 * _X + (b + a) / 2, _W * (b - a) / 2


def log_density_of_mu(k, n, *, mu0=0.0, eta0=1.0, a0=1.0, b0=1.0, n_gh=60, newton=12, dt=0.05):
    """The unnormalised log posterior density of ``mu`` (a function of an array of mu)."""
    k = np.asarray(k, float)
    n = np.asarray(n, float)
    xg, wg = np.polynomial.hermite_e.hermegauss(n_gh)  # weight exp(-x^2 / 2)
    logc = sc.gammaln(n + 1) - sc.gammaln(k + 1) - sc.gammaln(n - k + 1)
    t = np.arange(-14.0, 6.0, dt)
    lam = np.exp(t)[None, :]
    log_prior_t = -sc.gammaln(a0) - a0 * np.log(b0) + a0 * t - np.exp(t) / b0  # density in t

    def f(mu):
        mu = np.asarray(mu, float)
        m = mu[:, None]
        total = 0.0
        for kj, nj, cj in zip(k, n, logc, strict=True):
            p = (kj + 0.5) / (nj + 1)
            info = nj * p * (1 - p)
            r = np.broadcast_to((lam * m + info * np.log(p / (1 - p))) / (lam + info),
                                (m.shape[0], lam.shape[1])).copy()  # fmt: skip
            for _ in range(newton):
                s = sc.expit(r)
                r = r + (kj - nj * s - lam * (r - m)) / (nj * s * (1 - s) + lam)
            s = sc.expit(r)
            sd = 1 / np.sqrt(nj * s * (1 - s) + lam)
            x = r[..., None] + sd[..., None] * xg
            log_f = (kj * -np.logaddexp(0, -x) + (nj - kj) * -np.logaddexp(0, x)
                     - 0.5 * lam[..., None] * (x - m[..., None]) ** 2
                     + 0.5 * np.log(lam[..., None] / (2 * np.pi)) + 0.5 * xg**2)  # fmt: skip
            top = log_f.max(axis=-1, keepdims=True)
            total = total + cj + top[..., 0] + np.log((np.exp(log_f - top) * wg).sum(-1) * sd)
        joint = total + log_prior_t[None, :]
        top = joint.max()
        lp_mu = 0.5 * np.log(eta0 / (2 * np.pi)) - 0.5 * eta0 * (mu - mu0) ** 2
        return lp_mu + top + np.log(np.exp(joint - top).sum(axis=1) * dt)

    return f


class ClassReference:
    """Per class: log evidence, mean of sigmoid(mu) and the CDF of mu, by quadrature."""

    def __init__(self, k, n, **prior):
        f = log_density_of_mu(k, n, **prior)
        self.log_pdf = chebyshev.Chebyshev.interpolate(f, 300, domain=[LO, HI])
        mu, w = _gl(LO, HI)
        lm = self.log_pdf(mu)
        top = lm.max()
        self.log_evidence = float(top + np.log((np.exp(lm - top) * w).sum()))
        self.mean = float((np.exp(lm - self.log_evidence) * w * sc.expit(mu)).sum())

    def pdf(self, mu):
        return np.exp(self.log_pdf(mu) - self.log_evidence)

    def cdf(self, mu):
        mu, w = _gl(LO, np.clip(mu, LO, HI))
        return (self.pdf(mu) * w).sum(axis=-1)


def balanced_cdf(refs: list[ClassReference], x: float) -> float:
    """P(mean of sigmoid(mu_i) <= x) for one or two classes (a nested quadrature)."""
    if len(refs) == 1:
        return float(refs[0].cdf(sc.logit(x)))
    a, b = refs
    # sigmoid(mu_a) + sigmoid(mu_b) <= 2x: below c every mu_b counts; above d none does
    c = max(LO, sc.logit(2 * x - 1)) if 2 * x > 1 else LO
    d = min(HI, sc.logit(2 * x)) if 2 * x < 1 else HI
    mu, w = _gl(c, d)
    inner = b.cdf(sc.logit(np.clip(2 * x - sc.expit(mu), 1e-300, 1 - 1e-16)))
    return float((a.pdf(mu) * w * inner).sum() + a.cdf(c))
