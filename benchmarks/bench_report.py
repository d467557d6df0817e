"""The HTML report over many groups, and the ranking of many classifiers.

Run: ``python benchmarks/bench_report.py [--quick]`` (``--quick``: a report of 60 groups and a
ranking of 8 classifiers, a few seconds)

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
import sys
import tempfile
from pathlib import Path

import numpy as np
from _timing import fastest, machine, once

import bacc
from bacc.cli import main
from bacc.cli.commands import _load
from bacc.cli.parser import build_parser
from bacc.cli.results import Settings, evaluate_items
from bacc.ranking import ClassifierPosterior, independent_difference


def groups_csv(path: Path, n_groups: int = 1000, seed: int = 0) -> Path:
    """Predictions of ``n_groups`` detectors of two classes (20 to 400 examples each)."""
    rng = np.random.default_rng(seed)
    n = rng.integers(20, 400, n_groups)
    acc = rng.uniform(0.55, 0.98, n_groups)
    det = np.repeat(np.arange(n_groups), n)
    y = rng.integers(0, 2, det.size)
    p = np.where(rng.random(det.size) < acc[det], y, 1 - y)
    with path.open("w") as fh:
        fh.write("detector,label,pred\n")
        for d, a, b in zip(det, y, p, strict=True):
            fh.write(f"det{d:04d},{'pos' if a else 'neg'},{'pos' if b else 'neg'}\n")
    return path


def report_rows(folder: Path, n_groups: int = 1000, runs: int = 3) -> None:
    csv = folder / "groups.csv"
    groups_csv(csv, n_groups=n_groups)
    rows = sum(1 for _ in csv.open()) - 1
    out = folder / "report.html"
    argv = ["report", str(csv), "--true", "label", "--pred", "pred", "--by", "detector", "-o", str(out)]

    def report():
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(argv) == 0

    best = fastest(report, runs)[0]
    size = out.stat().st_size
    args = build_parser().parse_args(argv)
    _, base = once(lambda: evaluate_items(_load(args), Settings.from_args(args)))
    print(f"report, {n_groups} groups ({rows} rows)    bacc report {best:6.2f} s   "
          f"one-by-one evaluation {base:6.2f} s   ratio {base / best:5.1f}   page {size / 1e6:.2f} MB")


def rank_rows(classifiers: int = 300) -> None:
    rng = np.random.default_rng(0)
    mats = []
    for _ in range(classifiers):
        n = rng.integers(50, 100, size=10)
        k = rng.binomial(n, rng.uniform(0.6, 0.9))
        m = np.diag(k)
        m[np.arange(10), (np.arange(10) + 1) % 10] = n - k
        mats.append(m)
    r, whole = once(lambda: bacc.rank(mats))
    posts = [ClassifierPosterior(m, prior=None, weights=None, rows="true", what="x") for m in mats]
    pairs = min(30, classifiers // 2)

    def exact_pairs():
        for i in range(pairs):
            float(independent_difference(posts[i], posts[i + pairs]).sf(0.0))

    _, t_pairs = once(exact_pairs)
    exact_all = t_pairs / pairs * classifiers * (classifiers - 1) / 2
    print(f"rank, {classifiers} classifiers x 10 classes     bacc.rank {whole:6.2f} s ({r.pairwise}, "
          f"{r.n_draws} draws)   exact pairs {exact_all:6.1f} s (est.)   ratio {exact_all / whole:5.1f}")


def paired_rows() -> None:
    import csv

    path = Path(bacc.__file__).parent / "data" / "digits_cv_predictions.csv"
    with path.open() as fh:
        rows = list(csv.DictReader(fh))
    models = ["naive_bayes", "decision_tree", "logistic_regression", "knn"]
    y = [r["true"] for r in rows]
    preds = {m: [r[m] for r in rows] for m in models}
    rp, tp = once(lambda: bacc.rank_paired(y, preds))
    cms = {m: bacc.ConfusionMatrix.from_predictions(y, preds[m]) for m in models}
    _, ti = once(lambda: bacc.rank(cms))
    print(f"rank_paired, 4 classifiers, digits     paired {tp:6.2f} s   independent {ti:6.2f} s   "
          f"ratio {ti / tp:5.2f}   (P(knn > logistic_regression) = {rp.p_greater[3, 2]:.6f})")


def run(quick: bool = False) -> None:
    print(machine("numpy", "scipy"))
    with tempfile.TemporaryDirectory() as d:
        # more than 50 groups: the report of many (one batch, detail where needed)
        report_rows(Path(d), 60, runs=1) if quick else report_rows(Path(d))
    rank_rows(8 if quick else 300)
    if not quick:
        paired_rows()


if __name__ == "__main__":
    run(quick="--quick" in sys.argv)
