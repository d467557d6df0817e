"""Benchmark: bacc.comparison against the papers' Metropolis-Hastings comparison.

Baseline (Carrillo et al. (2014), section 4.5, the MATLAB toolbox's recipe, run in this process): for each
classifier, sample every class's Beta posterior density on a fixed grid of step 0.001 over
[0, l], multiply the FFTs to get the density of sum_i theta_i (Carrillo et al. (2014), eq. 13), rescale to
lambda = sum_i theta_i / l, then draw 5 000 values of lambda_A and of lambda_B by random-walk
Metropolis-Hastings on the interpolated density (500 burn-in steps, Gaussian proposal of
2.4 posterior standard deviations) and report the fraction of draws with lambda_A > lambda_B.

Ours: ``compare(a, b)`` (the whole result: P(A > B), the central 95% interval and median of
delta), deterministic. Both are timed in the same process; the ratio is baseline / ours.
Spread: standard deviation of P(A > B) over 20 seeds of the baseline, and over 20 repeated
runs of ours.

Run:  python benchmarks/bench_compare.py [--quick] [--out FILE]

``--quick`` leaves out the 1000-class case; ``--out`` also writes the Markdown table to FILE.
"""

from __future__ import annotations

import argparse
import math
import platform
import random
import sys

import numpy as np
import scipy
from _timing import once, timed
from scipy import fft as sfft
from scipy import special as sc

from bacc.comparison import compare, compare_paired
from bacc.distributions import BetaSum

GRID_STEP = 0.001
N_DRAWS = 5000
BURN_IN = 500


# ---------------------------------------------------------------------------------------------
# baseline
def toolbox_density(cm):
    """Density of lambda on the toolbox's fixed grid: Beta densities sampled at step 0.001 on
    [0, 1] for each class, convolved by FFT over [0, l], rescaled by 1/l."""
    cm = np.asarray(cm)
    k = np.diag(cm).astype(float)
    n = cm.sum(axis=1).astype(float)
    a, b = k + 1.0, n - k + 1.0
    l = len(a)
    m = int(round(1.0 / GRID_STEP)) + 1
    t = np.linspace(0.0, 1.0, m)
    size = sfft.next_fast_len(l * (m - 1) + 1, real=True)
    acc = None
    for ai, bi in zip(a, b, strict=True):
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.exp(sc.xlogy(ai - 1, t) + sc.xlog1py(bi - 1, -t) - sc.betaln(ai, bi))
        f = np.nan_to_num(f, nan=0.0, posinf=0.0) * GRID_STEP
        F = sfft.rfft(f, size)
        acc = F if acc is None else acc * F
    dens = np.maximum(sfft.irfft(acc, size)[: l * (m - 1) + 1], 0.0)
    x = np.arange(dens.size) * GRID_STEP / l  # lambda = sum / l
    dens = dens / (dens.sum() * (x[1] - x[0]))
    mean = float(np.sum(x * dens) * (x[1] - x[0]))
    sd = math.sqrt(float(np.sum((x - mean) ** 2 * dens) * (x[1] - x[0])))
    return x, dens, mean, sd


def mh_draws(x, dens, mean, sd, n, seed):
    """Random-walk Metropolis-Hastings on the interpolated grid density."""
    rng = random.Random(seed)
    logd = np.log(np.maximum(dens, 1e-300)).tolist()
    x0, dx, last = float(x[0]), float(x[1] - x[0]), len(logd) - 1

    def logp(v):
        u = (v - x0) / dx
        if u < 0 or u > last:
            return -math.inf
        i = min(int(u), last - 1)
        f = u - i
        return logd[i] * (1 - f) + logd[i + 1] * f

    cur, lp = mean, logp(mean)
    step = 2.4 * sd
    out = []
    for it in range(n + BURN_IN):
        prop = cur + rng.gauss(0.0, step)
        lq = logp(prop)
        if lq >= lp or rng.random() < math.exp(lq - lp):
            cur, lp = prop, lq
        if it >= BURN_IN:
            out.append(cur)
    return np.array(out)


def baseline_p_better(grid_a, grid_b, seed):
    da = mh_draws(*grid_a, N_DRAWS, 2 * seed)
    db = mh_draws(*grid_b, N_DRAWS, 2 * seed + 1)
    return float(np.mean(da > db))


# ---------------------------------------------------------------------------------------------
def make_pair(l, seed, n_per_class):
    rng = np.random.default_rng(seed)
    acc_a = rng.uniform(0.6, 0.9, size=l)
    acc_b = np.clip(acc_a + rng.normal(0.0, 0.03, size=l), 0.05, 0.98)
    mats = []
    for acc in (acc_a, acc_b):
        n = rng.integers(n_per_class // 2, 2 * n_per_class, size=l)
        k = rng.binomial(n, acc)
        m = np.zeros((l, l), dtype=np.int64)
        m[np.arange(l), np.arange(l)] = k
        m[np.arange(l), (np.arange(l) + 1) % l] += n - k
        mats.append(m)
    return mats


def median_time(fn, repeats):
    """Median time of one call: ``repeats`` blocks of calls, each about 20 ms long."""
    return timed(fn, repeat=repeats, block=0.02, most=100)


def fmt_t(s):
    return f"{s * 1e3:.2f} ms" if s < 1 else f"{s:.2f} s"


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="skip the 1000-class case")
    ap.add_argument("--out", default=None, help="also write the Markdown table to this file")
    args = ap.parse_args(argv)
    cases = [(2, 60), (10, 60)] + ([] if args.quick else [(1000, 40)])
    rows = []
    for l, n_per in cases:
        a, b = make_pair(l, 100 + l, n_per)
        reps = 20 if l <= 10 else 3
        t_ours = median_time(lambda a=a, b=b: compare(a, b), reps)
        ours = [compare(a, b).p_better for _ in range(20 if l <= 10 else 3)]
        exact = ours[0]
        pa = compare(a, b).difference
        t_p = median_time(
            lambda pa=pa: BetaSum(*pa.components).sf(0.0), reps
        )  # P(A > B) alone, engine built from scratch

        (grid_a, grid_b), t_grid = once(lambda a=a, b=b: (toolbox_density(a), toolbox_density(b)))
        p0, t_mh = once(lambda ga=grid_a, gb=grid_b: baseline_p_better(ga, gb, 0))
        base = [p0] + [baseline_p_better(grid_a, grid_b, s) for s in range(1, 20)]
        rows.append(
            {
                "l": l,
                "ours": t_ours,
                "ours_p": t_p,
                "grid": t_grid,
                "mh": t_mh,
                "ratio": (t_grid + t_mh) / t_ours,
                "exact": exact,
                "ours_sd": float(max(ours) - min(ours)),  # bit-identical runs give exactly 0
                "base_mean": float(np.mean(base)),
                "base_sd": float(np.std(base, ddof=1)),
            }
        )
        if l == 2:
            prepared = BetaSum(*pa.components)
            prepared.sf(0.0)
            breakdown = {
                "build + P(A>B)": t_p,
                "3 quantiles on the built engine": median_time(
                    lambda d=prepared: d.ppf([0.025, 0.5, 0.975]), reps
                ),
            }
        print(rows[-1], flush=True)

    # paired comparisons (no toolbox counterpart: the toolbox assumes independence)
    paired = []
    for l in (2, 10):
        rng = np.random.default_rng(l)
        yt, ya, yb = [], [], []
        for i in range(l):
            n = 150
            ra = rng.random(n) < 0.8
            rb = np.where(rng.random(n) < 0.9, ra, ~ra)  # B agrees with A on ~90% of examples
            yt += [i] * n
            ya += [i if r else (i + 1) % l for r in ra]
            yb += [i if r else (i + 1) % l for r in rb]
        t = median_time(lambda yt=yt, ya=ya, yb=yb: compare_paired(yt, ya, yb), 5)
        paired.append((l, t))

    cmd = "python benchmarks/bench_compare.py" + (" --quick" if args.quick else "")
    if args.out:
        cmd += f" --out {args.out}"
    lines = [
        "# bacc.comparison versus the toolbox's Metropolis-Hastings comparison",
        "",
        f"Command: `{cmd}` (written by the script). Python {platform.python_version()}, "
        f"numpy {np.__version__}, scipy {scipy.__version__}, {platform.machine()}; "
        "both methods timed in the same process (median of repeated runs; the machine was "
        "shared, so absolute times are noisy, ratios less so).",
        "",
        "Baseline: the toolbox's recipe (Carrillo et al. (2014), section 4.5): Beta densities sampled on a grid "
        "of step 0.001 over [0, l], FFT convolution, then 5 000 random-walk Metropolis-Hastings "
        "draws of each lambda (after 500 burn-in). Ours: `compare(a, b)`, the whole result "
        "(P(A > B), 95% interval and median of delta), deterministic.",
        "",
        "| classes | ours: compare() | ours: P(A>B) only | baseline: grid + FFT | baseline: MH 5 000 | "
        "ratio baseline / ours | P(A>B) exact (ours) | spread of ours (max - min over repeated runs) | "
        "baseline mean over 20 seeds | spread (sd) of baseline |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['l']} | {fmt_t(r['ours'])} | {fmt_t(r['ours_p'])} | {fmt_t(r['grid'])} | "
            f"{fmt_t(r['mh'])} | {r['ratio']:.1f}x | {r['exact']:.6f} | {r['ours_sd']:g} | "
            f"{r['base_mean']:.4f} | {r['base_sd']:.4f} |"
        )
    lines += [
        "",
        "Paired comparison on one test set (`compare_paired`, 150 examples per class, B agreeing "
        "with A on ~90% of examples; the toolbox has no paired counterpart): "
        + ", ".join(f"{l} classes {fmt_t(t)}" for l, t in paired)
        + ".",
        "",
        f"Target: binary comparison <= 2 ms: {'met' if rows[0]['ours'] <= 2e-3 else 'not met'} "
        f"({fmt_t(rows[0]['ours'])}). Where the binary time goes (BetaSum, 4 components): "
        + ", ".join(f"{k} {fmt_t(v)}" for k, v in breakdown.items())
        + "; the remainder is input validation, the Beta components of the two posteriors and, "
        "when P(A > B) > 1/2, one look-up of the smaller tail P(A < B).",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
