"""
A self-contained HTML report
============================

The ``bacc report`` command writes one HTML file with every table and picture: inline
SVG, no network, readable on a phone. The same page can be built from Python with
:mod:`bacc.display.report`, from results you computed yourself. This example writes a
report of the four digits classifiers that ship with bacc (summary table, forest plot, a
paired comparison, the ranking and per-model details) to a temporary folder.

From the command line, with the predictions file copied out of the package data, the
equivalent is:

.. code-block:: console

   $ bacc report digits_cv_predictions.csv --true true --fold fold \\
         --pred naive_bayes --pred decision_tree --pred logistic_regression \\
         --pred knn -o report.html
"""

# %%
# Evaluate the models
# -------------------
# A report entry holds an evaluation and its exact interval; the exact intervals of the
# accuracy and of each class, and the mean of the fold accuracies, are optional.
import tempfile
from importlib.resources import files
from pathlib import Path

import pandas as pd

import bacc
from bacc.display.report import (
    ReportComparison,
    ReportEntry,
    Section,
    render_report,
    write_report,
)

digits = pd.read_csv(files("bacc") / "data" / "digits_cv_predictions.csv")
y = digits["true"]
models = ["naive_bayes", "decision_tree", "logistic_regression", "knn"]
entries = []
for name in models:
    ev = bacc.evaluate(y, digits[name])
    labels = ev.confusion.labels
    folds = [
        bacc.ConfusionMatrix.from_predictions(part["true"], part[name], labels=labels)
        for _, part in digits.groupby("fold")
    ]
    entries.append(ReportEntry(
        name=name,
        evaluation=ev,
        exact=ev.exact_interval(),
        accuracy_exact=ev.exact_interval(metric="accuracy"),
        class_exact=ev.class_intervals(),
        fold_interval=bacc.fold_sem_interval(folds),
        source="digits_cv_predictions.csv",
    ))

# %%
# Comparisons and a ranking
# -------------------------
# The models predicted the same examples: the comparison and the ranking are paired.
pair = bacc.compare_paired(y, digits["logistic_regression"], digits["knn"],
                           names=("logistic_regression", "knn"))
ranking = bacc.rank_paired(y, {name: digits[name] for name in models}, n_draws=10_000)
section = Section(
    title="Handwritten digits, 5-fold cross-validation",
    description="Out-of-fold predictions of four scikit-learn models.",
    entries=entries,
    comparisons=[ReportComparison("logistic_regression", "knn", pair, paired=True)],
    ranking=ranking,
)

# %%
# Write the page
# --------------
# :func:`bacc.display.report.render_report` returns the HTML text;
# :func:`bacc.display.report.write_report` writes it (atomically: a failed write leaves
# no partial file). ``generated`` fixes the time stamp, so the page is reproducible;
# ``max_detail`` limits the per-model pictures to the first models of the section (the
# tables and the forest plot still show every model).
html = render_report(section, title="Digits classifiers", max_detail=2,
                     generated="2026-01-01 00:00 UTC")
path = write_report(Path(tempfile.mkdtemp()) / "report.html", html)
print(f"wrote {path.name}: {path.stat().st_size / 1024:.0f} KiB")
print("pictures (inline SVG):", html.count("<svg"))
print("external resources:", html.count('src="http'))

# %%
# Open the file in a browser. :doc:`/guide/report` explains what the report shows and
# how to write it from the command line.
