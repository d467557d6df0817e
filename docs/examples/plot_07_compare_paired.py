"""
Two classifiers on the same test set: a paired comparison
=========================================================

When two classifiers predict the same examples, their errors are correlated: both get
the easy examples right and both miss some hard ones. Treating the two evaluations as
independent throws that information away and gives a wider posterior of the difference.
:func:`bacc.compare_paired` uses the joint posterior of the four outcomes of each
example (both right, only A right, only B right, both wrong) and adds the exact McNemar
test.

The data are the out-of-fold predictions of four classifiers on scikit-learn's bundled
digits data (10 classes, 1 797 examples), shipped with bacc. All models were scored on
the same folds.
"""

# %%
# Paired comparison
# -----------------
from importlib.resources import files

import matplotlib.pyplot as plt
import pandas as pd

import bacc

digits = pd.read_csv(files("bacc") / "data" / "digits_cv_predictions.csv")
y = digits["true"]
paired = bacc.compare_paired(y, digits["logistic_regression"], digits["knn"], rope=0.01,
                             names=("logistic", "k-NN"))
print(paired)

# %%
# The k-nearest-neighbour classifier is better by about 1.6 points, and by more than the
# rope of one point with probability 0.93. The McNemar test counts the examples on which
# exactly one of the two was right.
print(paired.mcnemar)

# %%
# :meth:`bacc.Comparison.plot` draws the posterior of the difference with the rope band:
fig = paired.plot()

# %%
# What pairing gains
# ------------------
# The same two models compared as if their test sets were independent
# (:func:`bacc.compare` on their two confusion matrices): the marginal posteriors are
# the same (``compare_paired``'s default prior makes them equal to the flat-prior
# posteriors of :func:`bacc.evaluate`), only the correlation is ignored. The interval of
# the difference is wider by about a third, and P(logistic > k-NN) is forty times
# larger.
ev_lr = bacc.evaluate(y, digits["logistic_regression"])
ev_knn = bacc.evaluate(y, digits["knn"])
independent = bacc.compare(ev_lr, ev_knn, rope=0.01, names=("logistic", "k-NN"))
for name, c in (("paired", paired), ("independent", independent)):
    print(f"{name:12s} difference {c.mean:+.4f} [{c.lower:+.4f}, {c.upper:+.4f}]  "
          f"P(logistic > k-NN) = {c.p_better:.2g}")

# %%
# The independent posterior, drawn with :func:`bacc.display.plot.plot_difference` on the
# same kind of axes, is visibly wider:
from bacc.display.plot import plot_difference

fig = plot_difference(independent, title="the same models, pairing ignored")

# %%
# A large difference
# ------------------
# On the wine data the unscaled k-NN loses a third of its balanced accuracy to a
# logistic regression on standardised features: the comparison is certain, and the
# McNemar test agrees.
wine = pd.read_csv(files("bacc") / "data" / "wine_cv_predictions.csv")
big = bacc.compare_paired(wine["true"], wine["logistic_regression"],
                          wine["knn_unscaled"])
print(big)

plt.show()
