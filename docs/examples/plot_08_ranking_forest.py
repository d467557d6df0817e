"""
Ranking several classifiers: forest plot and pairwise probabilities
===================================================================

Four models were cross-validated on the same examples of scikit-learn's bundled digits
data (naive Bayes, a decision tree, a logistic regression and k-nearest neighbours; the
predictions ship with bacc). Which is best, and how sure can we be of the order?
:func:`bacc.display.plot.plot_forest` shows every model's balanced accuracy on one axis,
and :func:`bacc.rank_paired` ranks them under their joint posterior.
"""

# %%
# Evaluate every model
# --------------------
from importlib.resources import files

import matplotlib.pyplot as plt
import pandas as pd

import bacc
from bacc.display.plot import plot_forest

digits = pd.read_csv(files("bacc") / "data" / "digits_cv_predictions.csv")
models = ["naive_bayes", "decision_tree", "logistic_regression", "knn"]
evaluations = {m: bacc.evaluate(digits["true"], digits[m]) for m in models}
for name, ev in evaluations.items():
    s = ev.balanced_accuracy_summary
    print(f"{name:20s} {s.mean:.4f} [{s.lower:.4f}, {s.upper:.4f}]")

# %%
# The forest plot
# ---------------
# One row per model: the dot is the posterior mean, the green line the 95% credible
# interval, the pale bar the exact 95% interval (when given) and the cross the sample
# value. ``sort=True`` puts the best at the top.
exact = [ev.exact_interval() for ev in evaluations.values()]
fig = plot_forest(evaluations, exact=exact, sort=True,
                  title="digits, 5-fold cross-validation")

# %%
# The exact intervals of ten classes are wide (a union bound over ten classes) and
# overlap for the last two models. Overlapping intervals do not answer "which is
# better?": the ranking does.
#
# Rank on the same test set
# -------------------------
# The four models predicted the same examples, so :func:`bacc.rank_paired` uses the
# joint posterior of their outcomes: every pairwise probability P(row > column) is
# exactly that of :func:`bacc.compare_paired`, and P(best) and the expected rank come
# from joint draws with their Monte Carlo errors.
ranking = bacc.rank_paired(digits["true"], {m: digits[m] for m in models},
                           n_draws=20_000)
print(ranking)

# %%
# The order of the top two is certain; the decision tree beats naive Bayes with
# probability 0.80 only. The numbers are attributes of the result:
best = zip(ranking.names, ranking.p_best, ranking.expected_rank, strict=True)
for name, p, r in best:
    print(f"{name:20s} P(best) {p:.4f}   expected rank {r:.3f}")

# %%
# Separate test sets
# ------------------
# Classifiers evaluated on different test sets have independent posteriors:
# :func:`bacc.rank` takes their evaluations (or confusion matrices), as Carrillo et al.
# (2014) do. Here three detectors were each checked on their own labelled sample.
detectors = {
    "A": bacc.evaluate([[42, 3], [6, 4]]),
    "B": bacc.evaluate([[40, 5], [3, 7]]),
    "C": bacc.evaluate([[30, 15], [2, 8]]),
}
print(bacc.rank(detectors, n_draws=20_000))
fig = plot_forest(detectors, exact=[ev.exact_interval() for ev in detectors.values()])

plt.show()
