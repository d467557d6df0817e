"""Assurance of a labelling plan: the probability that the exact (union-bound) interval bacc will
report after more labels meets a goal, averaged over a design prior of the class accuracies.

Per class ``i`` the design prior is ``theta_i ~ Beta(a_i, b_i)`` (the current posterior) or a
fixed value. After ``m`` more labels of the class, its number of further correct answers is
beta-binomial ``BetaBinom(m, a_i, b_i)`` (binomial for a fixed value), and the class enters the
union bound through one number: its Clopper-Pearson lower bound (goal ``"lower"``) or the width
of its two-sided bound pair (goal ``"width"``), each at the per-bound level of
:func:`bacc._engine.bounds.per_class.per_bound_alpha`. The balanced statistic is the weighted
sum of these numbers, the classes are independent, so

* **exact**: the distribution of the sum is the convolution of the per-class discrete
  distributions (atoms = distinct counts); all classes but the largest are combined by outer
  sums and the largest enters through a sorted cumulative sum (one ``searchsorted``);
* **simulate**: vectorised draws of the class sizes (sequential conditional binomials) and of
  each class's further correct answers from its beta-binomial predictive distribution (the
  class accuracy integrated out; the classes are independent), with common random numbers:
  quantile coupling, ``k = F_m^-1(u)`` for a ``u`` fixed once per simulation, so that the
  estimates at neighbouring plan sizes differ by the plan, not by the noise.

A class with no labels at all has bounds ``[0, 1]`` (as ``exact_interval(empty="keep")``).

References
----------
Clopper, C. J. & Pearson, E. S. (1934). Biometrika 26, 404-413.
Sandler, T. & Dirac, L. (2024). Tales from the binomial tail: confidence intervals for balanced
accuracy. Groundlight blog, appendix A (union bound).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special as sc
from scipy import stats

from ...errors import BaccError
from .per_class import cp_bounds

#: Mass left out of each tail of a per-class count distribution and of the class-size
#: distribution (exact method): the computed probability is within ``2 (l + 1) * TRIM`` of the
#: sum over every outcome.
TRIM = 1e-12
#: Largest number of combined outcomes of all classes but the largest (exact method).
MAX_OUTER = 4_000_000
#: Widest window of counts inverted by a cumulative sum when the class sizes vary between
#: simulations; wider ones are drawn from the class accuracy's Beta draw and a binomial
#: quantile (the same distribution, integrated in two steps).
DIRECT_WINDOW = 16384
#: Outcomes at which the expected contribution of a class is evaluated (allocation path).
EXPECT_NODES = 256
#: Entries kept in the per-class cache of outcome distributions.
CACHE_SIZE = 4096


#: Half-width of the window of counts, in standard deviations: beyond 40, even the
#: exponential tail of a perfect class's Beta(n + 1, 1) predictive holds less than 1e-17.
WINDOW_SD = 40.0


def _window(m: int, mean: float, var: float) -> np.ndarray:
    """Counts within :data:`WINDOW_SD` standard deviations (plus 8) of the mean, in [0, m]."""
    half = WINDOW_SD * math.sqrt(max(var, 0.0)) + 8.0
    return np.arange(max(0, int(mean - half)), min(m, int(math.ceil(mean + half))) + 1)


def _log_choose(m: int, j: np.ndarray) -> np.ndarray:
    return sc.gammaln(m + 1.0) - sc.gammaln(j + 1.0) - sc.gammaln(m - j + 1.0)


def binom_window(m: int, q: float) -> tuple[np.ndarray, np.ndarray]:
    """Counts of ``Binomial(m, q)`` with non-negligible mass and their probabilities."""
    if q <= 0.0 or q >= 1.0 or m == 0:
        j = np.array([0 if q <= 0.0 else m])
        return j, np.ones(1)
    j = _window(m, m * q, m * q * (1.0 - q))
    logp = _log_choose(m, j) + j * math.log(q) + (m - j) * math.log1p(-q)
    return j, np.exp(logp)


def betabinom_window(m: int, a: float, b: float) -> tuple[np.ndarray, np.ndarray]:
    """Counts of ``BetaBinom(m, a, b)`` with non-negligible mass and their probabilities."""
    if m == 0:
        return np.zeros(1, dtype=np.int64), np.ones(1)
    var = m * a * b * (a + b + m) / ((a + b) ** 2 * (a + b + 1.0))
    j = _window(m, m * a / (a + b), var)
    logp = _log_choose(m, j) + sc.betaln(j + a, m - j + b) - sc.betaln(a, b)
    return j, np.exp(logp)


def inverse_cdf(u: np.ndarray, m: np.ndarray, window, direct=None) -> np.ndarray:
    """``F_m^-1(u)`` for each row (``window(m) -> (counts, pmf)``), one cumulative sum per
    distinct ``m``: the quantile coupling that keeps simulations at neighbouring sizes alike.

    ``direct(rows, sizes)``, if given, draws the rows of a size whose window is wider than
    :data:`DIRECT_WINDOW` counts (many distinct large sizes: one cumulative sum each would cost
    more than drawing the rows directly)."""
    out = np.zeros(u.shape, dtype=np.int64)
    uniq, inv = np.unique(m, return_inverse=True)
    inv = inv.ravel()
    order = np.argsort(inv, kind="stable")
    bounds = np.searchsorted(inv[order], np.arange(uniq.size + 1))
    far = []  # rows drawn directly, in one call
    for g, v in enumerate(uniq.tolist()):
        rows = order[bounds[g] : bounds[g + 1]]
        if v == 0:
            continue
        if direct is not None and window.size_hint(int(v)) > DIRECT_WINDOW:
            far.append(rows)
            continue
        j, pmf = window(int(v))
        cum = np.cumsum(pmf)
        pos = np.searchsorted(cum, u[rows] * cum[-1], side="left")
        out[rows] = j[np.minimum(pos, j.size - 1)]
    if far:
        rows = np.concatenate(far)
        out[rows] = direct(rows, m[rows])
    return out


class AssuranceModel:
    """Per-class outcome distributions and the probability that a plan meets its goal.

    Parameters
    ----------
    k0, n0 : int arrays, shape (l,)
        Correct answers and labels per class so far.
    a, b : float arrays, shape (l,)
        Beta design prior of each class accuracy (ignored where ``fixed`` is given).
    fixed : float array, shape (l,), or None
        Fixed class accuracies (a point design prior).
    weights : float array, shape (l,)
    alpha : float
        Level of each one-sided per-class bound.
    sides : {"two", "lower"}
    goal : {"lower", "width"}
    threshold : float
        ``t`` (goal: weighted bound > t) or ``w`` (goal: width <= w).
    """

    def __init__(self, k0, n0, a, b, fixed, weights, alpha, sides, goal, threshold) -> None:
        self.k0 = np.asarray(k0, dtype=np.int64)
        self.n0 = np.asarray(n0, dtype=np.int64)
        self.a = np.asarray(a, dtype=float)
        self.b = np.asarray(b, dtype=float)
        self.fixed = None if fixed is None else np.asarray(fixed, dtype=float)
        self.w = np.asarray(weights, dtype=float)
        self.alpha = float(alpha)
        self.sides = "two" if goal == "width" else sides
        self.goal = goal
        self.threshold = float(threshold)
        self.l = self.k0.size
        self._cache: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        self._draws = None
        self._expect: dict[tuple[int, int], float] = {}

    # ------------------------------------------------------------------------------------------
    def contribution(self, k, n) -> np.ndarray:
        """The class's number in the union bound: its lower bound, or its upper minus lower."""
        k = np.asarray(k, dtype=float)
        n = np.broadcast_to(np.asarray(n, dtype=float), k.shape)
        lo, hi = cp_bounds(k, n, self.alpha, self.sides)
        empty = n == 0
        if empty.any():
            lo, hi = np.where(empty, 0.0, lo), np.where(empty, 1.0, hi)
        return lo if self.goal == "lower" else hi - lo

    def count_pmf(self, i: int, m: int) -> tuple[np.ndarray, np.ndarray]:
        """Further correct answers ``j`` of class ``i`` in ``m`` labels and their predictive
        probabilities, tails of mass below :data:`TRIM` left out."""
        j, pmf = self.window(i, m)
        cum = np.cumsum(pmf)
        lo = int(np.searchsorted(cum, TRIM, side="right"))
        hi = int(np.searchsorted(cum, cum[-1] - TRIM, side="left"))
        hi = min(max(hi, lo), j.size - 1)
        return j[lo : hi + 1].astype(np.int64), pmf[lo : hi + 1]

    def count_sd(self, i: int, m: int) -> float:
        """Standard deviation of class ``i``'s further correct answers in ``m`` labels."""
        if self.fixed is not None:
            q = float(self.fixed[i])
            return math.sqrt(m * q * (1.0 - q))
        a, b = float(self.a[i]), float(self.b[i])
        return math.sqrt(m * a * b * (a + b + m) / ((a + b) ** 2 * (a + b + 1.0)))

    def window_size(self, i: int, m: int) -> int:
        """Number of counts in :meth:`window` (before it is computed)."""
        return int(min(m + 1, 2.0 * WINDOW_SD * self.count_sd(i, m) + 18.0))

    def _pmf_at(self, i: int, m: int, j: np.ndarray) -> np.ndarray:
        """Predictive probabilities of ``j`` further correct answers in ``m`` labels."""
        if self.fixed is not None:
            q = float(self.fixed[i])
            if q <= 0.0 or q >= 1.0:
                return (j == (0 if q <= 0.0 else m)).astype(float)
            return np.exp(_log_choose(m, j) + j * math.log(q) + (m - j) * math.log1p(-q))
        a, b = float(self.a[i]), float(self.b[i])
        return np.exp(_log_choose(m, j) + sc.betaln(j + a, m - j + b) - sc.betaln(a, b))

    def window(self, i: int, m: int) -> tuple[np.ndarray, np.ndarray]:
        """Predictive distribution of class ``i``'s further correct answers in ``m`` labels
        (beta-binomial, or binomial at a fixed accuracy) on its window of counts."""
        if self.fixed is not None:
            return binom_window(int(m), float(self.fixed[i]))
        return betabinom_window(int(m), float(self.a[i]), float(self.b[i]))

    def atoms(self, i: int, m: int) -> tuple[np.ndarray, np.ndarray]:
        """Values of class ``i``'s contribution after ``m`` more labels, with probabilities."""
        key = (i, int(m))
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        j, p = self.count_pmf(i, int(m))
        v = self.contribution(self.k0[i] + j, self.n0[i] + int(m))
        if len(self._cache) >= CACHE_SIZE:
            self._cache.clear()
        self._cache[key] = (v, p)
        return v, p

    def expected(self, i: int, m: int) -> float:
        """Expected contribution of class ``i`` after ``m`` more labels (a heuristic for the
        allocation path: with more than :data:`EXPECT_NODES` outcomes, the contribution is
        evaluated at the probability-weighted centre of each of that many bins of counts)."""
        key = (i, int(m))
        hit = self._expect.get(key)
        if hit is not None:
            return hit
        if key in self._cache:
            v, p = self._cache[key]
            val = float(v @ p / p.sum())
        else:
            v, p = self.thinned(i, int(m))
            val = float(v @ p / p.sum())
        if len(self._expect) >= 16 * CACHE_SIZE:
            self._expect.clear()
        self._expect[key] = val
        return val

    # ------------------------------------------------------------------------------------------
    def _met_probability(self, atom_list) -> float:
        """P(goal met) for independent classes with the given contribution distributions."""
        sizes = [v.size for v, _ in atom_list]
        order = np.argsort(sizes, kind="stable")
        last = int(order[-1])
        vals, probs = np.zeros(1), np.ones(1)
        for i in order[:-1]:
            v, p = atom_list[int(i)]
            if vals.size > 1 and vals.size * v.size > MAX_OUTER:
                raise BaccError(
                    "the exact assurance would combine more than 4,000,000 outcomes of the "
                    "classes; use method='simulate'"
                )
            vals = (vals[:, None] + self.w[i] * v[None, :]).ravel()
            probs = (probs[:, None] * p[None, :]).ravel()
        v, p = atom_list[last]
        srt = np.argsort(v, kind="stable")
        vs = v[srt]
        cum = np.concatenate([[0.0], np.cumsum(p[srt])])
        x = (self.threshold - vals) / self.w[last]
        idx = np.searchsorted(vs, x, side="right")  # number of values <= x
        q = cum[-1] - cum[idx] if self.goal == "lower" else cum[idx]
        return float(min(1.0, max(0.0, probs @ q)))

    def thinned(self, i: int, m: int) -> tuple[np.ndarray, np.ndarray]:
        """Class ``i``'s contribution after ``m`` more labels on at most :data:`EXPECT_NODES`
        outcomes: the counts binned, each bin at its probability-weighted centre."""
        m = int(m)
        sd = self.count_sd(i, m)
        if 16.0 * sd > 16 * EXPECT_NODES:
            # a wide, smooth distribution: its pmf at EXPECT_NODES counts spread over
            # +-8 standard deviations, as quadrature weights (no pass over every count)
            centre = m * (float(self.fixed[i]) if self.fixed is not None
                          else self.a[i] / (self.a[i] + self.b[i]))
            j = np.unique(np.rint(np.linspace(max(0.0, centre - 8 * sd),
                                              min(float(m), centre + 8 * sd),
                                              EXPECT_NODES)).astype(np.int64))
            pmf = self._pmf_at(i, m, j)
            return self.contribution(self.k0[i] + j, self.n0[i] + m), pmf / pmf.sum()
        j, p = self.count_pmf(i, m)
        if j.size > EXPECT_NODES:
            edges = np.linspace(0, j.size, EXPECT_NODES + 1).astype(np.int64)
            mass = np.add.reduceat(p, edges[:-1])
            centre = np.add.reduceat(p * j, edges[:-1]) / np.where(mass > 0, mass, 1.0)
            j, p = np.rint(centre).astype(np.int64), mass
        return self.contribution(self.k0[i] + j, self.n0[i] + int(m)), p

    def approx_stratified(self, m) -> float:
        """P(goal met) as :meth:`exact_stratified`, on binned outcomes: a quick guess that
        guides a search, never a reported figure."""
        return self._met_probability([self.thinned(i, int(mi)) for i, mi in enumerate(m)])

    def exact_stratified(self, m) -> float:
        """P(goal met) after ``m[i]`` more labels of class ``i`` (exact sums)."""
        return self._met_probability([self.atoms(i, int(mi)) for i, mi in enumerate(m)])

    def exact_mix(self, total: int, shares) -> float:
        """P(goal met) after ``total`` labels arriving in the class mix ``shares`` (two
        classes: exact sum over the binomial class sizes)."""
        if self.l != 2:
            raise BaccError("exact sums over the class mix are for two classes; use method='simulate'")
        if total == 0:
            return self.exact_stratified([0, 0])
        s, ps = binom_window(int(total), float(shares[1]))
        cum = np.cumsum(ps)
        keep = (cum > TRIM) & (cum - ps < cum[-1] - TRIM)
        s, ps = s[keep], ps[keep]
        out = 0.0
        for si, pi in zip(s.tolist(), ps.tolist(), strict=True):
            out += pi * self.exact_stratified([total - si, si])
        return float(min(1.0, out))

    # ------------------------------------------------------------------------------------------
    def prepare_draws(self, n_sim: int, rng: np.random.Generator) -> None:
        """Draw the simulation's uniforms once (common random numbers for every plan size)."""
        tiny = np.finfo(float).tiny
        u_count = np.clip(rng.random((n_sim, self.l)), tiny, 1.0)
        u_size = np.clip(rng.random((n_sim, self.l)), tiny, 1.0)
        if self.fixed is not None:
            theta = np.broadcast_to(self.fixed, (n_sim, self.l))
        else:
            theta = rng.beta(self.a, self.b, size=(n_sim, self.l))
        self._draws = (u_count, u_size, theta)

    def simulate(self, sizes) -> tuple[float, float]:
        """P(goal met) and its Monte Carlo standard error, for class sizes ``sizes`` (more
        labels per class: shape (l,) fixed, or (n_sim, l) drawn).

        The classes are independent and each one's further correct answers are beta-binomial
        given its size (the class accuracy integrated out), so each is drawn from that
        distribution by the inverse CDF at its fixed uniform."""
        u_count, _, theta = self._draws
        n_sim = u_count.shape[0]
        varying = np.ndim(sizes) == 2
        sizes = np.broadcast_to(np.asarray(sizes, dtype=np.int64), (n_sim, self.l))
        stat = np.zeros(n_sim)
        for i in range(self.l):
            window = _Window(self, i)

            def direct(rows, v, i=i):
                return stats.binom.ppf(u_count[rows, i], v, theta[rows, i]).astype(np.int64)

            k_new = inverse_cdf(u_count[:, i], sizes[:, i], window,
                                direct if varying else None)
            kk = self.k0[i] + k_new
            nn = self.n0[i] + sizes[:, i]
            key = kk * (int(nn.max()) + 1) + nn
            _, first, inv = np.unique(key, return_index=True, return_inverse=True)
            vals = self.contribution(kk[first], nn[first])
            stat += self.w[i] * vals[inv.ravel()]
        met = stat > self.threshold if self.goal == "lower" else stat <= self.threshold
        p = float(met.mean())
        return p, math.sqrt(p * (1.0 - p) / n_sim)

    def mix_sizes(self, total: int, shares) -> np.ndarray:
        """Class sizes of ``total`` labels in the mix ``shares``, one row per simulation
        (sequential conditional binomials, each by the inverse CDF at a fixed uniform)."""
        _, u_size, _ = self._draws
        n_sim = u_size.shape[0]
        out = np.zeros((n_sim, self.l), dtype=np.int64)
        left = np.full(n_sim, int(total), dtype=np.int64)
        rest = 1.0
        for i in range(self.l - 1):
            q = min(1.0, shares[i] / rest) if rest > 0 else 1.0
            s = inverse_cdf(u_size[:, i], left, _Window(None, i, q))
            out[:, i] = s
            left -= s
            rest -= shares[i]
        out[:, -1] = left
        return out


class _Window:
    """A class's count distribution at size ``m`` as a callable with a size hint: the
    predictive one of a model's class ``i``, or ``Binomial(m, q)`` (class sizes)."""

    def __init__(self, model: AssuranceModel | None, i: int, q: float = 0.0) -> None:
        self.model, self.i, self.q = model, i, q

    def __call__(self, m: int) -> tuple[np.ndarray, np.ndarray]:
        if self.model is None:
            return binom_window(m, self.q)
        return self.model.window(self.i, m)

    def size_hint(self, m: int) -> int:
        if self.model is None:
            return int(min(m + 1, 2.0 * WINDOW_SD * math.sqrt(m * self.q * (1.0 - self.q)) + 18.0))
        return self.model.window_size(self.i, m)
