"""Speed of the exact (union-bound Clopper-Pearson) interval against the recipe users write.

``bacc.exact_interval(cm)`` returns the Sandler & Dirac (2024) union bound of the balanced
accuracy, every class's Clopper-Pearson bounds at level alpha / l, and verifies every Beta
quantile (scipy's inverse is certified to lie within 1e-12 of the root by one incomplete beta
at the answer itself, by two at the ends of that bracket where one does not suffice, and
iterated only where both fail). The baseline, in the same process, is the recipe by hand:
``scipy.stats.beta.ppf`` for each class's Clopper-Pearson bounds at alpha / l, averaged (what
statsmodels' ``proportion_confint(method="beta")`` computes); statsmodels itself is timed too when
it is installed. Every function is timed in rounds that run a block of calls of each in turn (a
change of load on the shared machine hits all alike); printed are the median time per call and
the median over the rounds of the ratio baseline / bacc, and the largest difference between the
bounds (0 where scipy is right). The last columns time the same recipe with bacc's verified
bounds (``bacc.clopper_pearson`` on the arrays): the cost of the
verification alone, the ratio being scipy's recipe / the verified one. "with rows" times
``exact_interval`` followed by a first read of ``per_class`` (the per-class results, built on
first use; the hand recipe returns none).

Run:  python benchmarks/bench_exact.py [--quick]   (--quick: 2 and 10 classes, 3 rounds)
"""

from __future__ import annotations

import statistics
import sys

import numpy as np
from _timing import interleaved, machine, ratio_by_round
from scipy import stats

import bacc


def naive(cm, confidence=0.95):
    cm = np.asarray(cm)
    k, n = np.diag(cm), cm.sum(axis=1)
    alpha = (1.0 - confidence) / len(k)
    lo = np.where(k > 0, stats.beta.ppf(alpha / 2, k, n - k + 1), 0.0)
    hi = np.where(k < n, stats.beta.ppf(1 - alpha / 2, k + 1, n - k), 1.0)
    return float(lo.mean()), float(hi.mean())


def with_statsmodels(cm, confidence=0.95):
    from statsmodels.stats.proportion import proportion_confint

    cm = np.asarray(cm)
    k, n = np.diag(cm), cm.sum(axis=1)
    lo, hi = proportion_confint(k, n, alpha=(1.0 - confidence) / len(k), method="beta")
    return float(np.mean(lo)), float(np.mean(hi))


def verified(cm, confidence=0.95):
    """The same recipe with bacc's verified Clopper-Pearson bounds (``bacc.clopper_pearson``
    on the arrays): the cost of verification alone, without validation or result objects."""
    cm = np.asarray(cm)
    k, n = np.diag(cm), cm.sum(axis=1)
    lo, hi = bacc.clopper_pearson(k, n, confidence=1.0 - (1.0 - confidence) / len(k))
    return float(lo.mean()), float(hi.mean())


def matrix(rng, classes):
    n = rng.integers(20, 500, classes)
    k = rng.binomial(n, 0.8)
    cm = np.diag(k)
    cm[np.arange(classes), (np.arange(classes) + 1) % classes] += n - k
    return cm


def main(quick: bool = False) -> None:
    print(machine("numpy", "scipy"))
    rng = np.random.default_rng(0)
    try:
        import statsmodels  # noqa: F401

        have_sm = True
    except ImportError:
        have_sm = False
    head = f"{'classes':>7s} {'bacc (us)':>10s} {'scipy (us)':>11s} {'ratio':>6s}"
    print(head + (f" {'statsmodels (us)':>17s} {'ratio':>6s}" if have_sm else "")
          + f" {'verified bounds (us)':>21s} {'ratio':>6s} {'with rows (us)':>15s}  max |diff|")
    for classes in (2, 10) if quick else (2, 10, 100):
        cm = matrix(rng, classes)
        fns = {
            "bacc": lambda cm=cm: bacc.exact_interval(cm),
            "scipy": lambda cm=cm: naive(cm),
            "verified": lambda cm=cm: verified(cm),
            "rows": lambda cm=cm: bacc.exact_interval(cm).per_class,
        }
        if have_sm:
            fns["statsmodels"] = lambda cm=cm: with_statsmodels(cm)
        times = interleaved(fns, rounds=3 if quick else 15)
        t = {name: statistics.median(v) for name, v in times.items()}

        def ratio(num: str, den: str, times=times) -> float:
            # the median of the per-round ratios: both timed within the same round
            return ratio_by_round(times, num, den)

        iv = bacc.exact_interval(cm)
        lo, hi = naive(cm)
        diff = max(abs(iv.lower - lo), abs(iv.upper - hi))
        diff = max(diff, *(abs(u - v) for u, v in zip(verified(cm), naive(cm), strict=True)))
        row = f"{classes:7d} {t['bacc'] * 1e6:10.0f} {t['scipy'] * 1e6:11.0f} {ratio('scipy', 'bacc'):6.2f}"
        if have_sm:
            row += f" {t['statsmodels'] * 1e6:17.0f} {ratio('statsmodels', 'bacc'):6.2f}"
        row += f" {t['verified'] * 1e6:21.0f} {ratio('scipy', 'verified'):6.2f}"
        row += f" {t['rows'] * 1e6:15.0f}"
        print(row + f"  {diff:.1e}")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
