"""
Across data sets: compare two classifiers and rank four
=======================================================

Four scikit-learn classifiers were cross-validated on twelve data sets of 40 to 3 000
examples (their out-of-fold predictions ship with bacc). Which is better on data sets
like these, and how sure can we be? :func:`bacc.compare_across` and
:func:`bacc.rank_across` answer for the population of data sets, from each data set's
confusion matrices: a data set of 40 examples counts for less than one of 3 000, and a
classifier's advantage may vary from one data set to the next. The user guide page
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
# The posterior of the difference
# -------------------------------
# ``c.difference`` (the population difference) and ``c.predictive`` (the difference on
# a new data set) are distribution objects. The common effect, which assumes the same
# difference on every data set, is a narrow spike close to zero, drawn as its 95 %
# interval: it is pulled to the largest data sets, where the two classifiers are close.
x = np.linspace(-0.45, 0.6, 801)
fe = c.fixed_effects
fig, ax = plt.subplots(figsize=(6.4, 3.6), layout="constrained")
ax.axvspan(-c.rope, c.rope, color="0.85", label=f"rope ±{c.rope:g}")
ax.plot(x, c.difference.pdf(x), color="tab:green", lw=2, label="population difference")
ax.fill_between(x, c.difference.pdf(x), where=(x >= c.lower) & (x <= c.upper),
                color="tab:green", alpha=0.2, label="its 95 % interval")
ax.plot(x, c.predictive.pdf(x), color="tab:purple", ls="--", label="on a new data set")
top = ax.get_ylim()[1]
ax.errorbar(fe["mean"], 0.92 * top, xerr=1.96 * fe["sd"], fmt="o", color="tab:blue",
            capsize=3, label="common effect (pooled)")
ax.set_xlabel("balanced accuracy: knn − logistic regression")
ax.set_ylabel("density")
ax.set_title(f"P(knn better by more than the rope) = {c.p_right:.3f}")
ax.legend(fontsize=8, loc="upper right")

# %%
# Every data set, alone and under the model
# -----------------------------------------
# Grey: the difference on each data set from its examples alone (mean ± 1.96 sd).
# Green: the shrunken difference under the model, informed by every data set. The band
# is the population difference's 95 % interval. Small data sets have wide grey bars and
# are pulled towards the population; ``circles_n200``, where logistic regression is at
# chance (a linear model cannot separate two circles), stands far from the rest.
sets = sorted(c.data_set_differences, key=lambda d: d.n_examples)
y = np.arange(len(sets))
fig, ax = plt.subplots(figsize=(6.4, 5.2), layout="constrained")
ax.axvspan(c.lower, c.upper, color="tab:green", alpha=0.12)
ax.axvline(c.mean, color="tab:green", lw=1)
ax.axvline(0, color="0.5", lw=0.8)
ax.errorbar([d.mean for d in sets], y + 0.15, xerr=[1.96 * d.sd for d in sets], fmt="o",
            color="0.55", ms=4, capsize=2, label="this data set alone")
shr = np.array([[d.shrunken_mean, d.shrunken_lower, d.shrunken_upper] for d in sets])
ax.errorbar(shr[:, 0], y - 0.15, xerr=[shr[:, 0] - shr[:, 1], shr[:, 2] - shr[:, 0]],
            fmt="s", color="tab:green", ms=4, capsize=2, label="shrunken (the model)")
ax.set_yticks(y, [f"{d.data_set} ({d.n_examples})" for d in sets], fontsize=8)
ax.set_xlabel("balanced accuracy: knn − logistic regression")
ax.legend(fontsize=8, loc="lower right")

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
# The probability of each rank
# ----------------------------
# One bar per classifier, from best to worst expected rank: the share of each colour is
# the posterior probability of that rank in the population of data sets.
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

# %%
# Critical-difference diagram: the posterior and the classical one
# -----------------------------------------------------------------
# Top: the expected ranks, with a bar under each group that the data sets cannot tell
# apart (no pair in it has P(better) ≥ 0.95 either way, ``r.groups``). Bottom: the
# classical diagram of Demšar (2006): average ranks of the sample balanced accuracies,
# with Nemenyi's critical difference; classifiers closer than it are not significantly
# different. The classical ranks count every data set once whatever its size.
t = r.classical
fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.4, 4.2), layout="constrained",
                                  sharex=True)
for ax, ranks, colour in ((top, r.expected_rank, "tab:green"),
                          (bottom, t.average_ranks, "tab:blue")):
    for level, i in enumerate(np.argsort(ranks)):  # labels staggered from left to right
        ax.plot(ranks[i], 0, "o", color=colour)
        ax.annotate(r.names[i], (ranks[i], 0), xytext=(0, 6 + 11 * (level % 3)),
                    textcoords="offset points", ha="center", fontsize=8)
for level, group in enumerate(r.groups):
    ranks = [r.expected_rank[r.names.index(n)] for n in group]
    height = -0.3 - 0.2 * level
    top.plot([min(ranks), max(ranks)], [height, height], color="tab:green", lw=3)
start = min(t.average_ranks)
bottom.plot([start, start + t.critical_difference], [-0.3, -0.3], color="tab:blue",
            lw=3)
bottom.annotate(f"critical difference {t.critical_difference:.2f}", (start, -0.3),
                xytext=(0, -12), textcoords="offset points", fontsize=8)
top.set_title("expected rank in the population (bars: cannot be told apart)",
              fontsize=9)
bottom.set_title(f"average rank (Friedman p = {t.p_value:.3f}; Nemenyi)", fontsize=9)
for ax in (top, bottom):
    ax.set_ylim(-0.9, 1.0)
    ax.set_yticks([])
    ax.set_xlim(0.8, len(models) + 0.2)
bottom.set_xlabel("rank (1 = best)")

# %%
# Both put knn first, and neither separates it from the decision tree and naive Bayes.
# They disagree on logistic regression: second by average rank (it wins on the linear
# problems), last in the population, because the ranks do not see by how much it loses
# (at chance on ``circles_n200``). The posterior also gives how probable each order is,
# and how large the differences are in balanced accuracy (``r.effect``).
for i in order:
    print(f"{r.names[i]:20} effect {r.effect[i]:+.3f} "
          f"[{r.effect_lower[i]:+.3f}, {r.effect_upper[i]:+.3f}], "
          f"P(best) {r.p_best[i]:.3f}")

plt.show()
