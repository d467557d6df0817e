"""Fixed inputs whose every output number is recorded in ``tests/data/regression.json``.

``python tests/support/regression_cases.py --write`` records them; ``tests/test_api_regression.py`` checks
that the package still produces each number to 1e-12. The record was made before the package was
reorganised into its layers, so the test shows that the reorganisation changed no number.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np

import bacc

RECORD = Path(__file__).resolve().parents[1] / "data" / "regression.json"

MATRICES = {
    "binary": [[42, 3], [6, 4]],
    "binary_large": [[950000, 50000], [3000, 7000]],
    "three": [[20, 3, 1], [2, 15, 4], [0, 3, 30]],
    "imbalanced": [[1000, 12], [3, 2]],
    "perfect": [[12, 0], [0, 9]],
    "empty_class": [[0, 0, 0], [1, 9, 0], [2, 1, 7]],
    "five": [[30, 2, 1, 0, 1], [3, 12, 0, 1, 0], [0, 1, 44, 2, 3], [1, 0, 2, 9, 1], [0, 1, 1, 0, 5]],
}


def _leaves(obj, prefix=""):
    """Every number and string of a JSON-able value, keyed by its path."""
    out = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "seconds":  # run time, not a result
                continue
            out.update(_leaves(v, f"{prefix}/{k}"))
    elif isinstance(obj, np.ndarray):
        out.update(_leaves(obj.tolist(), prefix))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            out.update(_leaves(v, f"{prefix}/{i}"))
    elif isinstance(obj, (bool, str)) or obj is None:
        out[prefix] = obj
    elif isinstance(obj, (int, float, np.integer, np.floating)):
        out[prefix] = float(obj)
    else:
        out[prefix] = repr(obj)
    return out


def _dist(d, points=(0.3, 0.5, 0.7, 0.9)):
    return {
        "mean": d.mean(),
        "var": d.var(),
        "median": d.median(),
        "mode": d.mode(),
        "central": list(d.interval(0.95)),
        "hdi": list(d.interval(0.9, kind="hdi")),
        "cdf": [float(v) for v in np.atleast_1d(d.cdf(np.asarray(points)))],
        "pdf": [float(v) for v in np.atleast_1d(d.pdf(np.asarray(points)))],
        "ppf": [float(v) for v in np.atleast_1d(d.ppf(np.asarray([0.01, 0.25, 0.75, 0.99])))],
    }


def compute() -> dict:
    """Every recorded number, from the public API."""
    rec = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, m in MATRICES.items():
            ev = bacc.evaluate(m)
            rec[f"evaluate/{name}"] = ev.to_dict()
            rec[f"posterior/{name}"] = _dist(ev.balanced_accuracy)
            rec[f"evaluate_jeffreys/{name}"] = bacc.evaluate(m, prior="jeffreys").to_dict()
            for method in ("union", "sidak"):
                for sides in ("two", "lower", "upper"):
                    rec[f"exact/{name}/{method}/{sides}"] = bacc.exact_interval(
                        m, method=method, sides=sides
                    ).to_dict()
            rec[f"exact_accuracy/{name}"] = bacc.exact_interval(m, metric="accuracy").to_dict()
            for method in ("wald", "wilson", "jeffreys"):
                rec[f"approx/{name}/{method}"] = bacc.approx_interval(m, method=method).to_dict()
            rec[f"binomial_test/{name}"] = bacc.binomial_test(m).to_dict()
        rec["exact/binary/buehler"] = bacc.exact_interval([[42, 3], [6, 4]], method="buehler").to_dict()
        rec["evaluate_weighted"] = bacc.evaluate([[42, 3], [6, 4]], weights=(0.7, 0.3)).to_dict()
        rec["evaluate_prior"] = bacc.evaluate([[42, 3], [6, 4]], prior=(2.0, 3.0)).to_dict()
        rec["evaluate_many"] = bacc.evaluate_many(
            np.array([MATRICES["binary"], MATRICES["imbalanced"], MATRICES["perfect"]])
        ).to_pandas().rename(columns=_OLD_BATCH_COLUMNS).to_dict(orient="list") if _has_pandas() else None

        rec["compare/binary"] = bacc.compare([[42, 3], [6, 4]], [[40, 5], [3, 7]], rope=0.01).to_dict()
        rec["compare/three"] = bacc.compare(MATRICES["three"], [[18, 4, 2], [3, 16, 2], [1, 2, 30]]).to_dict()
        c = bacc.compare([[42, 3], [6, 4]], [[40, 5], [3, 7]])
        rec["compare/difference"] = _dist(c.difference, points=(-0.2, 0.0, 0.1, 0.3))

        rng = np.random.default_rng(7)
        y = rng.integers(0, 3, 300)
        pa = np.where(rng.random(300) < 0.8, y, rng.integers(0, 3, 300))
        pb = np.where(rng.random(300) < 0.7, y, rng.integers(0, 3, 300))
        cp = bacc.compare_paired(y, pa, pb, rope=0.02)
        rec["compare_paired/three"] = cp.to_dict()
        rec["compare_paired/difference"] = _dist(cp.difference, points=(-0.1, 0.0, 0.1, 0.2))
        yb = y % 2
        rec["compare_paired/binary"] = bacc.compare_paired(yb, pa % 2, pb % 2).to_dict()
        rec["mcnemar"] = bacc.mcnemar_exact(13, 4).to_dict()

        rec["rank"] = bacc.rank(
            {"A": [[42, 3], [6, 4]], "B": [[40, 5], [3, 7]], "C": [[30, 15], [2, 8]]},
            random_state=1,
            n_draws=20_000,
        ).to_dict()
        rec["coverage"] = bacc.coverage(
            ["union", "sidak", "wald", "wilson", "jeffreys", "bayes"],
            class_sizes=[20, 12],
            true_class_accuracies=[0.95, 0.8],
            n_simulations=4_000,
            random_state=3,
        ).to_dict()
        rec["coverage_accuracy"] = bacc.coverage(
            ["clopper-pearson", "wald"],
            class_sizes=[30, 10],
            true_class_accuracies=[0.9, 0.6],
            n_simulations=3_000,
            random_state=5,
            metric="accuracy",
        ).to_dict()
        for name in ("binary", "three", "empty_class"):
            m = MATRICES[name]
            rec[f"metrics/{name}"] = {
                f: getattr(bacc.metrics, f)(m)
                for f in dir(bacc.metrics)
                if not f.startswith("_") and callable(getattr(bacc.metrics, f))
                and f in METRIC_NAMES
            }
    return {k: _leaves(v) for k, v in rec.items()}


METRIC_NAMES = (
    "accuracy",
    "balanced_accuracy",
    "recall",
    "specificity",
    "precision",
    "balanced_precision",
    "f1",
    "macro_f1",
    "cohen_kappa",
    "g_mean",
    "informedness",
)


# the recorded values keep the column names of the first release of to_pandas
_OLD_BATCH_COLUMNS = {"posterior_mean": "mean", "credible_lower": "lower",
                      "credible_upper": "upper", "support_0": "support[0]",
                      "support_1": "support[1]", "support_2": "support[2]"}


def _has_pandas() -> bool:
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    if "--write" in sys.argv:
        RECORD.parent.mkdir(exist_ok=True)
        RECORD.write_text(json.dumps(compute(), indent=0, sort_keys=True, default=repr))
        print(f"wrote {RECORD}")
