"""
Several classes: which ones does the classifier get wrong?
==========================================================

With more than two classes, the balanced accuracy is the mean of the per-class
accuracies (recalls), and chance is one over the number of classes (Carrillo et al.
(2014)). A single number hides which class fails;
:func:`bacc.display.plot.plot_class_accuracies` shows each class beside the balanced
accuracy with exact bounds.

The data are the out-of-fold predictions of a k-nearest-neighbour classifier on
scikit-learn's bundled wine data (3 classes, 178 examples), computed on unscaled
features and shipped with bacc.
"""

# %%
# Evaluate from labels
# --------------------
# :func:`bacc.evaluate` accepts true and predicted labels directly; the classes are
# ordered naturally.
from importlib.resources import files

import matplotlib.pyplot as plt
import pandas as pd

import bacc
from bacc.display.plot import plot_class_accuracies

wine = pd.read_csv(files("bacc") / "data" / "wine_cv_predictions.csv")
ev = bacc.evaluate(wine["true"], wine["knn_unscaled"])
print(ev)

# %%
# The classifier is clearly better than chance (1/3), but ``class_2`` is recognised only
# a third of the time: on unscaled features one feature (proline) dominates the
# distance.
#
# Per-class accuracies with exact bounds
# --------------------------------------
# Each bar spans the exact 95% interval (Clopper-Pearson for a class, the union bound
# for the balanced accuracy), the mark is the sample value and the thin line below is
# the credible interval. The bounds of the classes hold each on its own.
fig = plot_class_accuracies(ev)

# %%
# Another model in the same file, a logistic regression on standardised features, has no
# weak class:
ev_lr = bacc.evaluate(wine["true"], wine["logistic_regression"])
fig = plot_class_accuracies(ev_lr, title="logistic regression, standardised features")

# %%
# The numbers behind the bars
# ---------------------------
# :meth:`bacc.Evaluation.class_intervals` gives the exact interval of each class and
# :meth:`bacc.Evaluation.exact_interval` that of the balanced accuracy.
for ci in ev.class_intervals():
    print(f"{ci.label}: {ci.correct}/{ci.support}  [{ci.lower:.3f}, {ci.upper:.3f}]")
print(ev.exact_interval())

# %%
# The posterior of the balanced accuracy of three classes has no closed form; bacc
# computes it deterministically. Its density, as in Carrillo et al. (2014), Fig. 3:
fig = ev.plot(measures=["balanced_accuracy"])

plt.show()
