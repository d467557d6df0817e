"""
Hundreds of detectors at once: ``evaluate_many``
================================================

An operator runs 300 detectors, each checked on its own labelled sample: a few hundred
negatives and between 5 and 60 positives. Which ones need attention?
:func:`bacc.evaluate_many` evaluates every confusion matrix in one batch (the numbers of
:func:`bacc.evaluate`, computed together), and a forest plot
(:func:`bacc.display.plot.plot_forest`) shows the few that stand out.
"""

# %%
# Simulated counts
# ----------------
# A stack of confusion matrices of shape (groups, classes, classes), rows = true class.
# Most detectors have class accuracies around 0.9; ``det017`` misses 40% of its
# positives.
import matplotlib.pyplot as plt
import numpy as np

import bacc
from bacc.display.plot import plot_forest

rng = np.random.default_rng(0)
n_groups = 300
names = [f"det{i:03d}" for i in range(n_groups)]
accuracy = rng.beta(40, 4, size=(n_groups, 2))  # per detector: negatives, positives
accuracy[17] = [0.9, 0.6]
negatives = rng.integers(100, 400, n_groups)
positives = rng.integers(5, 60, n_groups)
stack = np.zeros((n_groups, 2, 2), dtype=int)
for g in range(n_groups):
    tn = rng.binomial(negatives[g], accuracy[g, 0])
    tp = rng.binomial(positives[g], accuracy[g, 1])
    stack[g] = [[tn, negatives[g] - tn], [positives[g] - tp, tp]]

# %%
# One call for all
# ----------------
# ``print`` shows the first and last groups; ``to_pandas`` gives one row per group:
# sample and posterior balanced accuracy, credible and exact intervals, P(> chance) and
# the class supports.
batch = bacc.evaluate_many(stack, groups=names, progress=False)
print(batch)
table = batch.to_pandas()
print(table.columns.tolist())

# %%
# Which need attention?
# ---------------------
# Two different questions. The lowest posterior means are the detectors that probably
# perform worst. The lowest exact lower bounds also include detectors that may be fine
# but were checked on too few positives to tell: they need labels rather than repair.
cols = ["group", "posterior_mean", "exact_lower", "support_1"]
worst = table.nsmallest(6, "posterior_mean")
print(worst[cols].to_string(index=False))
print()
print(table.nsmallest(6, "exact_lower")[cols].to_string(index=False))

# %%
# A forest plot of the worst
# --------------------------
# :func:`bacc.display.plot.plot_forest` takes evaluations: the few detectors of interest
# are evaluated one by one (the numbers equal the batch's) with their exact intervals,
# and drawn beside a typical detector for reference.
chosen = list(worst["group"]) + ["det000"]
evaluations = {name: bacc.evaluate(stack[names.index(name)]) for name in chosen}
exact = [ev.exact_interval() for ev in evaluations.values()]
fig = plot_forest(evaluations, exact=exact, sort=True,
                  title="the six lowest posterior means")

# %%
# The batch and the single evaluation agree:
ev = evaluations["det017"]
row = table.set_index("group").loc["det017"]
print(f"evaluate: {ev.balanced_accuracy_summary.mean:.10f}")
print(f"batch:    {row.posterior_mean:.10f}")

plt.show()
