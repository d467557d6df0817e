"""Exact posterior of one class's population accuracy under a mixed-effects model.

Used by :func:`bacc.population`. Subjects ``j = 1..m`` have ``k_j`` of ``n_j`` examples of the
class right. Two models (Brodersen et al. 2012, 2013):

* normal-binomial: ``k_j ~ Bin(n_j, sigmoid(rho_j))``, ``rho_j ~ N(mu, 1/lambda)``,
  ``mu ~ N(mu0, 1/eta0)``, ``lambda ~ Gamma(shape a0, scale b0)``; population accuracy
  ``sigmoid(mu)``. Location ``x = mu``, spread variable ``v = log lambda``.
* beta-binomial: ``k_j ~ Bin(n_j, pi_j)``, ``pi_j ~ Beta(alpha, beta)``; with the population
  mean ``p = alpha / (alpha + beta)`` and ``s = (alpha + beta)^(-1/2)``, ``p ~ Beta(am, bm)``
  and ``s ~ Uniform(0, s_max)``; population accuracy ``p``. Location ``x = logit p``, spread
  variable ``v = logit(s / s_max)``.

Method (deterministic). The two hyperparameters are integrated on a grid fitted to the
posterior, with each subject's marginal likelihood computed at every grid node:

1. *Placement.* Each subject is replaced by a normal likelihood in logit space (``logit`` of
   ``(k + 1/2) / (n + 1)``, variance ``1 / ((n + 1) p (1 - p))``); then ``x`` given ``v`` is
   normal with closed-form centre and scale, and ``v``'s marginal is known up to a constant.
   This only places the grid: ``v`` on a trapezoidal grid (step 0.55 of its approximate sd)
   over the range where the approximate log density is within 42 of its peak, ``x`` on 33
   Chebyshev points (41 for the beta-binomial) of ``centre +- 10 scale`` per row.
2. *Exact values.* The log posterior at every node: beta-binomial subjects in closed form
   (rising factorials without cancellation); normal-binomial subjects by a trapezoidal sum on
   one fine logit grid per class where the population density is the wider (a perfect or
   all-wrong subject's limit taken out in closed form), else by adaptive Gauss-Hermite
   quadrature (20 nodes about the integrand's mode, found by safeguarded Newton steps).
3. *Fitting and checks.* Each row's range is fitted to the exact log density (narrowed to
   where it is within 50 of the row's peak, widened where an end is not 32 below it); the
   ``v`` range is widened until both end rows are 32 below the peak; the Chebyshev points are
   multiplied until the interpolants' last coefficients are below 1e-11; the ``v`` step is
   halved until the trapezoidal rule on every other row agrees to 3e-6 (error ~1e-11).
4. *Rule.* The log posterior is interpolated from the Chebyshev points to a trapezoidal grid
   of 91 points per row (barycentric formula); rows more than 46 below the peak are dropped.
   The trapezoidal rule on smooth, rapidly decaying integrands converges geometrically; the
   resulting nodes and weights give the evidence, the moments and, by interpolation, the
   density of the population accuracy ``sigmoid(x)``.

References
----------
.. [1] Brodersen, K. H., Mathys, C., Chumbley, J. R., Daunizeau, J., Ong, C. S., Buhmann,
   J. M. & Stephan, K. E. (2012). Bayesian mixed-effects inference on classification
   performance in hierarchical data sets. Journal of Machine Learning Research 13,
   3133-3176, sections 2-3.
.. [2] Brodersen, K. H., Daunizeau, J., Mathys, C., Chumbley, J. R., Buhmann, J. M. &
   Stephan, K. E. (2013). Variational Bayesian mixed-effects inference for classification
   studies. NeuroImage 76, 345-361, section 2 (the normal-binomial model and its priors).
.. [3] Liu, Q. & Pierce, D. A. (1994). A note on Gauss-Hermite quadrature. Biometrika 81(3),
   624-629 (adaptive Gauss-Hermite quadrature).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from scipy import special as sc

from .beta import posterior_parameters
from .beta_mixture import barycentric_matrix, barycentric_values, chebyshev_points

__all__ = ["ClassFit", "NormalBinomialPrior", "BetaBinomialPrior"]

_Q = 20  # Gauss-Hermite nodes per subject and grid node
_Z, _WQ = np.polynomial.hermite.hermgauss(_Q)
_LOG_WQ = np.log(_WQ) + _Z**2  # weights of the rule for a normal density written in exp(-z^2)
_NEWTON = 40  # safeguarded: bisection halves a bracket that may start 1e6 wide
_CHEB = 33
_CHEB_BETA = 41  # the beta-binomial's exponential tails in x need more (5e-10 vs 4e-8)
_U = 10.0
_FINE = 91  # trapezoid points on [-U, U]
_EDGE = 32.0  # log-density drop required at every edge of the grid
_RANGE = 42.0  # log-density drop that places the spread grid
_MAX_WIDEN = 6
_KEEP = 50.0  # a row's range holds where its log density is within this of its peak
_DEAD = 46.0  # rows whose peak is this far below the top carry no weight (e^-46 = 1e-20)
_MAX_REFINE = 5
_STEP = 0.55  # spread-grid step in approximate sds
_GRID_STEPS = 4.0  # rho-grid steps per width of the narrower of likelihood and normal density
_CHEB_TOL = 1e-11  # last Chebyshev coefficients of the rows' log densities below this (relative)
_LOGIT_STEPS = 24  # steps per logit sd of the tabulated logit density (error ~1e-10)
_GH_BELOW = 0.8  # rows whose normal density is narrower than this many likelihood widths use GH


@dataclass(frozen=True)
class NormalBinomialPrior:
    """Prior of the normal-binomial model (defaults: those of ``micp``)."""

    mu0: float = 0.0
    eta0: float = 1.0
    a0: float = 1.0
    b0: float = 1.0


@dataclass(frozen=True)
class BetaBinomialPrior:
    """Prior of the beta-binomial model: ``p ~ Beta(am, bm)``, ``s ~ Uniform(0, s_max)``."""

    am: float = 1.0
    bm: float = 1.0
    s_max: float = 10.0


def _log_sigmoid(x):
    return -np.logaddexp(0.0, -x)


def _stirling_tail(x):
    """``log Gamma(x) - ((x - 1/2) log x - x + log(2 pi) / 2)`` for ``x >= 10`` (to 1e-12)."""
    r = 1.0 / x
    r2 = r * r
    return r * (1 / 12 - r2 * (1 / 360 - r2 * (1 / 1260 - r2 / 1680)))


def _log_rising(a, k):
    """``log Gamma(a + k) - log Gamma(a)`` for ``k >= 0``, without cancellation.

    For ``a >= 10`` it is written with Stirling's series as
    ``(a - 1/2) log1p(k/a) + k log(a + k) - k + tail(a + k) - tail(a)``: no two large terms
    cancel, where the difference of log-gammas would lose ``eps a log a`` (1e-6 at
    ``a = 1e9``).
    """
    a, k = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(k, dtype=float))
    out = np.empty(a.shape)
    big = a >= 10.0
    small = ~big
    out[small] = sc.gammaln(a[small] + k[small]) - sc.gammaln(a[small])
    ab, kb = a[big], k[big]
    out[big] = (
        (ab - 0.5) * np.log1p(kb / ab) + kb * np.log(ab + kb) - kb
        + _stirling_tail(ab + kb) - _stirling_tail(ab)
    )
    return out




def _row_mass(lp, interp, scale) -> np.ndarray:
    """Relative mass of each row (trapezoidal rule on the fine grid), rows without weight 0."""
    lpf = lp @ interp.T
    dead = lp.max(axis=1) < lp.max() - _DEAD
    lpf[dead] = -np.inf
    return np.exp(lpf - lpf.max()).sum(axis=1) * scale


# 1 / prod_{m != i} (i - m) for the six-point Lagrange basis on 0..5
_LAGRANGE6 = np.array([1 / np.prod([i - m for m in range(6) if m != i]) for i in range(6)])


@functools.lru_cache(maxsize=16)
def _rules(widen: int, cheb: int = _CHEB):
    """Chebyshev points, barycentric weights, fine points, the interpolation matrix and the
    matrix from values to Chebyshev coefficients, with ``1.5^widen`` times the base points."""
    c = int(round((cheb - 1) * 1.5**widen)) + 1
    f = int(round((_FINE - 1) * 1.5**widen)) + 1
    pts, w = chebyshev_points(c)
    fine = np.linspace(-1.0, 1.0, f)
    to_coef = np.linalg.inv(np.polynomial.chebyshev.chebvander(pts, c - 1))  # values -> coefs
    return pts, w, fine, barycentric_matrix(pts, w, fine), to_coef


class ClassFit:
    """The posterior of one class's hyperparameters as a quadrature rule (module notes).

    Parameters
    ----------
    k, n : ndarray of int, shape (m,)
        Correct and total examples of the class per subject (``n = 0``: no data, the subject
        adds nothing).
    model : {"normal-binomial", "beta-binomial"}
    prior : NormalBinomialPrior or BetaBinomialPrior
    """

    def __init__(self, k, n, model: str, prior) -> None:
        self.k = np.asarray(k, dtype=float)
        self.n = np.asarray(n, dtype=float)
        self.model = model
        self.prior = prior
        has = self.n > 0
        self._kd, self._nd = self.k[has], self.n[has]
        self._cheb = _CHEB if model == "normal-binomial" else _CHEB_BETA
        self._fit()

    # ---------------------------------------------------------------- model-specific pieces
    def _log_prior_x(self, x):
        """Log prior density of the location ``x``."""
        p = self.prior
        if self.model == "normal-binomial":
            return 0.5 * np.log(p.eta0 / (2 * np.pi)) - 0.5 * p.eta0 * (x - p.mu0) ** 2
        ls = _log_sigmoid(x)
        return p.am * ls + p.bm * (ls - x) - sc.betaln(p.am, p.bm)

    def _log_prior_v(self, v):
        """Log prior density of the spread variable ``v``."""
        p = self.prior
        if self.model == "normal-binomial":
            return p.a0 * v - np.exp(v) / p.b0 - sc.gammaln(p.a0) - p.a0 * np.log(p.b0)
        return 2 * _log_sigmoid(v) - v  # s uniform: log sigmoid(v) + log(1 - sigmoid(v))

    def _between(self, v):
        """Approximate between-subject variance in logit units at spread ``v`` (placement)."""
        if self.model == "normal-binomial":
            return np.exp(-v)
        nu = 1.0 / (self.prior.s_max * sc.expit(v)) ** 2
        pbar = (self._kd.sum() + 0.5) / (self._nd.sum() + 1.0)
        return 1.0 / (pbar * (1 - pbar) * (nu + 1.0))

    def _x_prior_normal(self):
        p = self.prior
        if self.model == "normal-binomial":
            return p.mu0, p.eta0
        return np.log(p.am / p.bm), p.am * p.bm / (p.am + p.bm)

    def _subject_terms(self, x, v, moments: bool = False):
        """Per-subject log marginal likelihood, E[accuracy] and E[accuracy^2] at nodes.

        ``x`` has shape (T, C), ``v`` shape (T,); returns arrays of shape (m_data, T, C) (the
        moments only with ``moments``: otherwise they may be None or not filled in).
        Subjects with the same counts share one computation (many subjects of a few examples
        each have only a handful of distinct ``(k, n)``).
        """
        pairs, inv = np.unique(np.stack([self._kd, self._nd]), axis=1, return_inverse=True)
        terms = self._distinct_terms(pairs[0], pairs[1], x, v, moments)
        if pairs.shape[1] == self._kd.size and (inv == np.arange(inv.size)).all():
            return terms
        return tuple(None if t is None else t[inv] for t in terms)

    def _distinct_terms(self, k, n, x, v, moments: bool):
        """:meth:`_subject_terms` for the subjects with counts ``k`` of ``n``."""
        if self.model == "normal-binomial":
            return self._normal_binomial_terms(k, n, x, v, moments)
        k = k[:, None, None]  # beta-binomial: closed form
        n = n[:, None, None]
        nu = self._nu(v)[:, None]
        a, b = nu * sc.expit(x), nu * sc.expit(-x)
        logc = sc.gammaln(n + 1) - sc.gammaln(k + 1) - sc.gammaln(n - k + 1)
        ll = logc + _log_rising(a, k) + _log_rising(b, n - k) - _log_rising(nu, n)
        if not moments:  # the fit's searches need the likelihoods only
            return ll, None, None
        aa, bb = posterior_parameters(k, n, a, b)
        acc = aa / (aa + bb)
        return ll, acc, acc * (aa + 1) / (aa + bb + 1)

    def _normal_binomial_terms(self, k, n, x, v, moments: bool = True):
        """:meth:`_subject_terms` of the normal-binomial model.

        Each subject's marginal likelihood is ``L_j(mu, lambda) = int Bin(k_j | n_j,
        sigmoid(rho)) N(rho | mu, 1/lambda) d rho``. Rows of the grid where the normal density
        is wider than half the narrowest subject likelihood take it as a trapezoidal sum on one
        uniform ``rho`` grid per class (step a third of the narrower of the two widths, so the
        smooth integrand is resolved and the rule converges geometrically; a few matrix
        products give every node, subject and moment at once); the likelihoods of perfect or
        all-wrong subjects tend to 1 beyond the grid's ends (|rho| <= 40), which the normal
        tails there add in closed form. Where the normal density is narrower, the integrand
        is close to it and adaptive Gauss-Hermite quadrature is exact to ~1e-12.
        """
        lam = np.exp(v)
        p = (k + 0.5) / (n + 1.0)
        width = 1.0 / np.sqrt((n + 1.0) * p * (1 - p))
        wphi = 1.0 / np.sqrt(lam)
        on_grid = wphi >= _GH_BELOW * width.min()
        shape = (k.size,) + x.shape
        ll, acc, acc2 = np.empty(shape), np.empty(shape), np.empty(shape)
        if on_grid.any():
            rows = np.flatnonzero(on_grid)
            g = self._grid_terms(k, n, x[rows], lam[rows], width, moments)
            ll[:, rows] = g[0]
            if moments:
                acc[:, rows], acc2[:, rows] = g[1], g[2]
        gh = ~on_grid | ~np.isfinite(ll).all(axis=(0, 2))
        if gh.any():
            rows = np.flatnonzero(gh)
            g = self._hermite_terms(k, n, x[rows], lam[rows])
            bad = ~np.isfinite(ll[:, rows]) | ~on_grid[rows][None, :, None]
            for out, new in zip((ll, acc, acc2), g, strict=True):
                sub = out[:, rows]
                sub[bad] = new[bad]
                out[:, rows] = sub
        return ll, acc, acc2

    def _grid_terms(self, k, n, mu, lam, width, moments: bool = True):
        """Trapezoidal sums on a uniform ``rho`` grid (see :meth:`_normal_binomial_terms`)."""
        wphi = 1.0 / np.sqrt(lam)
        step = min(width.min(), wphi.min()) / _GRID_STEPS
        p = (k + 0.5) / (n + 1.0)
        centre = np.log(p) - np.log1p(-p)
        # where what is summed is not negligible: a log-likelihood is concave with slopes up to
        # k (left) and n - k (right), so it has fallen by 40 within 12 widths (its normal part)
        # plus 40/k (its linear tail) of its centre; a perfect subject's likelihood less its step
        # within 9 (the step) or 40/n (its own tail). The normal density only narrows that, and
        # the integrand peaks between its centre and the likelihood's.
        near = 12.0 * width
        left = np.where(k == 0, -40.0, centre - near - np.where(k == n, np.maximum(9.0, 40.0 / n), 40.0 / np.maximum(k, 1)))
        right = np.where(k == n, 40.0, centre + near + np.where(k == 0, np.maximum(9.0, 40.0 / n), 40.0 / np.maximum(n - k, 1)))
        lo = min(float(left.min()), float(mu.min()) - 3 * float(wphi.min()))
        hi = max(float(right.max()), float(mu.max()) + 3 * float(wphi.min()))
        lo, hi = max(lo, -40.0), min(hi, 40.0)
        rho = np.arange(lo, hi + 0.5 * step, step)
        ls = _log_sigmoid(rho)
        logc = sc.gammaln(n + 1) - sc.gammaln(k + 1) - sc.gammaln(n - k + 1)
        logl = logc[:, None] + n[:, None] * ls[None, :] - (n - k)[:, None] * rho[None, :]
        top = logl.max(axis=1)
        el = np.exp(logl - top[:, None])  # (m, R)
        sig = np.exp(ls)
        # a perfect (all-wrong) subject's likelihood tends to 1 as rho -> +inf (-inf): the smooth
        # step H = Phi(+-(rho - centre)) is taken out (its convolution with the normal density is
        # closed-form) so that what the grid sums vanishes at both ends
        perfect, wrong = k == n, k == 0
        sign = np.where(perfect, 1.0, np.where(wrong, -1.0, 0.0))
        scaled = np.exp(-top) * (sign != 0)
        steps = sc.ndtr(sign[:, None] * (rho[None, :] - centre[:, None])) * scaled[:, None]
        keep = (perfect * scaled)[:, None]  # accuracy moments of an all-wrong subject vanish
        blocks = [el - steps]
        if moments:
            blocks += [el * sig - steps * (keep > 0), el * sig**2 - steps * (keep > 0)]
        rhs = np.concatenate(blocks).T
        nb = len(blocks)
        m = k.size
        t_rows, c = mu.shape
        out = np.empty((nb, m, t_rows, c))
        for r in range(t_rows):
            # the row's normal densities reach e^-40 within 9 of their widths of the nodes
            a = int(np.searchsorted(rho, mu[r].min() - 9.0 * wphi[r]))
            b = int(np.searchsorted(rho, mu[r].max() + 9.0 * wphi[r], side="right"))
            phi = np.exp(-0.5 * lam[r] * (rho[None, a:b] - mu[r][:, None]) ** 2)
            s = (phi @ rhs[a:b]) * (np.sqrt(lam[r] / (2 * np.pi)) * step)  # (c, nb m)
            spread = np.sqrt(1.0 + 1.0 / lam[r])
            blurred = sc.ndtr(sign[None, :] * (mu[r][:, None] - centre[None, :]) / spread) * scaled
            s[:, :m] += blurred
            if moments:
                s[:, m : 2 * m] += blurred * (perfect[None, :])
                s[:, 2 * m :] += blurred * (perfect[None, :])
            # far below a perfect subject's wall the sum is a small difference of large terms
            # (rounding ~1e-16 of the step's part): such nodes go to Gauss-Hermite instead
            s[:, :m][s[:, :m] < 1e-7 * blurred] = np.nan
            out[:, :, r, :] = s.T.reshape(nb, m, c)
        with np.errstate(divide="ignore", invalid="ignore"):
            ll = np.log(out[0]) + top[:, None, None]
            acc = out[1] / out[0] if moments else None
            acc2 = out[2] / out[0] if moments else None
        ll[~(out[0] > 0)] = np.nan
        return ll, acc, acc2

    def _hermite_terms(self, k, n, x, v_lam):
        """Adaptive Gauss-Hermite quadrature (see :meth:`_normal_binomial_terms`)."""
        k = k[:, None, None]
        n = n[:, None, None]
        lam = v_lam[:, None]
        mu = x
        # mode of h(rho) = k log s + (n - k) log(1 - s) - lam (rho - mu)^2 / 2, s = sigmoid(rho):
        # h' is decreasing and h'(mu + h'(mu) / lam) has the other sign, which brackets the root;
        # Newton steps that leave the bracket are replaced by bisection
        g0 = k - n * sc.expit(mu)
        end = mu + g0 / lam
        # for 0 < k < n the likelihood peaks at logit(k/n), where h' has the sign opposite
        # to h'(mu): a much tighter bracket
        inner = (k > 0) & (k < n)
        peak = np.log(np.maximum(k, 0.5)) - np.log(np.maximum(n - k, 0.5))
        end = np.where(inner, peak, end)
        lo, hi = np.minimum(mu, end), np.maximum(mu, end)
        p = (k + 0.5) / (n + 1.0)
        prec = (n + 1.0) * p * (1 - p)
        rho = np.clip((prec * np.log(p / (1 - p)) + lam * mu) / (prec + lam), lo, hi)
        for _ in range(_NEWTON):
            s = sc.expit(rho)
            g = k - n * s - lam * (rho - mu)
            lo = np.where(g > 0, rho, lo)
            hi = np.where(g > 0, hi, rho)
            step = rho + g / (n * s * (1 - s) + lam)
            # (a step onto an end of the bracket is kept: converged iterates sit on one end)
            inside = (step >= lo) & (step <= hi)
            new = np.where(inside, step, 0.5 * (lo + hi))
            done = np.abs(new - rho).max() <= 1e-12 * (1.0 + np.abs(rho).max())
            rho = new
            if done:
                break
        s = sc.expit(rho)
        hh = n * s * (1 - s) + lam
        scale = np.sqrt(2.0 / hh)
        r = rho[..., None] + scale[..., None] * _Z  # (m, T, C, Q)
        ls = _log_sigmoid(r)
        h = n[..., None] * ls - (n - k)[..., None] * r - 0.5 * lam[..., None] * (r - mu[..., None]) ** 2
        lw = h + _LOG_WQ
        top = lw.max(axis=-1, keepdims=True)
        e = np.exp(lw - top)
        tot = e.sum(axis=-1)
        logc = sc.gammaln(n + 1) - sc.gammaln(k + 1) - sc.gammaln(n - k + 1)
        ll = logc + 0.5 * np.log(lam / (2 * np.pi)) + np.log(scale) + top[..., 0] + np.log(tot)
        sig = np.exp(ls)
        acc = (e * sig).sum(axis=-1) / tot
        return ll, acc, (e * sig * sig).sum(axis=-1) / tot

    # ------------------------------------------------------------------------------ the fit
    def _placement(self, v):
        """Centre and scale of ``x`` given ``v`` and ``v``'s log marginal (approximate)."""
        p = (self._kd + 0.5) / (self._nd + 1.0)
        r = np.log(p / (1 - p))
        var = 1.0 / ((self._nd + 1.0) * p * (1 - p))
        x0, eta = self._x_prior_normal()
        tot = var[None, :] + self._between(v)[:, None]
        prec = eta + (1.0 / tot).sum(axis=1)
        centre = (eta * x0 + (r / tot).sum(axis=1)) / prec
        logm = (
            -0.5 * np.log(tot).sum(axis=1)
            - 0.5 * np.log(prec)
            - 0.5 * ((r**2 / tot).sum(axis=1) + eta * x0**2 - prec * centre**2)
        )
        return centre, 1.0 / np.sqrt(prec), logm

    def _fit(self) -> None:
        scan = np.linspace(-60.0, 40.0, 2001)
        _, _, logm = self._placement(scan)
        logm = logm + self._log_prior_v(scan)
        top = logm.max()
        inside = np.flatnonzero(logm > top - _RANGE)
        lo, hi = scan[max(inside[0] - 1, 0)], scan[min(inside[-1] + 1, scan.size - 1)]
        w = np.exp(logm - top)
        mean = (w * scan).sum() / w.sum()
        sd = np.sqrt((w * (scan - mean) ** 2).sum() / w.sum())
        step = _STEP * max(sd, 1e-3)
        level = 0
        for _ in range(_MAX_WIDEN + 3):  # (widenings, and up to three refinements)
            t = max(12, int(np.ceil((hi - lo) / step)) + 1)
            v = np.linspace(lo, hi, t)
            centre, scale, x, lp, ll = self._rows(v, level)
            top = lp.max()
            rows = lp.max(axis=1)
            ok = True
            if rows[0] > top - _EDGE:
                lo -= 0.5 * (hi - lo)
                ok = False
            if rows[-1] > top - _EDGE:
                hi += 0.5 * (hi - lo)
                ok = False
            if ok and not self._resolved(lp, level):
                level += 1
                ok = False
            if ok:
                break
        else:  # pragma: no cover - a posterior this far from its placement does not occur
            raise RuntimeError("the hyperparameter grid did not converge")
        cpts, cw, fpts, interp, _ = _rules(level, self._cheb)
        du = 2 * _U / (fpts.size - 1)
        # the trapezoidal rule in v converges geometrically once its step resolves v's
        # marginal (the error at step h is about the square of the change from 2h to h); the
        # step is halved until the rule on every other node agrees to 3e-6 (error ~1e-11):
        # the placement's step is only a guess from an approximate marginal
        for _ in range(_MAX_REFINE):
            mass = _row_mass(lp, interp, scale)
            whole = mass.sum()
            half = 2.0 * (mass[1::2] if t % 2 == 0 else mass[::2]).sum()
            if abs(half / whole - 1.0) <= 3e-6:
                break
            mid = 0.5 * (v[1:] + v[:-1])
            c2, s2, x2, lp2, ll2 = self._rows(mid, level)
            order = np.argsort(np.concatenate([v, mid]), kind="stable")
            v = np.concatenate([v, mid])[order]
            centre = np.concatenate([centre, c2])[order]
            scale = np.concatenate([scale, s2])[order]
            x = np.concatenate([x, x2])[order]
            lp = np.concatenate([lp, lp2])[order]
            if ll is not None:
                ll = np.concatenate([ll, ll2], axis=1)[:, order]
            t = v.size
        dv = v[1] - v[0]
        lpf = lp @ interp.T  # (T, F)
        dead = lp.max(axis=1) < lp.max() - _DEAD  # rows without weight: left out
        lpf[dead] = -np.inf
        self._lpf = lpf
        self.v = v
        self._lp, self._centre, self._scale, self._umax, self._dv = lp, centre, scale, _U, dv
        self._du = du
        self.x = centre[:, None] + scale[:, None] * (_U * fpts)[None, :]
        self._cpts, self._cw = cpts, cw
        logw = lpf + np.log(scale * du * dv)[:, None]
        top = logw.max()
        total = np.exp(logw - top).sum()
        self.log_evidence = float(top + np.log(total))
        self.weights = np.exp(logw - self.log_evidence)  # (T, F), sums to 1
        self._ll_cheb = ll  # per-subject log marginal likelihoods at the Chebyshev nodes
        self._cheb_x, self._interp = x, interp

    def _resolved(self, lp, level: int) -> bool:
        """Whether the Chebyshev interpolants of the rows that carry weight have converged:
        their last three coefficients below 1e-11 (the log density's interpolation error; the
        logit density of :meth:`logit_table` is read from these interpolants), or 1e-9 after
        three refinements."""
        live = lp.max(axis=1) > lp.max() - _DEAD
        coef = lp[live] @ _rules(level, self._cheb)[4].T
        # a row whose interpolant stalls above _CHEB_TOL (rounding in a log density of large
        # magnitude) is accepted at 1e-9 from the third refinement on
        tol = _CHEB_TOL if level < 3 else 1e-9
        return bool(np.abs(coef[:, -3:]).max() <= tol * max(1.0, float(np.abs(coef).max())))

    def _rows(self, v, level: int):
        """Centres, scales, Chebyshev nodes, log joint density and per-subject log marginal
        likelihoods (or None) on the rows ``v`` of the grid.

        Each row's range in ``x`` starts from the placement (``c(v) +- U s(v)``) and is then
        fitted to the exact log density: narrowed to where it is within 50 of the row's peak
        (one node of margin), widened where the density at an end is not 32 below the peak, and
        the row recomputed, until it holds (at most five times). The placement's normal
        approximation can be far too wide (perfect subjects with many examples make the
        density fall like a double exponential) or too narrow (exponential tails).
        """
        cpts = _rules(level, self._cheb)[0]
        centre, scale, _ = self._placement(v)
        lp = np.empty((v.size, cpts.size))
        x = np.empty((v.size, cpts.size))
        ll = np.empty((self._nd.size, v.size, cpts.size)) if self._nd.size else None
        todo = np.arange(v.size)
        for _ in range(6):
            xs = centre[todo, None] + scale[todo, None] * (_U * cpts)[None, :]
            lps = self._log_prior_x(xs) + self._log_prior_v(v[todo])[:, None]
            if ll is not None:
                lls = self._subject_terms(xs, v[todo])[0]
                lps = lps + lls.sum(axis=0)
                ll[:, todo] = lls
            x[todo], lp[todo] = xs, lps
            peak = lps.max(axis=1, keepdims=True)
            near = lps > peak - _KEEP
            a = near.argmax(axis=1)
            b = cpts.size - 1 - near[:, ::-1].argmax(axis=1)
            low_end = lps[:, 0] <= peak[:, 0] - _EDGE
            high_end = lps[:, -1] <= peak[:, 0] - _EDGE
            width = xs[:, -1] - xs[:, 0]
            new_lo = np.where(low_end, xs[np.arange(todo.size), np.maximum(a - 1, 0)], xs[:, 0] - 0.5 * width)
            new_hi = np.where(high_end, xs[np.arange(todo.size), np.minimum(b + 1, cpts.size - 1)],
                              xs[:, -1] + 0.5 * width)  # fmt: skip
            redo = ~low_end | ~high_end | (new_hi - new_lo < 0.8 * width)
            # rows that carry no weight are left as they are
            redo &= peak[:, 0] > lp[np.isfinite(lp)].max() - _DEAD if np.isfinite(lp).any() else redo
            if not redo.any():
                break
            idx = todo[redo]
            centre[idx] = 0.5 * (new_lo[redo] + new_hi[redo])
            scale[idx] = 0.5 * (new_hi[redo] - new_lo[redo]) / _U
            todo = idx
        return centre, scale, x, lp, ll

    @functools.cached_property
    def _moments(self):
        """E[accuracy] and E[accuracy^2] of each subject at every fine node (on first use)."""
        _, acc, acc2 = self._subject_terms(self._cheb_x, self.v, moments=True)
        return (np.einsum("jtc,fc->jtf", acc, self._interp),
                np.einsum("jtc,fc->jtf", acc2, self._interp))  # fmt: skip

    # ----------------------------------------------------------------------------- results
    @functools.cached_property
    def _accuracy(self) -> np.ndarray:
        """The population accuracy ``sigmoid(x)`` at every fine node (on first use)."""
        return sc.expit(self.x)

    def population_moments(self) -> tuple[float, float]:
        """Posterior mean and sd of the population accuracy ``sigmoid(x)``."""
        g = self._accuracy
        mean = float((self.weights * g).sum())
        return mean, float(np.sqrt(max((self.weights * (g - mean) ** 2).sum(), 0.0)))

    def population_range(self) -> tuple[float, float]:
        """Smallest and largest population accuracy among the nodes that carry weight."""
        g = self._accuracy
        live = self.weights > 1e-18 * self.weights.max()
        return float(g[live].min()), float(g[live].max())

    def logit_density(self, x) -> np.ndarray:
        """Posterior density of the location ``x`` (the logit of the population accuracy).

        The rows' log densities are read from their Chebyshev interpolants (barycentric
        formula, exact to the interpolants' accuracy) and summed over the rows by the
        trapezoidal rule in ``v``. Unlike :meth:`population_density` this resolves the
        density wherever it is (the logit of an accuracy near 1 is not representable as a
        float accuracy) and to about 1e-10 relative.
        """
        x = np.asarray(x, dtype=float)
        out = np.zeros(x.size)
        live = np.flatnonzero(self._lp.max(axis=1) > self._lp.max() - _DEAD)
        for r in live:
            u = (x - self._centre[r]) / (self._scale[r] * self._umax)
            inside = np.flatnonzero(np.abs(u) <= 1.0)
            if inside.size:
                lp = barycentric_values(self._cpts, self._cw, u[inside], self._lp[r])
                out[inside] += np.exp(lp - self.log_evidence)
        return out * self._dv

    def logit_moments(self) -> tuple[float, float]:
        """Posterior mean and sd of the location ``x``."""
        mean = float((self.weights * self.x).sum())
        return mean, float(np.sqrt(max((self.weights * (self.x - mean) ** 2).sum(), 0.0)))

    def population_m3(self) -> float:
        """Third central moment of the population accuracy ``sigmoid(x)``."""
        g = self._accuracy
        mean = float((self.weights * g).sum())
        return float((self.weights * (g - mean) ** 3).sum())

    @functools.cached_property
    def logit_table(self):
        """The distribution of ``x`` as a :class:`bacc._engine.sums.grid_average.GridSum` (one component,
        scale 1): its density sampled every ``1/24`` of its sd over the nodes that carry
        weight, where it has fallen by ``e^-46`` at both ends; cdf, sf, pdf at any ``x``."""
        from .sums.grid_average import GridSum

        live = self.weights > 1e-20 * self.weights.max()
        xs = np.broadcast_to(self.x, self.weights.shape)[live]
        lo, hi = float(xs.min()), float(xs.max())
        h = self.logit_moments()[1] / _LOGIT_STEPS
        grid = lo + h * np.arange(int(np.ceil((hi - lo) / h)) + 1)
        return GridSum([lo], h, [self.logit_density(grid)], 1.0)

    def tail_mass_bounds(self, t: float) -> tuple[float, float]:
        """Bounds of the posterior mass of ``x`` below ``-t`` and above ``t`` (``t > 0``), read
        from the quadrature rule's weights without the logit density.

        Each weight is the mass of a cell one node spacing wide about its node (the trapezoidal
        rule in ``u``; to the rule's accuracy). The nodes at least a spacing beyond the two
        points have their whole cells beyond them (the lower bound); the nodes up to a spacing
        short of them include every cell that reaches beyond (the upper bound).
        """
        d = (self._scale * self._du)[:, None]  # the node spacing of each row, in x
        x = self.x
        inner = (x < -t - d) | (x > t + d)
        outer = (x < -t + d) | (x > t - d)
        return float(self.weights[inner].sum()), float(self.weights[outer].sum())

    def population_density(self, g) -> np.ndarray:
        """Posterior density of the population accuracy at ``g`` (in (0, 1))."""
        g = np.asarray(g, dtype=float)
        x = sc.logit(g)
        u = (x[None, :] - self._centre[:, None]) / (self._scale * self._umax)[:, None]  # (T, n)
        live = self._lp.max(axis=1) > self._lp.max() - _DEAD  # rows with weight above 1e-20
        rows, cols = np.nonzero((np.abs(u) <= 1.0) & live[:, None])
        # the log density is interpolated from the fine grid of its row by the degree-5 polynomial
        # through the six nearest points (the barycentric formula from the Chebyshev points, as
        # in logit_density, would cost 33 terms a point). Measured against the exact log density
        # within 20 of a row's peak: errors to ~3e-9 (normal-binomial) and to ~1.5e-6, median
        # 1e-7 (beta-binomial, where the Chebyshev form errs by up to 2e-7); the distribution's
        # CDF agrees with the Chebyshev-based logit table's to 6e-8 at most, median 2e-9 (16
        # one-class beta-binomial fits of 3-11 subjects of 20-400 examples; 3e-9 and 6e-11
        # normal-binomial).
        f = self._lpf.shape[1]
        pos = (u[rows, cols] + 1.0) * 0.5 * (f - 1)
        j = np.clip(np.floor(pos).astype(np.int64) - 2, 0, f - 6)
        t = pos - j  # in [0, 5]
        nodes = np.arange(6.0)
        diff = t[:, None] - nodes[None, :]
        prod = np.prod(np.where(np.eye(6, dtype=bool)[None], 1.0, diff[:, None, :]), axis=2)
        weights = prod * _LAGRANGE6
        vals = (weights * self._lpf[rows[:, None], j[:, None] + np.arange(6)[None, :]]).sum(axis=1)
        out = np.bincount(cols, np.exp(vals - self.log_evidence), minlength=g.size)
        return out * self._dv / (g * (1.0 - g))

    def spread(self) -> tuple[float, float]:
        """Posterior mean and sd of the between-subject sd of the class accuracy."""
        if self.model == "beta-binomial":
            nu = self._nu(self.v)[:, None]
            pm = self._accuracy
            sd = np.sqrt(pm * (1 - pm) / (nu + 1.0))
        else:
            m1, m2 = self._new_subject
            sd = np.sqrt(np.maximum(m2 - m1 * m1, 0.0))
        mean = float((self.weights * sd).sum())
        return mean, float(np.sqrt(max((self.weights * sd * sd).sum() - mean**2, 0.0)))

    def _nu(self, v):
        return 1.0 / (self.prior.s_max * sc.expit(v)) ** 2

    @functools.cached_property
    def _new_subject(self):
        return self._new_subject_moments()

    def _new_subject_moments(self):
        """E[accuracy] and E[accuracy^2] of a new subject at every node (normal-binomial)."""
        lam = np.exp(self.v)[:, None, None]
        s = sc.expit(self.x[..., None] + np.sqrt(2.0 / lam) * _Z)
        return ((s * _WQ).sum(axis=-1) / np.sqrt(np.pi),
                (s * s * _WQ).sum(axis=-1) / np.sqrt(np.pi))  # fmt: skip

    def _data_index(self, j):
        """Row of subject ``j`` among the subjects with data (None: no data, or a new one)."""
        if j is None or self.n[j] == 0:
            return None
        return int(np.count_nonzero(self.n[:j] > 0))

    def subject_moments(self, j) -> tuple[float, float]:
        """Posterior mean and sd of subject ``j``'s class accuracy (``None``: a new subject).

        ``E[g] = sum_nodes W E[g | node, k_j]`` (and the same for ``g^2``): the conditional
        moments are closed-form (beta-binomial) or by-products of the marginal likelihoods'
        quadrature (normal-binomial); a subject without data of the class, or a new one, has
        the population's.
        """
        d = self._data_index(j)
        if d is not None:
            m1, m2 = self._moments[0][d], self._moments[1][d]
        elif self.model == "beta-binomial":
            pm = self._accuracy
            nu = self._nu(self.v)[:, None]
            m1, m2 = pm, pm * (pm * nu + 1.0) / (nu + 1.0)
        else:
            m1, m2 = self._new_subject
        w = self.weights
        mean = float((w * m1).sum())
        return mean, float(np.sqrt(max((w * m2).sum() - mean**2, 0.0)))

    def subjects_moments(self, js) -> np.ndarray:
        """:meth:`subject_moments` of subjects ``js`` at once, shape ``(len(js), 2)``.

        Beta-binomial: ``E[g | node, k_j]`` and ``E[g^2 | node, k_j]`` are closed-form; they
        are computed for these subjects only (without the marginal likelihoods that
        :meth:`subject_moments` computes for every subject on first use), by the same
        operations, so the numbers are the same.
        """
        if self.model != "beta-binomial":
            return np.array([self.subject_moments(j) for j in js]).reshape(len(js), 2)
        out = np.empty((len(js), 2))
        rows = [self._data_index(j) for j in js]
        have = [c for c, d in enumerate(rows) if d is not None]
        for c, d in enumerate(rows):
            if d is None:
                out[c] = self.subject_moments(None)
        if have:
            d = np.array([rows[c] for c in have])
            k, n = self._kd[d][:, None, None], self._nd[d][:, None, None]
            # rows of nodes whose weights are all 0 add exact zeros to the sums: they are
            # left at 0 rather than computed
            w = self.weights
            live = np.flatnonzero(w.max(axis=1) > 0)
            nu = self._nu(self.v[live])[:, None]
            x = self._cheb_x[live]
            aa, bb = posterior_parameters(k, n, nu * sc.expit(x), nu * sc.expit(-x))
            acc = aa / (aa + bb)
            m1 = np.einsum("jtc,fc->jtf", acc, self._interp)
            m2 = np.einsum("jtc,fc->jtf", acc * (aa + 1) / (aa + bb + 1), self._interp)
            a1, a2 = np.zeros(w.shape), np.zeros(w.shape)
            for c, b1, b2 in zip(have, m1, m2, strict=True):
                a1[live], a2[live] = b1, b2
                mean = float((w * a1).sum())
                out[c] = mean, float(np.sqrt(max((w * a2).sum() - mean**2, 0.0)))
        return out

    def _kernel(self, g, h: float, xs, vs) -> np.ndarray:
        """Density of a subject's accuracy at ``g`` given each node (rows: g, columns: nodes)."""
        col = g[:, None]
        if self.model == "beta-binomial":
            nu = self._nu(vs)
            a, b = sc.expit(xs) * nu, sc.expit(-xs) * nu
            sd = np.sqrt(a * b / (nu**2 * (nu + 1.0)))
            wide = sd >= h
            kern = np.zeros((g.size, xs.size))
            a_w, b_w = a[wide], b[wide]
            with np.errstate(divide="ignore", over="ignore"):
                kern[:, wide] = np.exp((a_w - 1) * np.log(col) + (b_w - 1) * np.log1p(-col)
                                       - sc.betaln(a_w, b_w))  # fmt: skip
            if (~wide).any():
                # narrower than a step: a point at its mean, split between the two nearest
                # grid points (the mean kept; the variance left out is below h^2)
                # (g may be a stretch of a longer grid: only the points that fall on it count)
                pos = ((a / nu)[~wide] - g[0]) / h
                j = np.floor(pos).astype(np.int64)
                frac = pos - j
                cols = np.flatnonzero(~wide)
                for row, share in ((j, 1 - frac), (j + 1, frac)):
                    on = (row >= 0) & (row < g.size)
                    np.add.at(kern, (row[on], cols[on]), share[on] / h)
            return kern
        lam = np.exp(vs)
        r = sc.logit(col)
        return np.exp(0.5 * np.log(lam / (2 * np.pi)) - 0.5 * lam * (r - xs) ** 2) / (col * (1 - col))

    def subject_densities(self, js, g, h: float, spans=None, dense: bool = False) -> np.ndarray:
        """Posterior densities of subjects ``js``' class accuracies at ``g`` (``None``: new one).

        Shape ``(len(g), len(js))``; ``spans``: the stretch ``[start, stop)`` of ``g`` each
        subject needs (default: all of it; rows outside are 0 under the beta-binomial model).
        Under the beta-binomial model the sums are taken by blocks of ``g``, each with the
        subjects that need it and the nodes whose terms reach ``e^-46`` of its sums
        (:func:`bacc._engine.beta_mixture.beta_mixture`; ``dense=True``: every node at every
        point, the same numbers to rounding). Subject ``j``'s accuracy has the mixture density
        ``sum_nodes W p(g | node, k_j)`` over the hyperparameter nodes, and
        ``p(g | node, k_j) = Bin(k_j | n_j, g) p(g | node) / L_j(node)``: one kernel
        ``p(g | node)`` (the population density of subjects' accuracies at the node: logit-normal
        or Beta) serves every subject, so all of them are one matrix product. A Beta kernel
        narrower than a grid step enters as a point at its mean (split between the two nearest
        points); one singular at an end has its mass beyond the outer cells' inner edges put
        on those cells.
        """
        keep = self._kept
        w = self.weights.ravel()[keep]
        xs = np.broadcast_to(self.x, self.weights.shape).ravel()[keep]
        vs = np.broadcast_to(self.v[:, None], self.weights.shape).ravel()[keep]
        g = np.asarray(g, dtype=float)
        if self.model == "beta-binomial" and not dense:
            return self._beta_densities(js, g, h, spans, w, keep)
        if self.model == "beta-binomial":
            logx, log1x = np.log(g), np.log1p(-g)
        else:
            r = sc.logit(g)
            logx, log1x = _log_sigmoid(r), _log_sigmoid(-r)
        mix = np.empty((w.size, len(js)))
        shift = np.zeros(len(js))
        extra = np.zeros((g.size, len(js)))
        for c, j in enumerate(js):
            d = self._data_index(j)
            if d is None:
                mix[:, c] = w
                continue
            lw = np.log(np.maximum(w, 1e-300)) - self._ll[d].ravel()[keep]
            shift[c] = lw.max()
            mix[:, c] = np.exp(lw - shift[c])
            k, n = self._kd[d], self._nd[d]
            logc = sc.gammaln(n + 1) - sc.gammaln(k + 1) - sc.gammaln(n - k + 1)
            extra[:, c] = logc + k * logx + (n - k) * log1x
        out = np.empty((g.size, len(js)))
        per = max(1, int(2e7 // max(w.size, 1)))  # kernel rows at a time (memory)
        for r0 in range(0, g.size, per):
            kern = self._kernel(g[r0 : r0 + per], h, xs, vs)
            with np.errstate(divide="ignore"):
                out[r0 : r0 + per] = np.exp(np.log(np.maximum(kern @ mix, 0.0)) + extra[r0 : r0 + per] + shift)
        if self.model == "normal-binomial" and g.size:
            # a new subject's logit-normal laws with a small precision pile mass near 0 and 1:
            # the outer cells hold the exact mass beyond their inner edges
            root = np.sqrt(np.exp(vs))
            for c, j in enumerate(js):
                if self._data_index(j) is None:
                    out[0, c] = w @ sc.ndtr((sc.logit(g[0] + h / 2) - xs) * root) / h
                    out[-1, c] = w @ sc.ndtr((xs - sc.logit(g[-1] - h / 2)) * root) / h
        if self.model == "beta-binomial" and g.size:
            # the outer cells hold the exact mass of the subject's posterior beyond their inner
            # edges (Beta(k + alpha, n - k + beta) may be singular at 0 or 1)
            nu = self._nu(vs)
            a0, b0 = sc.expit(xs) * nu, sc.expit(-xs) * nu
            for c, j in enumerate(js):
                d = self._data_index(j)
                a, b = (a0, b0) if d is None else (a0 + self._kd[d], b0 + self._nd[d] - self._kd[d])
                cap = np.minimum(1.0, 1e12 / (a + b))
                out[0, c] = w @ sc.betainc(a * cap, b * cap, g[0] + h / 2) / h
                out[-1, c] = w @ sc.betaincc(a * cap, b * cap, g[-1] - h / 2) / h
        return out

    @functools.cached_property
    def _ll(self) -> np.ndarray:
        """Per-subject log marginal likelihoods at the fine nodes (on first use), shape
        ``(m_data, T, F)``; rows of nodes whose weights are all 0 (never used) are 0."""
        ll = self._ll_cheb
        live = np.flatnonzero(self.weights.max(axis=1) > 0)
        if live.size == ll.shape[1]:
            return np.einsum("jtc,fc->jtf", ll, self._interp)
        out = np.zeros((ll.shape[0],) + self.weights.shape)
        out[:, live] = np.einsum("jtc,fc->jtf", ll[:, live], self._interp)
        return out

    @functools.cached_property
    def _kept(self) -> np.ndarray:
        """The nodes holding all but 1e-12 of the weight (a node's share of every subject's
        posterior is its weight: the conditional laws are normalised)."""
        w = self.weights.ravel()
        order = np.argsort(w)
        keep = np.zeros(w.size, dtype=bool)
        keep[order[np.cumsum(w[order]) > 1e-12]] = True
        return keep

    def _beta_densities(self, js, g, h: float, spans, w, keep) -> np.ndarray:
        """:meth:`subject_densities` of the beta-binomial model by blocks (kept nodes ``keep``
        of weights ``w``); the outer cells' exact masses only for the subjects that need
        them."""
        from .beta_mixture import beta_mixture

        if spans is None:
            spans = [(0, g.size)] * len(js)
        xs = np.broadcast_to(self.x, self.weights.shape).ravel()[keep]
        vs = np.broadcast_to(self.v[:, None], self.weights.shape).ravel()[keep]
        nu = self._nu(vs)
        a0, b0 = sc.expit(xs) * nu, sc.expit(-xs) * nu
        logmix = np.empty((w.size, len(js)))
        shift, k, n = np.zeros(len(js)), np.zeros(len(js)), np.zeros(len(js))
        logw = np.log(np.maximum(w, 1e-300))
        for c, j in enumerate(js):
            d = self._data_index(j)
            if d is None:
                logmix[:, c] = logw
                continue
            lw = logw - self._ll[d].ravel()[keep]
            shift[c] = lw.max()
            logmix[:, c] = lw - shift[c]
            k[c], n[c] = self._kd[d], self._nd[d]
        out = beta_mixture(g, h, a0, b0, logmix, k, n, shift, spans)
        # the outer cells hold the exact mass of the subject's posterior beyond their inner
        # edges (Beta(k + alpha, n - k + beta) may be singular at 0 or 1)
        for c, (start, stop) in enumerate(spans):
            if start > 0 and stop < g.size:
                continue
            a, b = a0 + k[c], b0 + n[c] - k[c]
            cap = np.minimum(1.0, 1e12 / (a + b))
            a, b = a * cap, b * cap
            # beyond its mode a Beta density is monotone, so the mass beyond a cell edge
            # ``u`` on that side is at most the density at ``u`` times the distance to the
            # end (where the density is finite there): nodes whose bound is below e^-50 are
            # left out
            with np.errstate(divide="ignore", invalid="ignore"):
                mode = (a - 1.0) / (a + b - 2.0)
            bl = sc.betaln(a, b)
            if start == 0 and stop > 0:
                u = g[0] + h / 2
                small = (a >= 1.0) & (b >= 1.0) & (u <= mode)
                small &= np.log(u) + (a - 1.0) * np.log(u) + (b - 1.0) * np.log1p(-u) - bl < -50.0
                on = np.flatnonzero(~small)
                out[0, c] = w[on] @ sc.betainc(a[on], b[on], u) / h
            if stop == g.size and start < g.size:
                u = g[-1] - h / 2
                small = (a >= 1.0) & (b >= 1.0) & (u >= mode)
                small &= np.log1p(-u) + (a - 1.0) * np.log(u) + (b - 1.0) * np.log1p(-u) - bl < -50.0
                on = np.flatnonzero(~small)
                out[-1, c] = w[on] @ sc.betaincc(a[on], b[on], u) / h
        return out
