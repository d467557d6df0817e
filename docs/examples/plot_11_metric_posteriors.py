"""
Posteriors of other metrics: F1, kappa, Matthews and your own
=============================================================

The balanced accuracy is not the only number people report.
:func:`bacc.posterior_metric` gives the posterior of every metric of :mod:`bacc.metrics`
beside its sample value, and of any function of the cell probabilities you write, under
an explicit sampling design. It is exact where a closed form or a one-dimensional
integral exists and Monte Carlo otherwise, with the Monte Carlo errors reported.

The data are the out-of-fold predictions of a k-nearest-neighbour classifier on
scikit-learn's bundled wine data (3 classes, 178 examples), shipped with bacc.
"""

# %%
# Several metrics of one confusion matrix
# ---------------------------------------
from importlib.resources import files

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import bacc

wine = pd.read_csv(files("bacc") / "data" / "wine_cv_predictions.csv")
cm = bacc.ConfusionMatrix.from_predictions(wine["true"], wine["knn_unscaled"])
names = ["balanced_accuracy", "accuracy", "macro_f1", "cohen_kappa", "matthews"]
posteriors = {name: bacc.posterior_metric(cm, name) for name in names}
for post in posteriors.values():
    print(post)

# %%
# Each result says how it was computed: the balanced accuracy is exact (a sum of Beta
# posteriors), the others are Monte Carlo with as many draws as it takes for the
# standard errors of the mean, median and interval ends to fall below ``mc_error`` (1e-3
# by default). The errors are in ``mc_se``:
print({k: f"{v:.1e}" for k, v in posteriors["matthews"].mc_se.items()})

# %%
# Per-class metrics
# -----------------
# Recall, precision and F1 belong to a class. Without ``label`` the result is one
# posterior per class.
for post in bacc.posterior_metric(cm, "recall"):
    interval = f"[{post.lower:.3f}, {post.upper:.3f}]"
    print(f"recall of {post.label}: {post.mean:.3f} {interval}")

# %%
# Your own metric
# ---------------
# A function of the cell probabilities ``P`` (an array of shape ``(n, l, l)``, rows =
# true class) returning ``n`` values. Here the accuracy of the worst class, a number to
# report when every class must work:
def worst_class_recall(P):
    recalls = np.einsum("nii->ni", P) / P.sum(axis=2)
    return recalls.min(axis=1)


worst = bacc.posterior_metric(cm, worst_class_recall)
print(worst)

# %%
# The sampling design
# -------------------
# ``design="stratified"`` (the default) treats the class totals of the test set as
# fixed; ``design="random"`` treats the test set as a random sample of the population,
# so that the class shares are uncertain too. Metrics that depend on the class shares,
# such as Matthews' correlation, get a slightly wider interval.
for design in ("stratified", "random"):
    post = bacc.posterior_metric(cm, "matthews", design=design)
    interval = f"[{post.lower:.3f}, {post.upper:.3f}]"
    print(f"matthews, {design:10s}: {post.mean:.3f} {interval}")

# %%
# A picture of the intervals
# --------------------------
# The metrics live on different scales (kappa and Matthews' correlation are 0 at
# chance), so a plain matplotlib chart of sample values and credible intervals is
# enough.
rows = list(posteriors.values()) + [worst]
fig, ax = plt.subplots(figsize=(5.2, 3.0), layout="constrained")
for y, post in enumerate(reversed(rows)):
    ax.hlines(y, post.lower, post.upper, color="#1e8449", lw=2.2)
    ax.plot(post.mean, y, "o", color="#1e8449", ms=5)
    ax.plot(post.sample, y, "x", color="#222222", ms=5)
ax.set_yticks(range(len(rows)), [post.metric for post in reversed(rows)])
ax.set_xlabel("posterior mean (dot), 95% credible interval, sample value (cross)")
ax.spines[["top", "right"]].set_visible(False)

plt.show()
