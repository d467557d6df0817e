"""Speed of the exact (union-bound Clopper-Pearson) interval against the recipe users write.

``bacc.exact_interval(cm)`` returns the Sandler & Dirac (2024) union bound of the balanced
accuracy, every class's Clopper-Pearson bounds at level alpha / l, and verifies every Beta
quantile (scipy's inverse is certified by the incomplete beta at both ends of a 1e-12 bracket,
and iterated only where that fails). The baseline, in the same process, is the recipe by hand:
``scipy.stats.beta.ppf`` for each class's Clopper-Pearson bounds at alpha / l, averaged (what
statsmodels' ``proportion_confint(method="beta")`` computes); statsmodels itself is timed too when
it is installed. Prints the median time per call of each and the ratio baseline / bacc, and the
largest difference between the bounds (0 where scipy is right). The last columns time the same
recipe with bacc's verified bounds (``bacc.clopper_pearson`` on the arrays): the cost of the
verification alone, the ratio being scipy's recipe / the verified one.

Run:  python benchmarks/bench_exact.py
"""

from __future__ import annotations

import numpy as np
from _timing import timed
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


def main() -> None:
    rng = np.random.default_rng(0)
    try:
        import statsmodels  # noqa: F401

        have_sm = True
    except ImportError:
        have_sm = False
    head = f"{'classes':>7s} {'bacc (us)':>10s} {'scipy (us)':>11s} {'ratio':>6s}"
    print(head + (f" {'statsmodels (us)':>17s} {'ratio':>6s}" if have_sm else "")
          + f" {'verified bounds (us)':>21s} {'ratio':>6s}  max |diff|")
    for classes in (2, 10, 100):
        cm = matrix(rng, classes)
        t_b = timed(lambda cm=cm: bacc.exact_interval(cm))
        t_n = timed(lambda cm=cm: naive(cm))
        iv = bacc.exact_interval(cm)
        diff = max(abs(iv.lower - naive(cm)[0]), abs(iv.upper - naive(cm)[1]))
        row = f"{classes:7d} {t_b * 1e6:10.0f} {t_n * 1e6:11.0f} {t_n / t_b:6.2f}"
        if have_sm:
            t_s = timed(lambda cm=cm: with_statsmodels(cm))
            row += f" {t_s * 1e6:17.0f} {t_s / t_b:6.2f}"
        t_v = timed(lambda cm=cm: verified(cm))
        diff = max(diff, *(abs(u - v) for u, v in zip(verified(cm), naive(cm), strict=True)))
        row += f" {t_v * 1e6:21.0f} {t_n / t_v:6.2f}"
        print(row + f"  {diff:.1e}")


if __name__ == "__main__":
    main()
