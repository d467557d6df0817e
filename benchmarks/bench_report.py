"""The HTML report over many groups, and the ranking of many classifiers.

Run: ``python benchmarks/bench_report.py``

1. ``bacc report`` over 1 000 detectors (a seeded predictions file of 215 545 rows written by
   this script, two classes each): wall time and page size, against the baseline of the same
   process evaluating every group one by one (``evaluate_items``, what the report did before it
   used one batch; it then also drew pictures for 30 groups, 44 s in all).
2. ``bacc.rank`` of 300 classifiers (10 classes each): the vectorised pairwise quadrature against
   the exact pairwise convolutions, timed on 30 pairs and scaled to all 44 850.
3. ``bacc.rank_paired`` of the demo's four classifiers on 1 797 digits, against ``bacc.rank``
   of the same four (independent posteriors).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from synthetic import groups_csv  # noqa: E402

import bacc  # noqa: E402
from bacc.cli import main  # noqa: E402
from bacc.cli.commands import _load  # noqa: E402
from bacc.cli.parser import build_parser  # noqa: E402
from bacc.cli.results import Settings, evaluate_items  # noqa: E402
from bacc.ranking import ClassifierPosterior, independent_difference  # noqa: E402


def report_rows(folder: Path) -> None:
    csv = folder / "groups.csv"
    groups_csv(csv)
    rows = sum(1 for _ in csv.open()) - 1
    out = folder / "report.html"
    argv = ["report", str(csv), "--true", "label", "--pred", "pred", "--by", "detector", "-o", str(out)]
    times = []
    for _ in range(3):
        t = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(argv) == 0
        times.append(time.perf_counter() - t)
    size = out.stat().st_size
    args = build_parser().parse_args(argv)
    t = time.perf_counter()
    evaluate_items(_load(args), Settings.from_args(args))
    base = time.perf_counter() - t
    best = min(times)
    print(f"report, 1000 groups ({rows} rows)    bacc report {best:6.2f} s   "
          f"one-by-one evaluation {base:6.2f} s   ratio {base / best:5.1f}   page {size / 1e6:.2f} MB")


def rank_rows() -> None:
    rng = np.random.default_rng(0)
    mats = []
    for _ in range(300):
        n = rng.integers(50, 100, size=10)
        k = rng.binomial(n, rng.uniform(0.6, 0.9))
        m = np.diag(k)
        m[np.arange(10), (np.arange(10) + 1) % 10] = n - k
        mats.append(m)
    t = time.perf_counter()
    r = bacc.rank(mats)
    whole = time.perf_counter() - t
    posts = [ClassifierPosterior(m, prior=None, weights=None, rows="true", what="x") for m in mats]
    t = time.perf_counter()
    for i in range(30):
        float(independent_difference(posts[i], posts[i + 30]).sf(0.0))
    per_pair = (time.perf_counter() - t) / 30
    exact_all = per_pair * 300 * 299 / 2
    print(f"rank, 300 classifiers x 10 classes     bacc.rank {whole:6.2f} s ({r.pairwise}, "
          f"{r.n_draws} draws)   exact pairs {exact_all:6.1f} s (est.)   ratio {exact_all / whole:5.1f}")


def paired_rows() -> None:
    import csv

    path = Path(bacc.__file__).parent / "data" / "digits_cv_predictions.csv"
    with path.open() as fh:
        rows = list(csv.DictReader(fh))
    models = ["naive_bayes", "decision_tree", "logistic_regression", "knn"]
    y = [r["true"] for r in rows]
    preds = {m: [r[m] for r in rows] for m in models}
    t = time.perf_counter()
    rp = bacc.rank_paired(y, preds)
    tp = time.perf_counter() - t
    cms = {m: bacc.ConfusionMatrix.from_predictions(y, preds[m]) for m in models}
    t = time.perf_counter()
    bacc.rank(cms)
    ti = time.perf_counter() - t
    print(f"rank_paired, 4 classifiers, digits     paired {tp:6.2f} s   independent {ti:6.2f} s   "
          f"ratio {ti / tp:5.2f}   (P(knn > logistic_regression) = {rp.p_greater[3, 2]:.6f})")


if __name__ == "__main__":
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as d:
        report_rows(Path(d))
    rank_rows()
    paired_rows()
