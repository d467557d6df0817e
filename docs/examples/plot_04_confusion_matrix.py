"""
The confusion matrix as a picture
=================================

Before summarising a classifier by one number, look at where its errors go.
:func:`bacc.display.plot.plot_confusion` draws a confusion matrix as a heat map (rows =
true class, columns = predicted class), coloured by the share of each true class and
with the counts written in the cells.

The data are the out-of-fold predictions of a Gaussian naive Bayes classifier on
scikit-learn's bundled digits data (10 classes, 1 797 examples), shipped with bacc.
"""

# %%
# Count the predictions
# ---------------------
# :meth:`bacc.ConfusionMatrix.from_predictions` counts true and predicted labels.
# Printing it shows the counts with the totals of each true class.
from importlib.resources import files

import matplotlib.pyplot as plt
import pandas as pd

import bacc
from bacc.display.plot import plot_confusion

digits = pd.read_csv(files("bacc") / "data" / "digits_cv_predictions.csv")
cm = bacc.ConfusionMatrix.from_predictions(digits["true"], digits["naive_bayes"])
print(cm)

# %%
# The heat map
# ------------
# Each row is coloured by the share of its true class, so a small class is as visible as
# a large one: the diagonal is each class's accuracy (recall), the balanced accuracy is
# its mean.
fig = plot_confusion(cm, title="naive Bayes on the digits")

# %%
# Naive Bayes calls many 2s an 8 and many 9s a 7 or an 8. The per-class accuracies
# quantify it; :func:`bacc.evaluate` reads an evaluation straight from the matrix, and
# :func:`bacc.display.plot.plot_confusion` accepts the evaluation too.
ev = bacc.evaluate(cm)
for c in ev.classes:
    s = c.summary
    print(f"digit {c.label}: {c.correct:3d}/{c.support}  mean {s.mean:.3f} "
          f"[{s.lower:.3f}, {s.upper:.3f}]")

# %%
# Counts instead of shares
# ------------------------
# ``normalize=False`` colours by the raw counts, so a large class looks darker than a
# small one with the same accuracy; shares (the default) compare the classes fairly. The
# wine data have 59, 71 and 48 examples per class:
wine = pd.read_csv(files("bacc") / "data" / "wine_cv_predictions.csv")
ev_wine = bacc.evaluate(wine["true"], wine["knn_unscaled"])
fig = plot_confusion(ev_wine, normalize=False, title="k-NN on the wine data: counts")

plt.show()
