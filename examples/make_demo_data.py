"""Generate the real-data demo files shipped in ``src/bacc/data/`` (run once; the CSVs are committed).

bacc does not need scikit-learn at run time: this script was run once, by hand, to make the
prediction files that ``bacc demo`` evaluates. Re-running it with the same scikit-learn version
reproduces them byte for byte (every random step is seeded).

Two public data sets that ship inside the scikit-learn wheel (no download):

* ``load_digits`` -- 1797 8x8 images of hand-written digits, 10 classes (UCI "Optical
  Recognition of Handwritten Digits", test part).
* ``load_wine`` -- 178 wines from three cultivars, 13 chemical measurements (UCI "Wine").

For each, several simple classifiers are evaluated by stratified 5-fold cross-validation
(``StratifiedKFold(5, shuffle=True, random_state=0)``); every example is predicted once, by the
model trained on the other four folds (``cross_val_predict``). All models see the same folds,
so their predictions are paired (same test examples), which ``bacc compare --paired`` uses.

Output columns: ``example`` (row index in the scikit-learn data set), ``fold`` (0-4), ``true``
(true class) and one column of predicted classes per model.

Usage::

    pip install scikit-learn
    python examples/make_demo_data.py            # writes src/bacc/data/*_cv_predictions.csv
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np
import sklearn
from sklearn.datasets import load_digits, load_wine
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

OUT = Path(__file__).resolve().parents[1] / "src" / "bacc" / "data"


def _models(names: list[str]) -> dict:
    all_models = {
        "naive_bayes": GaussianNB(),
        "decision_tree": DecisionTreeClassifier(random_state=0),
        "logistic_regression": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
        "knn": KNeighborsClassifier(n_neighbors=5),
        # k-NN on unscaled features: one feature (proline, in the hundreds) dominates the distance
        "knn_unscaled": KNeighborsClassifier(n_neighbors=5),
    }
    return {n: all_models[n] for n in names}


def write(name: str, X: np.ndarray, y: np.ndarray, class_names, model_names: list[str]) -> Path:
    """Cross-validate each model and write one CSV of out-of-fold predictions."""
    cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    fold = np.empty(len(y), dtype=int)
    for i, (_, test) in enumerate(cv.split(X, y)):
        fold[test] = i
    preds = {m: cross_val_predict(est, X, y, cv=cv) for m, est in _models(model_names).items()}
    path = OUT / f"{name}_cv_predictions.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["example", "fold", "true", *preds])
        for i in range(len(y)):
            w.writerow([i, fold[i], class_names[y[i]], *(class_names[p[i]] for p in preds.values())])
    return path


def main() -> int:
    digits = load_digits()
    p1 = write(
        "digits",
        digits.data,
        digits.target,
        [str(int(t)) for t in digits.target_names],
        ["naive_bayes", "decision_tree", "logistic_regression", "knn"],
    )
    wine = load_wine()
    p2 = write(
        "wine",
        wine.data,
        wine.target,
        [str(t) for t in wine.target_names],
        ["knn_unscaled", "logistic_regression"],
    )
    print(f"scikit-learn {sklearn.__version__}: wrote {p1} and {p2}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
