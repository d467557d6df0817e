"""Comparing and ranking classifiers across data sets: bacc against a Monte Carlo run of the
same model.

Design: 30 data sets of 20 to 20 000 examples (geometric sizes) with 2-4 classes, a
difficulty per data set, a population effect per classifier and a classifier-by-data-set
interaction (sd 0.02); every classifier predicts the same examples (a shared difficulty per
example makes them correlated). Two inputs of the same predictions: one confusion matrix per
classifier and data set (independent test sets), and the label sequences with ``groups=``
(paired).

Ours: ``bacc.compare_across`` (2 classifiers; target < 0.5 s) and ``bacc.rank_across``
(10 classifiers, its default 200 000 draws for P(best); target < 5 s), the fastest of 3 calls.

Baseline (written here, run in this process): the same model, the normal-normal random-effects
model on each data set's sample balanced accuracies with the exact posterior covariance of the
balanced accuracies (flat prior on the contrasts ``phi``, half-normal prior of scale 0.1 on ``tau``, ``tau <= 1``),
sampled by Markov chain Monte Carlo: the data sets' moments from the counts (this file's own
numpy), then a random-walk Metropolis sampler on ``tau`` (reflected at 0) against the marginal
likelihood of ``tau`` with ``phi`` integrated out, and ``phi`` drawn from its conditional normal
at every step (a collapsed sampler: no Gibbs step on ``phi`` or the data sets' effects, so no
funnel near ``tau = 0``). ``K`` independent chains run side by side, vectorised, each with
300 steps of burn-in (the step tuned to 2.4 posterior sds of ``tau``); then rounds of steps
until the Monte Carlo error of every reported probability, the sd of the chains' means over
sqrt(K), is at most ``--mc-error`` (1e-3). The probabilities are plain Monte Carlo averages
of indicators (P(A better) = the share of draws with ``theta_A > theta_B``), as a sampler
gives them. Its time includes the moments and every step; ratio = baseline / bacc.

A third answer for two classifiers: the same posterior on a dense grid of 400 001 values of
``tau`` (this file's likelihood, untimed), which bacc's adaptive rule should match to ~1e-10.

Agreement: bacc's exact probabilities (P(A better), p_left, p_rope, p_right; for the ranking
every pairwise ``P(s better than t by more than the rope)`` and the expected ranks) against the
sampler's, in units of the sampler's Monte Carlo error (|z| <= 4 over the 90 pairs of the
ranking, <= 3 for one probability).

Run:  python benchmarks/bench_across_speed.py [--quick]

``--quick``: the baseline with 300 chains, 100 burn-in steps, to a Monte Carlo error of 5e-3,
and one call of each bacc function.
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import Stopwatch, fastest, machine
from scipy.special import ndtr

import bacc

ROPE = 0.01
TAU_SCALE = 0.1


# ------------------------------------------------------------------------------ the design
def design(T: int, m: int = 30, seed: int = 0):
    """``m`` data sets, ``T`` classifiers predicting the same examples. Returns (y_true,
    predictions {name: labels}, groups, per-data-set [(y, {name: pred})])."""
    rng = np.random.default_rng(seed)
    sizes = np.round(np.geomspace(20, 20000, m)).astype(int)
    rng.shuffle(sizes)
    effect = rng.normal(0.0, 0.02, T)
    effect[:2] = (0.01, 0.0)  # A ahead of B by one point in the population
    names = [f"c{t}" for t in range(T)] if T > 2 else ["A", "B"]
    per = []
    for j, n in enumerate(sizes):
        classes = int(rng.integers(2, 5))
        y = rng.permutation(np.arange(n) % classes)
        base = rng.uniform(0.65, 0.9)
        inter = rng.normal(0.0, 0.02, T)
        hard = rng.random(n)
        preds = {}
        for t, name in enumerate(names):
            p_class = np.clip(base + effect[t] + inter[t] + rng.normal(0, 0.03, classes), 0.05, 0.97)
            p = np.clip(p_class[y] + 0.3 * (hard - 0.5), 0.0, 1.0)
            right = rng.random(n) < p
            preds[name] = np.where(right, y, (y + rng.integers(1, classes, n)) % classes)
        per.append((f"d{j:02d}", y, preds))
    y_true = np.concatenate([y for _, y, _ in per])
    groups = np.concatenate([np.full(y.size, name) for name, y, _ in per])
    predictions = {c: np.concatenate([p[c] for _, _, p in per]) for c in names}
    return names, y_true, predictions, groups, per


def confusion(y: np.ndarray, pred: np.ndarray, classes: int) -> np.ndarray:
    return np.bincount(y * classes + pred, minlength=classes * classes).reshape(classes, classes)


def matrices(names, per) -> dict:
    """{classifier: {data set: confusion matrix (rows true)}}."""
    out = {c: {} for c in names}
    for d, y, preds in per:
        classes = int(y.max()) + 1
        for c in names:
            out[c][d] = confusion(y, preds[c], classes)
    return out


# ---------------------------------------------------------------- the baseline's own moments
def moments_independent(names, mats) -> tuple[np.ndarray, np.ndarray]:
    """Each data set's sample balanced accuracies and the (diagonal) posterior covariance of
    the balanced accuracies: independent Beta(k + 1, n - k + 1) class accuracies, equal class
    weights."""
    sets = list(mats[names[0]])
    T = len(names)
    y = np.empty((len(sets), T))
    S = np.zeros((len(sets), T, T))
    for j, d in enumerate(sets):
        for t, c in enumerate(names):
            cm = np.asarray(mats[c][d], dtype=float)
            n, k = cm.sum(axis=1), np.diag(cm)
            w = 1.0 / n.size
            a, b = k + 1.0, n - k + 1.0
            s = a + b
            y[j, t] = np.sum(w * k / n)
            S[j, t, t] = np.sum(w * w * a * b / (s * s * (s + 1.0)))
    return y, S


def moments_paired(names, y_true, predictions, groups) -> tuple[np.ndarray, np.ndarray]:
    """The same from the label sequences, with the covariances of the paired posterior: per
    class a Dirichlet over the 2^T patterns of right and wrong (1/2^(T-1) each a priori), whose
    moments need only each classifier's right answers and each pair's both-right counts."""
    sets, gidx = np.unique(groups, return_inverse=True)
    right = np.column_stack([np.asarray(predictions[c]) == y_true for c in names]).astype(float)
    T = len(names)
    y = np.empty((sets.size, T))
    S = np.empty((sets.size, T, T))
    for j in range(sets.size):
        sel = gidx == j
        yt, r = y_true[sel], right[sel]
        classes = np.unique(yt)
        w = 1.0 / classes.size
        mean, cov = np.zeros(T), np.zeros((T, T))
        for cl in classes:
            rc = r[yt == cl]
            n = rc.shape[0]
            k = rc.sum(axis=0)
            both = rc.T @ rc + 0.5
            a0, a = n + 2.0, k + 1.0
            np.fill_diagonal(both, a)
            mean += w * k / n
            cov += w * w * (both * a0 - np.outer(a, a)) / (a0 * a0 * (a0 + 1.0))
        y[j], S[j] = mean, cov
    return y, S


# ------------------------------------------------------------------------- the MCMC sampler
class Collapsed:
    """The marginal posterior of ``tau`` (``phi`` integrated out) and the conditional normal
    of ``phi``, for many values of ``tau`` at once (one per chain)."""

    def __init__(self, y: np.ndarray, S: np.ndarray):
        m, T = y.shape
        # an orthonormal basis of the contrasts: the centring matrix's leading singular vectors
        u, _, _ = np.linalg.svd(np.eye(T) - 1.0 / T)
        self.C = u[:, : T - 1].T  # (d, T)
        d = T - 1
        z = y @ self.C.T
        Sc = np.einsum("ai,jik,bk->jab", self.C, S, self.C)
        lam, Q = np.linalg.eigh(0.5 * (Sc + np.swapaxes(Sc, 1, 2)))  # (m, d), (m, d, d)
        r = np.einsum("jab,ja->jb", Q, z)  # z_j in each data set's eigenbasis
        q = np.swapaxes(Q, 1, 2).reshape(m * d, d)  # rows: eigenvectors q_ja
        self.lam = lam.reshape(m * d)
        self.outer = np.einsum("ia,ib->iab", q, q).reshape(m * d, d * d)
        self.rq = r.reshape(m * d, 1) * q
        self.r2 = r.reshape(m * d) ** 2
        self.d = d

    def terms(self, tau: np.ndarray):
        """Log posterior of ``tau`` (up to a constant) and the Cholesky factor and mean of
        ``phi | tau`` (precision ``P = sum_j V_j^-1``, ``V_j = C S_j C' + tau^2 I``)."""
        K, d = tau.size, self.d
        w = 1.0 / (self.lam[None, :] + (tau * tau)[:, None])  # eigenvalues of the V_j^-1
        P = (w @ self.outer).reshape(K, d, d)
        b = w @ self.rq
        L = np.linalg.cholesky(P)
        mean = np.linalg.solve(P, b[..., None])[..., 0]
        logdet_p = 2.0 * np.sum(np.log(np.diagonal(L, axis1=1, axis2=2)), axis=1)
        quad = w @ self.r2 - np.einsum("ka,ka->k", b, mean)
        lp = -0.5 * (-np.sum(np.log(w), axis=1) + logdet_p + quad) - 0.5 * (tau / TAU_SCALE) ** 2
        return np.where(tau <= 1.0, lp, -np.inf), L, mean

    def draw_phi(self, L: np.ndarray, mean: np.ndarray, rng) -> np.ndarray:
        eps = rng.standard_normal(mean.shape)
        return mean + np.linalg.solve(np.swapaxes(L, 1, 2), eps[..., None])[..., 0]


def mcmc(y: np.ndarray, S: np.ndarray, stats_of, target: float, chains: int = 1000,
         burn: int = 300, block: int = 100, most: int = 50_000, seed: int = 1):
    """Run ``chains`` chains until every statistic's Monte Carlo error is <= ``target``.

    ``stats_of(theta)`` maps draws of the centred effects (K, T) to indicators (K, q). Returns
    (estimates (q,), Monte Carlo errors (q,), steps per chain, acceptance rate)."""
    rng = np.random.default_rng(seed)
    model = Collapsed(y, S)
    tau = np.abs(rng.normal(0.0, 0.05, chains))
    lp, L, mean = model.terms(tau)
    step = 0.02
    accepted = proposed = 0
    for b in range(burn):
        prop = np.abs(tau + step * rng.standard_normal(chains))
        lp2, L2, mean2 = model.terms(prop)
        ok = np.log(rng.random(chains)) < lp2 - lp
        tau, lp = np.where(ok, prop, tau), np.where(ok, lp2, lp)
        L[ok], mean[ok] = L2[ok], mean2[ok]
        if (b + 1) % 50 == 0:  # tune: 2.4 sds of tau over the chains
            step = max(2.4 * float(np.std(tau)), 1e-6)
    sums = None
    steps = 0
    while True:
        for _ in range(block):
            prop = np.abs(tau + step * rng.standard_normal(chains))
            lp2, L2, mean2 = model.terms(prop)
            ok = np.log(rng.random(chains)) < lp2 - lp
            tau, lp = np.where(ok, prop, tau), np.where(ok, lp2, lp)
            L[ok], mean[ok] = L2[ok], mean2[ok]
            accepted += int(ok.sum())
            proposed += chains
            theta = model.draw_phi(L, mean, rng) @ model.C
            s = stats_of(theta)
            sums = s if sums is None else sums + s
        steps += block
        per_chain = sums / steps
        err = per_chain.std(axis=0, ddof=1) / np.sqrt(chains)
        if err.max() <= target or steps >= most:
            return per_chain.mean(axis=0), err, steps, accepted / proposed


def grid(y: np.ndarray, S: np.ndarray, nodes: int = 400_001) -> np.ndarray:
    """A third answer for two classifiers: the same posterior on a dense uniform grid of
    ``tau`` in [0, 1] (Riemann sum), with this file's likelihood. (P(A better), p_left, p_rope,
    p_right)."""
    model = Collapsed(y, S)
    g = (model.C[:, 0] - model.C[:, 1])[0]
    lps, mus, sds = [], [], []
    for part in np.array_split(np.linspace(0.0, 1.0, nodes), 40):
        lp, L, mean = model.terms(part)
        lps.append(lp)
        mus.append(g * mean[:, 0])
        sds.append(abs(g) / L[:, 0, 0])
    lp, mu, sd = np.concatenate(lps), np.concatenate(mus), np.concatenate(sds)
    w = np.exp(lp - lp.max())
    w /= w.sum()
    left = np.sum(w * ndtr((-ROPE - mu) / sd))
    right = np.sum(w * ndtr((mu - ROPE) / sd))
    return np.array([np.sum(w * ndtr(mu / sd)), left, 1.0 - left - right, right])


def pair_stats(theta: np.ndarray) -> np.ndarray:
    d = theta[:, 0] - theta[:, 1]
    return np.column_stack([d > 0, d < -ROPE, np.abs(d) <= ROPE, d > ROPE]).astype(float)


def rank_stats(theta: np.ndarray) -> np.ndarray:
    """Every ``[s, t]``: theta_s - theta_t > rope, then theta_s > theta_t, then s is best."""
    T = theta.shape[1]
    diff = theta[:, :, None] - theta[:, None, :]
    best = np.argmax(theta, axis=1)
    return np.concatenate([(diff > ROPE).reshape(-1, T * T), (diff > 0).reshape(-1, T * T),
                           np.eye(T)[best]], axis=1).astype(float)


# -------------------------------------------------------------------------------- the runs
def fmt_s(x: float) -> str:
    return f"{x * 1000:.0f} ms" if x < 1 else f"{x:.2f} s"


def run_pair(label, fn_bacc, moments, target, repeat, rows, seed, mc):
    res = fn_bacc()
    wall, cpu = fastest(fn_bacc, repeat=repeat)
    with Stopwatch() as sw:
        y, S = moments()
        est, err, steps, acc = mcmc(y, S, pair_stats, target, seed=seed, **mc)
    ours = np.array([res.p_better, res.p_left, res.p_rope, res.p_right])
    z = np.abs(ours - est) / np.maximum(err, 1.0 / (steps * mc["chains"]))
    rows.append((label, wall, cpu, sw.wall, sw.cpu, steps, acc, float(err.max()), float(z.max())))
    print(f"  {label}: bacc P(A better) {res.p_better:.5f}, (p_left, p_rope, p_right) = "
          f"({res.p_left:.5f}, {res.p_rope:.5f}, {res.p_right:.5f})")
    g = grid(y, S)
    print(f"  {' ' * len(label)}  grid P(A better) {g[0]:.5f}, ({g[1]:.5f}, {g[2]:.5f}, {g[3]:.5f}),"
          f" max |bacc - grid| {np.abs(ours - g).max():.1e}")
    print(f"  {' ' * len(label)}  MCMC P(A better) {est[0]:.5f}, ({est[1]:.5f}, {est[2]:.5f}, "
          f"{est[3]:.5f}), MC error {err.max():.1e}, max |z| {z.max():.2f}")


def run_rank(label, fn_bacc, moments, target, repeat, rows, T, seed, mc):
    res = fn_bacc()
    wall, cpu = fastest(fn_bacc, repeat=repeat)
    with Stopwatch() as sw:
        y, S = moments()
        est, err, steps, acc = mcmc(y, S, rank_stats, target, seed=seed, **mc)
    gt_mc, strict_mc, best_mc = est[:T * T], est[T * T:2 * T * T], est[2 * T * T:]
    gt_err, best_err = err[:T * T], err[2 * T * T:]
    off = ~np.eye(T, dtype=bool).reshape(-1)
    # a pair the draws never (or always) saw has a sample sd of 0: floor the error at one draw
    floor = 1.0 / (steps * mc["chains"])
    z = np.abs(np.asarray(res.p_greater).reshape(-1) - gt_mc)[off] / np.maximum(gt_err[off], floor)
    rank_mc = 1.0 + strict_mc.reshape(T, T).sum(axis=0)
    z_best = np.abs(res.p_best - best_mc) / np.sqrt(best_err**2 + res.mc_error**2)
    rows.append((label, wall, cpu, sw.wall, sw.cpu, steps, acc, float(gt_err[off].max()),
                 float(z.max())))
    print(f"  {label}: pairwise P(s better than t by > {ROPE:g}): max |bacc - MCMC| "
          f"{np.abs(np.asarray(res.p_greater).reshape(-1) - gt_mc)[off].max():.4f}, max |z| "
          f"{z.max():.2f} over {int(off.sum())} pairs; expected ranks max |bacc - MCMC| "
          f"{np.abs(res.expected_rank - rank_mc).max():.4f}; P(best) max |z| {z_best.max():.2f}"
          f" (bacc's own draws: mc_error {res.mc_error:.1e})")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true",
                    help="a short baseline (5e-3), one call of each bacc function")
    ap.add_argument("--mc-error", type=float, default=None,
                    help="Monte Carlo error the baseline runs to (default 1e-3)")
    args = ap.parse_args(argv)
    target = args.mc_error or (5e-3 if args.quick else 1e-3)
    repeat = 1 if args.quick else 3
    mc = ({"chains": 300, "burn": 100, "block": 50} if args.quick
          else {"chains": 1000, "burn": 300, "block": 100})
    print(machine("numpy", "scipy", "bacc"))
    rows: list = []

    names, y_true, preds, groups, per = design(2)
    mats = matrices(names, per)
    sizes = [y.size for _, y, _ in per]
    print(f"30 data sets of {min(sizes)}-{max(sizes)} examples ({sum(sizes)} in all), 2-4 classes;"
          f" baseline to a Monte Carlo error of {target:g}")
    print("two classifiers, compare_across:")
    run_pair("independent", lambda: bacc.compare_across(mats["A"], mats["B"], names=("A", "B")),
             lambda: moments_independent(names, mats), target, repeat, rows, seed=1, mc=mc)
    run_pair("paired     ", lambda: bacc.compare_across(y_true, preds, groups=groups),
             lambda: moments_paired(names, y_true, preds, groups), target, repeat, rows, seed=2, mc=mc)

    T = 10
    names, y_true, preds, groups, per = design(T, seed=1)
    mats = matrices(names, per)
    print("ten classifiers, rank_across:")
    run_rank("independent", lambda: bacc.rank_across(mats),
             lambda: moments_independent(names, mats), target, repeat, rows, T, seed=3, mc=mc)
    run_rank("paired     ", lambda: bacc.rank_across(y_true, preds, groups=groups),
             lambda: moments_paired(names, y_true, preds, groups), target, repeat, rows, T, seed=4, mc=mc)

    print()
    print(f"bacc: fastest of {repeat} call(s); MCMC: one run ({mc['chains']} chains, {mc['burn']} "
          "burn-in steps each, then until the MC error is met); ratio = MCMC / bacc (wall)")
    head = (f"{'call':<28}{'bacc wall':>10}{'bacc CPU':>10}{'MCMC wall':>11}{'MCMC CPU':>10}"
            f"{'ratio':>8}{'steps':>7}{'accept':>8}{'MC err':>8}{'max|z|':>8}")
    print(head)
    labels = ["compare_across independent", "compare_across paired", "rank_across independent",
              "rank_across paired"]
    for lab, (_, w, c, mw, mc, steps, acc, err, z) in zip(labels, rows, strict=True):
        print(f"{lab:<28}{fmt_s(w):>10}{fmt_s(c):>10}{fmt_s(mw):>11}{fmt_s(mc):>10}"
              f"{mw / w:>8.1f}{steps:>7}{acc:>8.2f}{err:>8.1e}{z:>8.2f}")
    targets = [0.5, 0.5, 5.0, 5.0]
    print("targets: " + "; ".join(
        f"{lab} < {t:g} s: wall {'met' if r[1] < t else 'MISSED'}, CPU "
        f"{'met' if r[2] < t else 'MISSED'}" for lab, t, r in zip(labels, targets, rows, strict=True)))


if __name__ == "__main__":
    main()
