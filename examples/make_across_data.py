"""Generate ``src/bacc/data/across_cv_predictions.csv``: four classifiers on many data sets.

bacc does not need scikit-learn at run time: this script was run once, by hand, to make the
prediction file used to compare and rank classifiers across data sets. Re-running it with the
same scikit-learn and numpy versions reproduces the file byte for byte (every random step is
seeded).

Data sets (none is downloaded):

* four that ship inside the scikit-learn wheel: ``load_iris``, ``load_wine``,
  ``load_breast_cancer`` and ``load_digits``;
* synthetic ones from ``make_classification``, ``make_moons`` and ``make_circles``, each with
  a fixed ``random_state``, chosen to vary the number of examples (from 40 to 3000), the class
  balance (up to 9:1) and the number of classes (2 to 4), and so that the ranking of the
  classifiers changes from one data set to another.

On every data set the same four classifiers are evaluated by stratified 5-fold
cross-validation (``StratifiedKFold(5, shuffle=True, random_state=0)``); every example is
predicted once, by the model trained on the other four folds (``cross_val_predict``). Within a
data set all models see the same folds, so their predictions are paired.

Output columns: ``dataset``, ``example`` (row index within the data set), ``fold`` (0-4),
``true`` (true class) and one column of predicted classes per model: ``naive_bayes``,
``decision_tree``, ``logistic_regression``, ``knn``. Classes are the data set's
``target_names`` where it has them (iris, wine, breast cancer), integers otherwise.

The script prints the balanced accuracy of each model on each data set (pooled over the
folds, ``sklearn.metrics.balanced_accuracy_score``) and the rank of the models on each.

Usage::

    pip install scikit-learn
    python examples/make_across_data.py      # writes src/bacc/data/across_cv_predictions.csv
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import sklearn
from sklearn.datasets import (
    load_breast_cancer,
    load_digits,
    load_iris,
    load_wine,
    make_circles,
    make_classification,
    make_moons,
)
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

OUT = Path(__file__).resolve().parents[1] / "src" / "bacc" / "data" / "across_cv_predictions.csv"

MODELS = ("naive_bayes", "decision_tree", "logistic_regression", "knn")

# (X, y, class names indexed by the integer label)
Data = tuple[np.ndarray, np.ndarray, list[str]]


def _models() -> dict:
    return {
        "naive_bayes": GaussianNB(),
        "decision_tree": DecisionTreeClassifier(random_state=0),
        "logistic_regression": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
        "knn": make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=5)),
    }


def _bundled(loader: Callable, integer_names: bool = False) -> Data:
    d = loader()
    names = [str(int(t)) if integer_names else str(t) for t in d.target_names]
    return d.data, d.target, names


def _ints(X: np.ndarray, y: np.ndarray) -> Data:
    return X, y, [str(k) for k in range(int(y.max()) + 1)]


def datasets() -> dict[str, Data]:
    """The data sets, in the order they are written (name -> (X, y, class names))."""
    mc = make_classification
    return {
        "iris": _bundled(load_iris),
        "wine": _bundled(load_wine),
        "breast_cancer": _bundled(load_breast_cancer),
        "digits": _bundled(load_digits, integer_names=True),
        # two interleaved half-moons: curved boundary, few examples
        "moons_small_n60": _ints(*make_moons(n_samples=60, noise=0.3, random_state=1)),
        # the same shape, more examples: the local models can use them
        "moons_n500": _ints(*make_moons(n_samples=500, noise=0.25, random_state=2)),
        # one class inside the other: no linear boundary, but class variances differ
        "circles_n200": _ints(*make_circles(n_samples=200, noise=0.1, factor=0.5, random_state=3)),
        # 40 examples, 20 features of which 3 informative: naive Bayes does best
        "small_highdim_n40": _ints(
            *mc(
                n_samples=40,
                n_features=20,
                n_informative=3,
                n_redundant=0,
                n_clusters_per_class=1,
                class_sep=1.0,
                random_state=4,
            )
        ),
        # 9:1 imbalance, linear-ish signal
        "imbalanced_n2000": _ints(
            *mc(
                n_samples=2000,
                n_features=10,
                n_informative=4,
                n_redundant=2,
                weights=[0.9, 0.1],
                class_sep=0.8,
                flip_y=0.02,
                random_state=5,
            )
        ),
        # three classes, each made of two clusters: a multimodal boundary
        "multimodal_3class_n300": _ints(
            *mc(
                n_samples=300,
                n_features=4,
                n_informative=4,
                n_redundant=0,
                n_classes=3,
                n_clusters_per_class=2,
                class_sep=1.5,
                random_state=6,
            )
        ),
        # four unequal classes, many strongly correlated (redundant) features
        "redundant_4class_n800": _ints(
            *mc(
                n_samples=800,
                n_features=15,
                n_informative=5,
                n_redundant=10,
                n_classes=4,
                n_clusters_per_class=1,
                weights=[0.4, 0.3, 0.2, 0.1],
                class_sep=1.0,
                random_state=7,
            )
        ),
        # the largest: two classes, linear signal, label noise
        "linear_n3000": _ints(
            *mc(
                n_samples=3000,
                n_features=20,
                n_informative=6,
                n_redundant=4,
                n_clusters_per_class=1,
                class_sep=0.7,
                flip_y=0.05,
                random_state=8,
            )
        ),
    }


def cross_validate(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Fold of every example and out-of-fold integer predictions of every model."""
    cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    fold = np.empty(len(y), dtype=int)
    for i, (_, test) in enumerate(cv.split(X, y)):
        fold[test] = i
    preds = {m: cross_val_predict(est, X, y, cv=cv) for m, est in _models().items()}
    return fold, preds


def main() -> int:
    rows = 0
    table = []
    with OUT.open("w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["dataset", "example", "fold", "true", *MODELS])
        for name, (X, y, names) in datasets().items():
            fold, preds = cross_validate(X, y)
            for i in range(len(y)):
                w.writerow([name, i, fold[i], names[y[i]], *(names[preds[m][i]] for m in MODELS)])
            rows += len(y)
            counts = np.bincount(y)
            bacc = {m: balanced_accuracy_score(y, preds[m]) for m in MODELS}
            table.append((name, len(y), len(counts), "/".join(map(str, counts)), bacc))

    width = max(len(t[0]) for t in table)
    print(
        f"{'dataset':<{width}}  {'n':>5}   k  "
        + "  ".join(f"{m:>19}" for m in MODELS)
        + "  ranking"
    )
    for name, n, k, _, bacc in table:
        order = sorted(MODELS, key=lambda m: -bacc[m])
        cells = "  ".join(f"{bacc[m]:>19.3f}" for m in MODELS)
        print(f"{name:<{width}}  {n:>5}  {k:>2}  {cells}  {' > '.join(order)}")
    print("class counts: " + "; ".join(f"{t[0]} {t[3]}" for t in table))
    print(
        f"scikit-learn {sklearn.__version__}, numpy {np.__version__}: wrote {OUT} "
        f"({len(table)} data sets, {rows} rows, {OUT.stat().st_size} bytes)",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
