"""
Priors and class weights
========================

The posterior balanced accuracy of :func:`bacc.evaluate` starts from a flat prior,
Beta(1, 1), on each class accuracy, and weighs the classes equally. Both can be changed:
Jeffreys' prior, a prior guess worth a number of examples, and class weights for a
cost-weighted balanced accuracy (Brodersen et al. (2010)). This example shows how much
each choice moves the answer for a detector with 100 negatives and only 10 positives,
and draws them side by side with :func:`bacc.display.plot.plot_forest`.
"""

# %%
# The same matrix, four ways
# --------------------------
# Labels name the classes; per-class options given as a mapping are aligned by label.
import matplotlib.pyplot as plt

import bacc
from bacc.display.plot import plot_forest

cm = bacc.ConfusionMatrix([[95, 5], [2, 8]], labels=["neg", "pos"])
variants = {
    "flat prior (default)": bacc.evaluate(cm),
    "Jeffreys' prior": bacc.evaluate(cm, prior="jeffreys"),
    "prior guess for pos": bacc.evaluate(cm, prior={"neg": (1, 1), "pos": (9, 1)}),
    "weights 0.7 / 0.3": bacc.evaluate(cm, weights={"neg": 0.7, "pos": 0.3}),
}
for name, ev in variants.items():
    s = ev.balanced_accuracy_summary
    print(f"{name:22s} {s.mean:.3f} [{s.lower:.3f}, {s.upper:.3f}]")

# %%
# With 10 positives the prior matters: Jeffreys' prior, Beta(1/2, 1/2), pulls less
# towards 1/2 than the flat prior, and a prior guess of Beta(9, 1) for the positives
# (about 0.9, worth 10 examples, as many as the data) moves the mean by five points.
# State the prior with the result; the first lines of every printed table do.
print(variants["prior guess for pos"])

# %%
# Weights
# -------
# A cost-weighted balanced accuracy weighs each class accuracy by the cost of its
# errors: here a missed negative counts 0.7 and a missed positive 0.3. ``weights`` given
# as a list follow the class order; the result is the same.
same = bacc.evaluate(cm, weights=[0.7, 0.3])
by_label = variants["weights 0.7 / 0.3"]
print(same.balanced_accuracy_summary == by_label.balanced_accuracy_summary)

# %%
# The forest plot
# ---------------
# Every variant on one axis, each with its exact interval (the exact interval depends on
# the weights but not on the prior).
exact = [ev.exact_interval() for ev in variants.values()]
fig = plot_forest(variants, exact=exact, title="one matrix, four analyses")

# %%
# The posterior with a prior can be computed on its own too, without the rest of the
# evaluation: :func:`bacc.posterior_balanced_accuracy` returns the distribution object.
post = bacc.posterior_balanced_accuracy(cm, prior="jeffreys")
print(f"P(balanced accuracy > 0.8) = {post.p_above(0.8):.3f}")

plt.show()
