"""Sums of Betas from the regression cases, through the three callers of the method chooser.

The chooser (:mod:`bacc._engine.sums.chooser`) decides how each weighted sum of Betas is
computed, for a single :class:`bacc.BetaSum`, for :func:`bacc.evaluate_many` and for the
probabilities of :func:`bacc.monitor`. ``tests/data/sum_chooser.json`` records, for the matrices
of ``tests/support/regression_cases.py`` (and the same matrices with every count times 1 000, so that
narrow parts and leftovers of the batched lattice are reached):

* ``betasum``: the cdf, sf, pdf, ppf and isf of the posterior balanced accuracy and of the
  difference of two posteriors (flat, Jeffreys' and a (2, 2) prior);
* ``evaluate_many``: the credible interval and probability above chance of every matrix,
  stacked by number of classes, under the same priors;
* ``p_worse``: ``P(lambda_now < lambda_base - margin)`` for every ordered pair of matrices with
  the same number of classes and against the numbers 0.5, 0.7 and 0.9, margins 0 and 0.03.

The record was made with the engine choices written separately in ``bacc.distributions``,
``bacc.batch`` and ``bacc.monitoring`` (commit 69968ce), before the chooser took them over::

    git worktree add /tmp/before 69968ce
    PYTHONPATH=/tmp/before/src:tests python tests/support/sum_chooser_cases.py --write

``tests/test_engine_sums_chooser.py`` checks that every number is reproduced to 1e-12.

Re-recorded since: the two-class ``p_worse/*/2/counted/0.03`` cases, when small windows got
their exact path (:mod:`bacc._engine.sums.small_counts`). The new values agree with the
30-digit reference (``tests/references/reference.py``) to 1e-14 where the recorded ones were
off by up to 1.1e-9; ``test_re_recorded_p_worse_agree_with_the_reference`` checks them.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np

import bacc
from bacc.monitoring import _p_worse
from support.regression_cases import MATRICES

RECORD = Path(__file__).resolve().parents[1] / "data" / "sum_chooser.json"

PRIORS = {"flat": (1.0, 1.0), "jeffreys": (0.5, 0.5), "two": (2.0, 2.0)}
SCALES = (1, 1000)
QS = np.array([1e-6, 0.01, 0.025, 0.25, 0.5, 0.75, 0.975, 0.99])
STEPS = np.array([-4.0, -2.0, -1.0, 0.0, 0.5, 1.0, 2.0, 4.0])
NUMBERS = (0.5, 0.7, 0.9)
MARGINS = (0.0, 0.03)


def matrices() -> dict[str, np.ndarray]:
    """The regression matrices, as they are and with every count times 1 000."""
    return {
        f"{name}x{s}": np.asarray(m, dtype=np.int64) * s
        for name, m in MATRICES.items()
        for s in SCALES
    }


def _posterior(m: np.ndarray, prior: tuple[float, float]):
    """Beta parameters and inclusion of each class of a matrix."""
    k = np.diag(m).astype(float)
    n = m.sum(axis=1).astype(float)
    return k + prior[0], n - k + prior[1], n > 0


def _distribution(d) -> dict[str, list[float]]:
    x = np.clip(d.mean() + d.std() * STEPS, *d.support())
    return {
        "cdf": np.atleast_1d(d.cdf(x)).tolist(),
        "sf": np.atleast_1d(d.sf(x)).tolist(),
        "pdf": np.atleast_1d(d.pdf(x)).tolist(),
        "ppf": np.atleast_1d(d.ppf(QS)).tolist(),
        "isf": np.atleast_1d(d.isf(QS)).tolist(),
    }


def compute() -> dict[str, list[float]]:
    """Every recorded number, keyed by case."""
    rec: dict[str, list[float]] = {}
    mats = matrices()
    by_size: dict[int, list[str]] = {}
    for name, m in mats.items():
        by_size.setdefault(m.shape[0], []).append(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for pname, prior in PRIORS.items():
            # single sums: the posterior, and its difference with every other of its size
            for name, m in mats.items():
                a, b, inc = _posterior(m, prior)
                w = np.full(int(inc.sum()), 1.0 / inc.sum())
                d = bacc.BetaSum(a[inc], b[inc], w)
                for kind, v in _distribution(d).items():
                    rec[f"betasum/{pname}/{name}/{kind}"] = v
                for other in by_size[m.shape[0]]:
                    a2, b2, inc2 = _posterior(mats[other], prior)
                    both = inc & inc2
                    w = np.full(int(both.sum()), 1.0 / both.sum())
                    d = bacc.BetaSum(np.r_[a[both], a2[both]], np.r_[b[both], b2[both]],
                                     np.r_[w, -w])  # fmt: skip
                    for kind, v in _distribution(d).items():
                        rec[f"betasum/{pname}/{name}-{other}/{kind}"] = v
            for size, names in sorted(by_size.items()):
                stack = np.stack([mats[n] for n in names])
                res = bacc.evaluate_many(stack, prior=prior, workers=1)
                for field in ("lower", "upper", "mean", "p_above_chance"):
                    rec[f"evaluate_many/{pname}/{size}/{field}"] = getattr(res, field).tolist()
                # every ordered pair of matrices of this size: window and baseline
                now = [_posterior(mats[n], prior) for n in names]
                pairs = [(i, j) for i in range(len(names)) for j in range(len(names))]
                a_now = np.stack([now[i][0] for i, _ in pairs])
                b_now = np.stack([now[i][1] for i, _ in pairs])
                a_base = np.stack([now[j][0] for _, j in pairs])
                b_base = np.stack([now[j][1] for _, j in pairs])
                inc = np.stack([now[i][2] & now[j][2] for i, j in pairs])
                for margin in MARGINS:
                    p = _p_worse(a_now, b_now, inc, a_base, b_base, None, margin)
                    rec[f"p_worse/{pname}/{size}/counted/{margin}"] = p.tolist()
                    for number in NUMBERS:
                        p = _p_worse(a_now, b_now, inc, None, None, number, margin)
                        rec[f"p_worse/{pname}/{size}/{number}/{margin}"] = p.tolist()
    return rec


if __name__ == "__main__":
    if "--write" in sys.argv:
        RECORD.parent.mkdir(exist_ok=True)
        RECORD.write_text(json.dumps(compute(), indent=0, sort_keys=True))
        print(f"wrote {RECORD}")
