"""Independent high-precision reference for weighted sums of independent Beta variables.

Used only by the test-suite to check the numerical engine of ``bacc``; it does not import
anything from ``bacc``.  The quantity is

    S = sum_i w_i X_i,   X_i ~ Beta(a_i, b_i) independent,  w_i real and non-zero,

with a_i, b_i > 0 anywhere from far below 1 to ~1e9.  Everything is computed with mpmath in
a private context (the global ``mpmath.mp`` is never touched) and returned as Python floats.

Method
------
* Negative weights are reflected: w X = w + |w| (1 - X) with 1 - X ~ Beta(b, a), so only
  positive weights and a constant shift remain.
* One Beta component, P(X <= y): the positive-term series
  I_y(a, b) = y^a (1 - y)^b / (a B(a, b)) * 2F1(a + b, 1; a + 1; y)
  (or the same for the complement), the terminating series when a or b is a small integer,
  summed with mpmath's fixed-point ``hypsum``.  Whichever variant needs the fewest terms is
  used.  For very large parameters (min(a, b) >= 200) the bulk of the distribution is
  handled by a table of Taylor expansions of the density, one every half standard deviation,
  whose coefficients follow from the ODE  t (1 - t) f'(t) = ((a - 1) - (a + b - 2) t) f(t);
  the table is chained by integrating those expansions.
* Each component has a truncation window [t_lo, t_hi] outside which its mass is below
  10**-(dps + 3) per side.  It starts from the sub-Gaussian bound
  P(|X - mean| > s) <= exp(-2 (a + b + 1) s^2) (Marchal & Arbel 2017, valid for all a, b > 0)
  and is narrowed by bisection where the exact tail (series) proves the mass is small.
* Two or more components: T = C + R with C the narrower part (k=2: the narrower
  component; k=3: the two narrower ones; k=4: two and two), integrated by its density:
  P(T <= x) = int f_C(s) F_R(x - s) ds,  f_T(x) = int f_C(s) f_R(x - s) ds.  The range is
  split where x - s leaves the window of R (outside it F_R is 0 or 1, and that part is a
  plain mass of C), at the kinks (sums of support end points that the windows touch), on
  grids of the standard deviations, and geometrically towards singular points.  Smooth
  panels use fixed Gauss-Legendre rules; panels ending in a square-root type singularity
  (half-integer Beta exponent, e.g. the Jeffreys prior) use Gauss-Legendre after
  s = end + L r^2; other singular ends, including the logarithmic singularities that arise
  when square-root ends meet from opposite sides (e.g. a perfect and an all-wrong class
  under the Jeffreys prior), use a double-exponential rule in the distance from the end.
  The x-independent factor f_C at the nodes is cached per panel on the (cached) model, so
  repeated calls with the same parameters (grids of x, ppf iterations) are much cheaper.

Accuracy verified against closed forms (tests/test_references.py and the checks reported with
it): 1 and 2 components at dps=30: 1e-28 or better (typically 1e-33), also with
a, b ~ 1e9 and with square-root / logarithmic singularities; 3 components are computed to
14 internal digits (error ~1e-13), 4 components to 11 (error ~1e-12) because the cost
grows like N^(k-1).  Limitations: probabilities below ~10**-(dps+3) in the far tails of
sums are not resolved (the CDF is exactly 0 / 1 outside the truncation window); at a point
where the density is infinite (e.g. the log singularity above) ref_pdf is meaningless;
break points closer than 1e-12 standard deviations are merged.
"""

from __future__ import annotations

import math
from functools import lru_cache

import mpmath
import numpy as np
from mpmath.libmp import NoConvergence

__all__ = [
    "mc_cdf",
    "mc_sample",
    "ref_cdf",
    "ref_mean_var",
    "ref_mode",
    "ref_pdf",
    "ref_ppf",
    "ref_sf",
]

_CTX = mpmath.MPContext()
_LN10 = math.log(10.0)
_MAX_COMPONENTS = 4
# internal digits for k components (cost grows like N^(k-1) without this)
_DIGITS_CAP = {1: 1000, 2: 1000, 3: 14, 4: 11}
_TAYLOR_MIN = 200.0  # min(a, b) from which the Taylor table is built
_TAYLOR_STEP = 0.5  # anchor spacing, in standard deviations
_SERIES_PREFERRED = 20000  # public 1-component calls: use the exact series up to this length
_WINDOW_SERIES_CAP = 4000  # series length allowed while narrowing a truncation window


# --------------------------------------------------------------------------- helpers


def _n_terms(big_a, big_c, z, digits):
    """Rough number of terms for sum_k prod_{j<k} (A + j) z / (C + j) to reach 10**-digits.

    Uses log-gamma so that the estimate costs O(log n); only an order of magnitude is needed.
    """
    if z <= 0.0:
        return 0
    if z >= 1.0:
        return math.inf
    lz = math.log(z)
    lga = math.lgamma(big_a)
    lgc = math.lgamma(big_c)

    def logterm(k):
        return math.lgamma(big_a + k) - lga - math.lgamma(big_c + k) + lgc + k * lz

    kp = 0 if big_a * z <= big_c else math.ceil((big_a * z - big_c) / (1.0 - z))
    target = logterm(kp) - digits * _LN10

    def done(k):
        r = (big_a + k) * z / (big_c + k)
        rho = max(r, z)  # the ratios are monotone towards z
        if rho >= 1.0:
            return False
        return logterm(k) + math.log(rho / (1.0 - rho)) < target

    hi = 1
    while not done(kp + hi):
        hi *= 2
        if hi > 2**50:
            return math.inf
    lo = hi // 2
    while hi - lo > max(1, hi // 16):
        mid = (lo + hi) // 2
        if done(kp + mid):
            hi = mid
        else:
            lo = mid
    return kp + hi


@lru_cache(maxsize=64)
def _gl_nodes(n, prec):
    """Gauss-Legendre nodes and weights on [-1, 1] at binary precision ``prec``."""
    ctx = _CTX
    out = []
    with ctx.workprec(prec + 20):
        eps = ctx.ldexp(1, -prec - 10)
        for i in range(1, n + 1):
            x = ctx.cos(ctx.pi * (i - ctx.mpf(0.25)) / (n + ctx.mpf(0.5)))
            for _ in range(100):
                p0, p1 = ctx.mpf(1), x
                for k in range(2, n + 1):
                    p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
                dp = n * (x * p1 - p0) / (x * x - 1)
                dx = p1 / dp
                x -= dx
                if abs(dx) < eps:
                    break
            p0, p1 = ctx.mpf(1), x
            for k in range(2, n + 1):
                p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
            dp = n * (x * p1 - p0) / (x * x - 1)
            out.append((x, 2 / ((1 - x * x) * dp * dp)))
    return tuple(out)


def _sing_code(p):
    """0: integer (analytic end), 1: half-integer (sqrt-type end), 2: other."""
    if _CTX.isint(p):
        return 0
    if _CTX.isint(2 * p):
        return 1
    return 2


def _gl_order(digits):
    # error ~ rho^(-2n) with rho >= ~6 on the panels built below
    return max(8, int(math.ceil((digits + 6) / 1.55)))


def _grid_offsets(span):
    """Split offsets (in standard deviations) from a centre: 0, 2, 4, 6, then x1.4."""
    out = [0.0, 2.0, 4.0, 6.0]
    while out[-1] < span:
        out.append(math.ceil(out[-1] * 1.4))
    return out


# --------------------------------------------------------------------------- one component


class _Beta:
    """Beta(a, b) at the precision of ``_CTX`` in force when it was built."""

    def __init__(self, a, b, digits):
        ctx = _CTX
        self.digits = digits
        self.fa, self.fb = float(a), float(b)
        a = ctx.mpf(a)
        b = ctx.mpf(b)
        self.a, self.b = a, b
        n = a + b
        self.mean = a / n
        self.var = a * b / (n * n * (n + 1))
        self.sd = ctx.sqrt(self.var)
        self.logB = ctx.loggamma(a) + ctx.loggamma(b) - ctx.loggamma(n)
        self.am1, self.bm1 = a - 1, b - 1
        # behaviour of the density at the support ends: 0 analytic (integer exponent),
        # 1 square-root type (half-integer exponent), 2 other algebraic singularity
        self.sing0 = _sing_code(a)
        self.sing1 = _sing_code(b)
        self.center = (a - 1) / (n - 2) if (a > 1 and b > 1) else self.mean
        self.tol = ctx.mpf(10) ** (-(digits + 10))
        self.tlo = self._window_end(upper=False)
        self.thi = self._window_end(upper=True)
        self.table = None
        if min(self.fa, self.fb) >= _TAYLOR_MIN:
            self.table = self._build_table()

    # ---- density
    def pdf(self, t):
        ctx = _CTX
        if t <= 0 or t >= 1:
            if t == 0 and self.a <= 1:
                return ctx.inf if self.a < 1 else ctx.exp(-self.logB)
            if t == 1 and self.b <= 1:
                return ctx.inf if self.b < 1 else ctx.exp(-self.logB)
            return ctx.zero
        v = -self.logB
        if self.am1:
            v += self.am1 * ctx.ln(t)
        if self.bm1:
            v += self.bm1 * ctx.ln(1 - t)
        return ctx.exp(v)

    # ---- exact tails by series
    def _series(self, y, upper, kind, maxterms):
        """P(X <= y) (upper=False) or P(X > y) by a hypergeometric series."""
        ctx = _CTX
        if upper:
            a, b, z, zc = self.b, self.a, 1 - y, y
        else:
            a, b, z, zc = self.a, self.b, y, 1 - y
        if kind == "pos":
            # I_z(a, b) = z^a (1-z)^b / (a B) * 2F1(a + b, 1; a + 1; z), positive terms
            s = ctx.hypsum(2, 1, ("R", "R", "R"), [a + b, ctx.one, a + 1], z, maxterms=maxterms)
            logpre = a * ctx.ln(z) + b * ctx.ln(zc) - ctx.ln(a) - self.logB
        else:
            # I_z(a, b) = z^a / (a B) * 2F1(a, 1 - b; a + 1; z), terminating for integer b
            s = ctx.hypsum(2, 1, ("R", "R", "R"), [a, 1 - b, a + 1], z, maxterms=maxterms)
            logpre = a * ctx.ln(z) - ctx.ln(a) - self.logB
        return ctx.exp(logpre) * s

    def _series_plan(self, y):
        """Cheapest series variant at y: (terms, upper, kind)."""
        prefer_upper = y > self.mean
        polys = []
        if self.fb <= 64 and float(self.b).is_integer():
            polys.append((self.fb + 2, False, "poly"))
        if self.fa <= 64 and float(self.a).is_integer():
            polys.append((self.fa + 2, True, "poly"))
        for p in polys:
            if p[1] == prefer_upper:
                return p  # terminating series on the tail's own side: cheap and accurate
        d = self.digits + 12
        plans = polys + [
            (_n_terms(self.fa + self.fb, self.fa + 1, float(y), d), False, "pos"),
            (_n_terms(self.fa + self.fb, self.fb + 1, float(1 - y), d), True, "pos"),
        ]
        return min(plans, key=lambda p: p[0])

    def tail_series(self, y, upper, cap=None):
        """Exact tail by the cheapest series; None if that needs more than ``cap`` terms."""
        n, side, kind = self._series_plan(y)
        if cap is not None and n > cap:
            return None
        maxterms = int(min(max(6000, 2 * n + 100), 10**8))
        try:
            v = self._series(y, side, kind, maxterms)
        except NoConvergence:
            if cap is not None:
                return None
            v = self._tail_quad(y, side)
        return v if side == upper else 1 - v

    def _tail_quad(self, y, upper):
        """Fallback: tail mass by tanh-sinh quadrature of the density."""
        ctx = _CTX
        if upper:
            pts = [y] + [p for p in self._split_points() if p > y] + [ctx.one]
        else:
            pts = [ctx.zero] + [p for p in self._split_points() if p < y] + [y]
        return ctx.quad(self.pdf, pts)

    def _split_points(self):
        offs = _grid_offsets(float((1 - self.center) / self.sd) + 1)
        pts = []
        for g in offs:
            for s in (-1, 1) if g else (1,):
                p = self.center + s * g * self.sd
                if 0 < p < 1:
                    pts.append(p)
        return sorted(pts)

    # ---- truncation window
    def _window_end(self, upper):
        ctx = _CTX
        log_eps = -(self.digits + 3) * ctx.ln(10)
        s = ctx.sqrt(-log_eps / (2 * (self.a + self.b + 1)))  # sub-Gaussian bound
        if upper:
            if self.mean + s >= 1:
                d_ok, edge = 1 - self.mean, ctx.one
            else:
                d_ok, edge = s, None
        else:
            if self.mean - s <= 0:
                d_ok, edge = self.mean, ctx.zero
            else:
                d_ok, edge = s, None
        eps = ctx.exp(log_eps)
        d_bad = min(self.sd, d_ok / 2)
        for _ in range(40):
            if d_ok <= d_bad * 1.05:
                break
            mid = ctx.sqrt(d_ok * d_bad) if d_ok > 4 * d_bad else (d_ok + d_bad) / 2
            t = self.mean + mid if upper else self.mean - mid
            v = self.tail_series(t, upper, cap=_WINDOW_SERIES_CAP)
            if v is not None and v <= eps:
                d_ok, edge = mid, None
            else:
                d_bad = mid
        if edge is not None:
            return edge
        return self.mean + d_ok if upper else self.mean - d_ok

    # ---- Taylor table for large parameters
    def _taylor(self, t0, h_max):
        """Coefficients e_n with int_0^h sd f(t0 + sd u) du = sum_n e_n h^(n+1)."""
        ctx = _CTX
        sd = self.sd
        p0 = t0 * (1 - t0)
        p1 = 1 - 2 * t0
        q0 = self.am1 - (self.a + self.b - 2) * t0
        q1 = -(self.a + self.b - 2)
        d_prev = ctx.zero
        d = sd * self.pdf(t0)
        coefs = [d]
        small = 0
        for n in range(0, 600):
            d_next = ((q0 - p1 * n) * sd * d + (q1 + n - 1) * sd * sd * d_prev) / (p0 * (n + 1))
            d_prev, d = d, d_next
            coefs.append(d)
            if abs(d) * h_max ** (n + 2) < self.tol:
                small += 1
                if small >= 3:
                    break
            else:
                small = 0
        else:
            return None
        return [c / (k + 1) for k, c in enumerate(coefs)]

    def _build_table(self):
        ctx = _CTX
        step = ctx.mpf(_TAYLOR_STEP)
        zlo = (self.tlo - self.mean) / self.sd
        zhi = (self.thi - self.mean) / self.sd
        count = int(ctx.ceil((zhi - zlo) / step))
        if count > 5000:
            return None
        f0 = self.tail_series(self.tlo, False, cap=_WINDOW_SERIES_CAP)
        cum = f0 if f0 is not None else ctx.zero  # <= 10**-(digits+3) anyway
        anchors = []
        for k in range(count + 1):
            z0 = zlo + k * step
            t0 = self.mean + self.sd * z0
            if min(t0, 1 - t0) < 8 * step * self.sd:
                return None
            coefs = self._taylor(t0, step)
            if coefs is None:
                return None
            # shorter polynomial for look-ups, which use |h| <= step / 2
            half = step / 2
            m = len(coefs)
            while m > 1 and abs(coefs[m - 1]) * half**m < self.tol / 100:
                m -= 1
            anchors.append((z0, cum, tuple(reversed(coefs[:m]))))
            cum += ctx.fsum(c * step ** (j + 1) for j, c in enumerate(coefs))
        return zlo, step, anchors

    def _table_cdf(self, y):
        ctx = _CTX
        zlo, step, anchors = self.table
        z = (y - self.mean) / self.sd
        k = int(ctx.floor((z - zlo) / step + ctx.mpf(0.5)))
        if k < 0 or k >= len(anchors):
            return None
        z0, cum, rcoefs = anchors[k]
        h = z - z0
        acc = ctx.zero
        for c in rcoefs:
            acc = acc * h + c
        return cum + acc * h

    # ---- CDF / SF
    def cdf(self, y, fast=True):
        """P(X <= y).  ``fast`` prefers the Taylor table (absolute accuracy only)."""
        if y <= 0:
            return _CTX.zero
        if y >= 1:
            return _CTX.one
        return self._tail(y, False, fast)

    def sf(self, y, fast=True):
        if y <= 0:
            return _CTX.one
        if y >= 1:
            return _CTX.zero
        return self._tail(y, True, fast)

    def _tail(self, y, upper, fast):
        if self.table is not None:
            if not fast:
                v = self.tail_series(y, upper, cap=_SERIES_PREFERRED)
                if v is not None:
                    return v
            v = self._table_cdf(y)
            if v is not None:
                return 1 - v if upper else v
        return self.tail_series(y, upper)


# --------------------------------------------------------------------------- quadrature


@lru_cache(maxsize=32)
def _de_rule(digits, prec):
    """Double-exponential (tanh-sinh) rule on [0, 1] for an end-point singularity at 0.

    Returns (d, weight) with d the distance from the singular end, computed without
    cancellation.  Step h from the error model exp(-pi^2 / (2 h)); the range is wide
    enough for integrands as singular as d^-0.95."""
    ctx = _CTX
    out = []
    with ctx.workprec(prec + 20):
        h = ctx.mpf(4.9) / ((digits + 3) * _LN10)
        tmax = ctx.asinh(20 * (digits + 3) * _LN10 / ctx.pi)
        kmax = int(ctx.ceil(tmax / h))
        for k in range(-kmax, kmax + 1):
            tau = k * h
            y = ctx.pi / 2 * ctx.sinh(tau)
            d = 1 / (1 + ctx.exp(-2 * y))  # (1 + tanh y) / 2
            wt = h * ctx.pi / 4 * ctx.cosh(tau) / ctx.cosh(y) ** 2
            if d <= 0 or d >= 1 or wt == 0:
                continue
            out.append((d, wt))
    return tuple(out)


def _panel_rule(kind, u, v, n_gl, digits):
    """Nodes and weights of one panel: list of (s, weight, extra_digits)."""
    ctx = _CTX
    if kind == "gl":
        m = (u + v) / 2
        h = (v - u) / 2
        return [(m + h * x, h * wt, 0) for x, wt in _gl_nodes(n_gl, ctx.prec)]
    end, direction = (u, 1) if kind.endswith("+") else (v, -1)
    length = v - u
    if kind.startswith("sq"):
        # square-root type end: s = end + direction * length * r^2 is analytic in r
        out = []
        for x, wt in _gl_nodes(n_gl, ctx.prec):
            r = (1 + x) / 2
            out.append((end + direction * length * r * r, length * wt * r, 0))
        return out
    # general algebraic / logarithmic end: double-exponential rule, nodes placed at
    # distance d from the end with enough digits to keep d exact
    out = []
    mag = abs(end)
    work = ctx.dps
    for d, wt in _de_rule(digits, ctx.prec):
        dist = length * d
        extra = max(0, int(ctx.log10(mag / dist)) + 3) if mag else 0
        with ctx.workdps(work + extra):
            out.append((end + direction * dist, length * wt, extra))
    return out


def _integrate(A, B, p, q, points, grids, digits, cache=None):
    """int_p^q A(s) B(s) ds.

    ``points``: (s, code) break points (code 0 kink, 1 square-root type singularity,
    2 other algebraic / logarithmic singularity).  ``grids``: (centre, sd) pairs on whose
    scale the integrand varies (the first one primary); cuts are placed at
    centre +- (0, 2, 4, 6, 9, ...) sd.  Smooth panels use Gauss-Legendre, panels ending in
    a code-1 point Gauss-Legendre after s = end + L r^2, code-2 ends a double-exponential
    rule; panels too close to a singular point are bisected (geometric grading).
    ``cache`` (dict) keeps, per panel, the nodes times A, so that a factor A that does not
    depend on the evaluation point is computed once per panel.
    """
    ctx = _CTX
    scale = min(sd for _, sd in grids)
    close = scale * ctx.mpf(10) ** (-(digits + 6))
    # merge break points closer than 1e-12 scale (e.g. float rounding of x makes
    # x - beta miss an end point by 1e-17); snap them onto p or q when that close
    merge = scale * ctx.mpf(10) ** -12
    merged = []
    for t, code in sorted(points, key=lambda pt: pt[0]):
        if abs(t - p) <= merge:
            t = p
        elif abs(t - q) <= merge:
            t = q
        if merged and abs(t - merged[-1][0]) <= merge:
            merged[-1] = (merged[-1][0], max(code, merged[-1][1]))
        else:
            merged.append((t, code))
    sing = [(t, code) for t, code in merged if code]
    cuts = [p, q] + [t for t, _ in merged if p < t < q]
    fixed = list(cuts)
    c0, sd0 = grids[0]
    for i, (centre, sd) in enumerate(grids):
        span = float(max(abs(p - centre), abs(q - centre)) / sd) + 1
        for g in _grid_offsets(span):
            for sgn in (-1, 1) if g else (1,):
                v = centre + sgn * g * sd
                if not p < v < q:
                    continue
                # grid cuts are helpers only: keep them clear of the fixed points
                if any(abs(v - f) <= sd / 10 for f in fixed):
                    continue
                # secondary grids only where the primary grid's panels are wider than
                # three of their standard deviations
                if i and max(2 * sd0, abs(v - c0) * 0.4) <= 3 * sd:
                    continue
                cuts.append(v)
    cuts.sort()
    panels = [(cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1) if cuts[i + 1] - cuts[i] > close]
    n_gl = _gl_order(digits)

    def code_at(t):
        return max((c for s, c in sing if abs(t - s) <= close), default=0)

    work = ctx.dps
    acc = []
    guard = 0
    while panels:
        u, v = panels.pop()
        guard += 1
        if guard > 20000:
            raise RuntimeError("reference quadrature: too many panels")
        cu, cv = code_at(u), code_at(v)
        m = (u + v) / 2
        h = (v - u) / 2
        near = any(
            abs(s - m) < 3 * h and abs(s - u) > close and abs(s - v) > close for s, _ in sing
        )
        if near or (cu and cv):
            panels.append((u, m))
            panels.append((m, v))
            continue
        if cu:
            kind = ("sq" if cu == 1 else "de") + "+"
        elif cv:
            kind = ("sq" if cv == 1 else "de") + "-"
        else:
            kind = "gl"
        key = (kind, u, v)
        rule = cache.get(key) if cache is not None else None
        if rule is None:
            rule = []
            for s_, wt, extra in _panel_rule(kind, u, v, n_gl, digits):
                if extra:
                    with ctx.workdps(work + extra):
                        rule.append((s_, wt * A(s_), extra))
                else:
                    rule.append((s_, wt * A(s_), 0))
            if cache is not None:
                if len(cache) > 50000:
                    cache.clear()
                cache[key] = rule
        for s_, wa, extra in rule:
            if not wa:
                continue
            if extra:
                with ctx.workdps(work + extra):
                    acc.append(wa * B(s_))
            else:
                acc.append(wa * B(s_))
    return ctx.fsum(acc)


# --------------------------------------------------------------------------- sums


def _combine(b1, b2):
    """Break point of a sum from break points of its two parts.

    Square-root type ends approaching from opposite sides convolve into logarithmic
    singularities, which are left to tanh-sinh (code 2)."""
    v1, c1, s1 = b1
    v2, c2, s2 = b2
    code = max(c1, c2)
    sides = s1 | s2
    if code == 1 and len(sides) == 2:
        code = 2
    return (v1 + v2, code, sides)


class _Sum:
    """T = sum_j w_j X_j with all w_j > 0 (values in "s-space", i.e. already weighted).

    k = 1: the scaled Beta.  k >= 2: T = C + R with C the narrower part, integrated by its
    density against the CDF / density of R:  P(T <= x) = int f_C(s) F_R(x - s) ds.
    k = 2: C, R single components; k = 3: C = the two narrowest, R = the widest;
    k = 4: two and two.
    """

    def __init__(self, comps, weights, digits):
        ctx = _CTX
        self.digits = digits
        self.k = len(comps)
        self.center = ctx.fsum(w * c.mean for c, w in zip(comps, weights, strict=True))
        self.sd = ctx.sqrt(ctx.fsum(w * w * c.var for c, w in zip(comps, weights, strict=True)))
        if self.k == 1:
            c, w = comps[0], weights[0]
            self.c, self.w = c, w
            self.center = w * c.center
            self.lo, self.hi = w * c.tlo, w * c.thi
            # break points (value, code, sides): code as in _sing_code; sides holds the
            # ends ("lo": mass above the point, "hi": below) with square-root behaviour
            self.bps = []
            if c.tlo == 0:
                self.bps.append((ctx.zero, c.sing0, frozenset({"lo"} if c.sing0 == 1 else ())))
            if c.thi == 1:
                self.bps.append((w, c.sing1, frozenset({"hi"} if c.sing1 == 1 else ())))
            return
        order = sorted(range(self.k), key=lambda i: weights[i] * comps[i].sd)
        n_c = self.k // 2 if self.k != 3 else 2
        ic, ir = sorted(order[:n_c]), sorted(order[n_c:])
        self.C = _Sum(tuple(comps[i] for i in ic), tuple(weights[i] for i in ic), digits)
        self.R = _Sum(tuple(comps[i] for i in ir), tuple(weights[i] for i in ir), digits)
        self.lo = self.C.lo + self.R.lo
        self.hi = self.C.hi + self.R.hi
        self.bps = [_combine(bc, br) for bc in self.C.bps for br in self.R.bps]
        self._cache = {}  # panel -> nodes with weight * C.pdf (independent of x)

    def _points(self, x):
        return [(e, code) for e, code, _ in self.C.bps] + [
            (x - f, code) for f, code, _ in self.R.bps
        ]

    def cdf(self, x):
        ctx = _CTX
        if self.k == 1:
            return self.c.cdf(x / self.w)
        if x <= self.lo:
            return ctx.zero
        if x >= self.hi:
            return ctx.one
        C, R = self.C, self.R
        s_a = x - R.hi  # s <= s_a: R <= x - s surely
        s_b = x - R.lo  # s >= s_b: R > x - s surely
        p = max(C.lo, s_a)
        q = min(C.hi, s_b)
        total = ctx.zero
        if s_a > C.lo:
            total += C.cdf(min(s_a, C.hi))
        if p < q:

            def fun(s):
                return R.cdf(x - s)

            grids = [(C.center, C.sd), (x - R.center, R.sd)]
            total += _integrate(C.pdf, fun, p, q, self._points(x), grids, self.digits, self._cache)
        return total

    def pdf(self, x):
        ctx = _CTX
        if self.k == 1:
            return self.c.pdf(x / self.w) / self.w
        if x <= self.lo or x >= self.hi:
            return ctx.zero
        C, R = self.C, self.R
        p = max(C.lo, x - R.hi)
        q = min(C.hi, x - R.lo)
        if p >= q:
            return ctx.zero

        def fun(s):
            return R.pdf(x - s)

        grids = [(C.center, C.sd), (x - R.center, R.sd)]
        return _integrate(C.pdf, fun, p, q, self._points(x), grids, self.digits, self._cache)


# --------------------------------------------------------------------------- set-up


def _normalize(a, b, w):
    a = np.atleast_1d(np.asarray(a, dtype=float))
    b = np.atleast_1d(np.asarray(b, dtype=float))
    w = np.atleast_1d(np.asarray(w, dtype=float))
    if not (a.ndim == b.ndim == w.ndim == 1 and a.size == b.size == w.size >= 1):
        raise ValueError("a, b, w must be 1-d sequences of equal, non-zero length")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b)) and np.all(np.isfinite(w))):
        raise ValueError("a, b, w must be finite")
    if np.any(a <= 0) or np.any(b <= 0):
        raise ValueError("a and b must be > 0")
    if np.any(w == 0):
        raise ValueError("weights must be non-zero")
    if a.size > _MAX_COMPONENTS:
        raise ValueError(
            f"the quadrature reference handles at most {_MAX_COMPONENTS} components; "
            "use mc_sample/mc_cdf for more"
        )
    comps = []
    for ai, bi, wi in zip(a.tolist(), b.tolist(), w.tolist(), strict=True):
        if wi > 0:
            comps.append((ai, bi, wi))
        else:  # w X = w + |w| (1 - X),  1 - X ~ Beta(b, a)
            comps.append((bi, ai, -wi))
    shift = tuple(wi for wi in w.tolist() if wi < 0)
    return tuple(comps), shift


def _work_dps(dps, comps):
    big = max(ai + bi for ai, bi, _ in comps)
    return int(dps) + 12 + int(math.ceil(math.log10(big + 1)))


@lru_cache(maxsize=256)
def _beta(a, b, digits, work):
    with _CTX.workdps(work):
        return _Beta(a, b, digits)


@lru_cache(maxsize=128)
def _model(comps, digits, work):
    with _CTX.workdps(work):
        betas = tuple(_beta(ai, bi, digits, work) for ai, bi, _ in comps)
        weights = tuple(_CTX.mpf(wi) for _, _, wi in comps)
        return _Sum(betas, weights, digits)


class _Problem:
    """Normalised problem: S = shift + sum(|w| X'),  used inside ``_CTX.workdps(work)``."""

    def __init__(self, a, b, w, dps):
        comps, shift = _normalize(a, b, w)
        self.digits = min(int(dps), _DIGITS_CAP[len(comps)])
        self.work = _work_dps(self.digits, comps)
        self.comps = comps
        self._shift = shift
        self.k = len(comps)

    def __enter__(self):
        self._cm = _CTX.workdps(self.work)
        self._cm.__enter__()
        ctx = _CTX
        self.model = _model(self.comps, self.digits, self.work)
        self.shift = ctx.fsum(ctx.mpf(s) for s in self._shift)
        betas = [_beta(ai, bi, self.digits, self.work) for ai, bi, _ in self.comps]
        ws = [ctx.mpf(wi) for _, _, wi in self.comps]
        self.mean_t = ctx.fsum(wi * bt.mean for wi, bt in zip(ws, betas, strict=True))
        self.var = ctx.fsum(wi * wi * bt.var for wi, bt in zip(ws, betas, strict=True))
        self.sd = ctx.sqrt(self.var)
        return self

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)

    # values of the shifted sum T = S - shift
    def cdf(self, t, fast=True):
        m = self.model
        if self.k == 1:
            return m.c.cdf(t / m.w, fast=fast)
        return m.cdf(t)

    def sf(self, t):
        m = self.model
        if self.k == 1:
            return m.c.sf(t / m.w, fast=False)
        return 1 - m.cdf(t)

    def pdf(self, t):
        return self.model.pdf(t)

    def support(self):
        """Bracket (in T units) outside which the CDF is exactly 0 / 1 here."""
        m = self.model
        if self.k == 1:
            return _CTX.zero, m.w
        return m.lo, m.hi


# --------------------------------------------------------------------------- public API


def ref_cdf(x, a, b, w, dps=30):
    """P(sum_i w_i X_i <= x) for 1 to 4 components, X_i ~ Beta(a_i, b_i)."""
    with _Problem(a, b, w, dps) as pr:
        return float(pr.cdf(_CTX.mpf(x) - pr.shift, fast=False))


def ref_sf(x, a, b, w, dps=30):
    """P(sum_i w_i X_i > x), computed on the reflected sum (accurate upper tails)."""
    wneg = [-float(wi) for wi in np.atleast_1d(np.asarray(w, dtype=float))]
    return ref_cdf(-float(x), a, b, wneg, dps=dps)


def ref_pdf(x, a, b, w, dps=30):
    """Density of sum_i w_i X_i at x (1 to 4 components)."""
    with _Problem(a, b, w, dps) as pr:
        return float(pr.pdf(_CTX.mpf(x) - pr.shift))


def ref_mean_var(a, b, w, dps=30):
    """Exact (mean, variance) of sum_i w_i X_i; any number of components."""
    a = np.atleast_1d(np.asarray(a, dtype=float)).tolist()
    b = np.atleast_1d(np.asarray(b, dtype=float)).tolist()
    w = np.atleast_1d(np.asarray(w, dtype=float)).tolist()
    ctx = _CTX
    with ctx.workdps(dps + 10):
        mean = ctx.zero
        var = ctx.zero
        for ai, bi, wi in zip(a, b, w, strict=True):
            ai, bi, wi = ctx.mpf(ai), ctx.mpf(bi), ctx.mpf(wi)
            n = ai + bi
            mean += wi * ai / n
            var += wi * wi * ai * bi / (n * n * (n + 1))
        return float(mean), float(var)


def _solve_increasing(fun, deriv, target, lo, hi, z0, tol):
    """Root of fun(z) = target on [lo, hi] (fun increasing), safeguarded Newton."""
    ctx = _CTX
    z = min(max(z0, lo + (hi - lo) / 1024), hi - (hi - lo) / 1024)
    prev_r = None
    for _ in range(200):
        r = fun(z) - target
        if r == 0:
            return z
        if r < 0:
            lo = z
        else:
            hi = z
        step = None
        if deriv is not None and (prev_r is None or abs(r) < abs(prev_r) / 2):
            d = deriv(z)
            if d > 0 and ctx.isfinite(d):
                step = -r / d
        prev_r = r
        if step is not None and lo < z + step < hi:
            if abs(step) < tol:
                return z + step
            z = z + step
        else:
            z = (lo + hi) / 2
            prev_r = None
        if hi - lo < tol:
            return (lo + hi) / 2
    raise RuntimeError("ref_ppf: no convergence")


def ref_ppf(q, a, b, w, dps=30):
    """Quantile: x with ref_cdf(x) = q.

    Safeguarded Newton in standard-deviation units, stopped when the step is below 1e-15 sd;
    the result is as accurate as ref_cdf allows (~1e-13 sd for 3-4 components)."""
    ctx = _CTX
    with _Problem(a, b, w, dps) as pr:
        q = ctx.mpf(q)
        if not 0 < q < 1:
            raise ValueError("q must be in (0, 1)")
        lo, hi = pr.support()
        m, s = pr.mean_t, pr.sd
        zlo, zhi = (lo - m) / s, (hi - m) / s
        z0 = ctx.sqrt(2) * ctx.erfinv(2 * q - 1)

        def fun(z):
            return pr.cdf(m + s * z, fast=False)

        def deriv(z):
            return s * pr.pdf(m + s * z)

        z = _solve_increasing(fun, deriv, q, zlo, zhi, z0, ctx.mpf(10) ** -15)
        return float(pr.shift + m + s * z)


def _illinois(slope, zl, zr, dl, dr, tol):
    """Sign change of ``slope`` in [zl, zr] (dl > 0 > dr), Illinois variant of regula falsi."""
    side = 0
    for _ in range(200):
        z = (zl * dr - zr * dl) / (dr - dl)
        if not zl < z < zr:
            z = (zl + zr) / 2
        dz = slope(z)
        if dz > 0:
            zl, dl = z, dz
            if side == -1:
                dr /= 2
            side = -1
        elif dz < 0:
            zr, dr = z, dz
            if side == 1:
                dl /= 2
            side = 1
        else:
            return z
        if zr - zl < tol:
            break
    return (zl + zr) / 2


def ref_mode(a, b, w, dps=30):
    """Argmax of the density, to ~1e-8 standard deviations.

    1 component: closed form.  2-4 components: root of a central difference of ref_pdf,
    bracketed by the Johnson-Rogers bound |mode - mean| <= sqrt(3) sd (unimodal densities),
    with a grid search as fallback.  Flat tops (density constant to working precision, e.g.
    an empty class (uniform) plus a near point mass) return the kink of the sum inside the
    plateau, where the supremum is attained.
    """
    ctx = _CTX
    with _Problem(a, b, w, dps) as pr:
        if pr.k == 1:
            (ai, bi, wi) = pr.comps[0]
            c = pr.model.c
            if ai > 1 and bi > 1:
                t = c.center
            elif ai <= 1 < bi or (ai < 1 and bi == 1):
                t = ctx.zero
            elif bi <= 1 < ai or (bi < 1 and ai == 1):
                t = ctx.one
            else:
                raise ValueError("mode undefined for this Beta (uniform or U-shaped)")
            return float(pr.shift + ctx.mpf(wi) * t)
        m, s = pr.mean_t, pr.sd
        lo, hi = pr.support()
        zlo, zhi = (lo - m) / s, (hi - m) / s
        h = ctx.mpf(10) ** -4
        tol = ctx.mpf(10) ** -9
        flat_rel = 1 - ctx.mpf(10) ** -(pr.digits - 4)

        def dens(z):
            return pr.pdf(m + s * z)

        def slope(z):
            return dens(z + h) - dens(z - h)

        def result(z):
            return float(pr.shift + m + s * z)

        zl = max(ctx.mpf(-1.75), zlo + 2 * h)
        zr = min(ctx.mpf(1.75), zhi - 2 * h)
        dl, dr = slope(zl), slope(zr)
        if dl > 0 > dr:
            z = _illinois(slope, zl, zr, dl, dr, tol)
            d0 = dens(z)
            side = [dens(zz) for zz in (z - ctx.mpf(0.25), z + ctx.mpf(0.25)) if zlo < zz < zhi]
            if not side or max(side) < d0 * flat_rel:
                return result(z)
        # grid search (also detects flat tops)
        grid = ctx.linspace(max(zlo + 2 * h, -8), min(zhi - 2 * h, 8), 81)
        vals = [dens(z) for z in grid]
        i = max(range(len(vals)), key=lambda j: vals[j])
        flat = vals[i] * flat_rel
        tied = [j for j, v in enumerate(vals) if v >= flat]
        if len(tied) > 1:
            zl_ = grid[max(tied[0] - 1, 0)]
            zr_ = grid[min(tied[-1] + 1, len(grid) - 1)]
            best = None
            for e, _, _ in pr.model.bps:
                ze = (e - m) / s
                if zl_ <= ze <= zr_:
                    de = max(dens(ze - h / 100), dens(ze + h / 100))
                    if de >= flat and (best is None or de > best[0]):
                        best = (de, ze)
            return result(best[1] if best is not None else (grid[tied[0]] + grid[tied[-1]]) / 2)
        if i == 0 or i == len(vals) - 1:
            return result(grid[i])
        zl, zr = grid[i - 1], grid[i + 1]
        dl, dr = slope(zl), slope(zr)
        if not (dl > 0 > dr):
            return result(grid[i])
        return result(_illinois(slope, zl, zr, dl, dr, tol))


# --------------------------------------------------------------------------- Monte Carlo


def mc_sample(a, b, w, n, seed):
    """n Monte Carlo draws of sum_i w_i X_i (any number of components), float64."""
    rng = np.random.default_rng(seed)
    a = np.atleast_1d(np.asarray(a, dtype=float))
    b = np.atleast_1d(np.asarray(b, dtype=float))
    w = np.atleast_1d(np.asarray(w, dtype=float))
    n = int(n)
    out = np.zeros(n)
    for ai, bi, wi in zip(a, b, w, strict=True):
        out += wi * rng.beta(ai, bi, size=n)
    return out


def mc_cdf(x, draws):
    """Empirical P(S <= x) and its binomial standard error.

    The standard error uses p~ = (k + 1/2) / (n + 1) so that it is never exactly zero.
    Scalar x gives floats, array x gives arrays.
    """
    d = np.sort(np.asarray(draws, dtype=float))
    n = d.size
    xs = np.asarray(x, dtype=float)
    k = np.searchsorted(d, xs, side="right")
    p = k / n
    pt = (k + 0.5) / (n + 1)
    se = np.sqrt(pt * (1 - pt) / n)
    if np.ndim(xs) == 0:
        return float(p), float(se)
    return p, se
