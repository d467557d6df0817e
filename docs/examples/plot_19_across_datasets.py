"""
Across data sets: compare two classifiers and rank four
=======================================================

Four scikit-learn classifiers were cross-validated on twelve data sets of 40 to 3 000
examples (their out-of-fold predictions ship with bacc). Which is better on data sets
like these, and how sure can we be? :func:`bacc.compare_across` and
:func:`bacc.rank_across` answer for the population of data sets, from each data set's
confusion matrices: a data set of 40 examples counts for less than one of 3 000, and a
classifier's advantage may vary from one data set to the next. The figures are drawn by
:func:`bacc.display.across_plot.plot_across_comparison` and
:func:`bacc.display.across_plot.plot_across_ranking`; the user guide page
:doc:`/guide/across` explains the model.
"""

# %%
# The data: one row per example, a column naming its data set
# ------------------------------------------------------------
from importlib.resources import files

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import bacc
from bacc.display.across_plot import plot_across_comparison, plot_across_ranking

df = pd.read_csv(files("bacc") / "data" / "across_cv_predictions.csv")
models = ["naive_bayes", "decision_tree", "logistic_regression", "knn"]
print(df.groupby("dataset").size().sort_values().to_string())

# %%
# Two classifiers: k-nearest neighbours against logistic regression
# -----------------------------------------------------------------
# The two columns predicted the same examples, so within each data set they are compared
# under their joint (paired) posterior. ``print`` shows the population difference, the
# difference on a new data set, the common-effect answer that pooling gives, every data
# set's own and shrunken difference, Wilcoxon's test beside, and a verdict.
c = bacc.compare_across(df, true="true", pred=["knn", "logistic_regression"],
                        across="dataset")
print(c)

# %%
# The comparison, drawn
# ---------------------
# Top: the posterior density of the population difference (``c.difference``) with the
# region of practical equivalence, and the difference on a new data set (dashed,
# ``c.predictive``), much wider: the difference varies between data sets more than any
# one data set's uncertainty. Below: each data set's own difference (grey, from its
# examples alone) and its shrunken difference under the model (green), informed by every
# data set. Small data sets are pulled towards the population; ``circles_n200``, where
# logistic regression is at chance (a linear model cannot separate two circles), stands
# far from the rest.
fig = plot_across_comparison(c)

# %%
# What pooling would say
# ----------------------
# The common effect assumes the same difference on every data set: its mean is pulled to
# the largest data sets, where the two classifiers are close, and its sd is a small
# fraction of the population's, so it is sure of a difference it places near zero. It
# answers for these pooled examples, not for data sets.
fe = c.fixed_effects
print(f"population:    {c.mean:+.4f}, sd {c.difference.std():.4f}, "
      f"P(knn better) {c.p_better:.3f}")
print(f"common effect: {fe['mean']:+.4f}, sd {fe['sd']:.4f}, "
      f"P(knn better) {fe['p_better']:.3f}")

# %%
# Four classifiers ranked
# -----------------------
# :func:`bacc.rank_across` fits the same model to all four: expected ranks (exact),
# P(best) and the probability of every rank (from draws of the exact posterior), each
# classifier's effect relative to their average, every pair, the groups that the twelve
# data sets cannot tell apart, and Friedman's test with Nemenyi's critical difference.
r = bacc.rank_across(df, true="true", pred=models, across="dataset", n_draws=50_000)
print(r)

# %%
# The ranking, drawn
# ------------------
# In place of a critical-difference diagram (Demšar 2006): one row per classifier from
# the best expected rank, the probability of each rank as the area of a grey dot, the
# expected rank as a green diamond, P(best) on the right, bars joining the classifiers
# that the data sets cannot tell apart (``r.groups``), and, for reference, the classical
# average ranks (crosses) with Nemenyi's critical difference.
fig = plot_across_ranking(r)

# %%
# Both orders put knn first, and neither separates it from the decision tree and naive
# Bayes. They disagree on logistic regression: second by average rank (it wins on the
# linear problems), last in the population, because the ranks do not see by how much it
# loses (at chance on ``circles_n200``). The posterior also says how large the
# differences are, in balanced accuracy (``r.effect``):
for i in r.order:
    print(f"{r.names[i]:20} effect {r.effect[i]:+.3f} "
          f"[{r.effect_lower[i]:+.3f}, {r.effect_upper[i]:+.3f}], "
          f"P(best) {r.p_best[i]:.3f}")

# %%
# A figure of your own
# --------------------
# Every number drawn is an attribute of the result. Here the rank probabilities
# (``r.rank_probabilities``, one row per classifier in ``r.names``) as stacked bars.
order = list(r.order)
colours = plt.cm.viridis(np.linspace(0.15, 0.9, len(models)))
fig, ax = plt.subplots(figsize=(6.4, 3.0), layout="constrained")
left = np.zeros(len(order))
for k in range(len(models)):
    p = r.rank_probabilities[order, k]
    ax.barh(range(len(order)), p, left=left, color=colours[k], label=f"rank {k + 1}")
    left += p
labels = [f"{r.names[i]}  E[rank] {r.expected_rank[i]:.2f}" for i in order]
ax.set_yticks(range(len(order)), labels, fontsize=8)
ax.invert_yaxis()
ax.set_xlim(0, 1)
ax.set_xlabel("posterior probability")
ax.legend(ncols=4, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.25))

plt.show()
