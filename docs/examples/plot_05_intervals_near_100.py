"""
A perfect score on a small test set: exact, credible and approximate intervals
==============================================================================

A detector got all 42 examples of its test set right: 30 of class ``YES``, 12 of class
``NO``. "100% accuracy" is what it did on these examples, not what it will do. Which
interval should be reported? This example compares the exact bounds (Sandler & Dirac
(2024)), the posterior credible interval and the normal (Wald) approximation that many
reports still use, then measures how often each keeps its promise with
:func:`bacc.coverage`.
"""

# %%
# The evaluation
# --------------
import json
from importlib.resources import files

import matplotlib.pyplot as plt

import bacc
from bacc.display.plot import plot_class_accuracies

data = json.loads((files("bacc") / "data" / "paper_examples.json").read_text())
perfect = next(e for e in data["examples"] if e["short"] == "perfect")
cm = bacc.ConfusionMatrix(perfect["counts"], labels=perfect["labels"])
ev = bacc.evaluate(cm)
print(ev)

# %%
# The posterior mean is 0.949, not 1: a class whose true accuracy is 0.9 still gets 12
# out of 12 right in 28% of test sets (0.9 to the 12th power).
#
# Every interval at once
# ----------------------
# :func:`bacc.exact_interval` gives bounds that hold on at least 95% of test sets
# (``iv.guaranteed`` is True); :func:`bacc.approx_interval` gives the approximate ones,
# labelled as such. The Wald interval collapses to the single point 1.
intervals = {
    "exact: union bound": bacc.exact_interval(cm),
    "exact: Buehler": bacc.exact_interval(cm, method="buehler"),
    "approximate: Wald": bacc.approx_interval(cm, method="wald"),
    "approximate: Wilson": bacc.approx_interval(cm, method="wilson"),
}
for name, iv in intervals.items():
    print(f"{name:22s} [{iv.lower:.4f}, {iv.upper:.4f}]  guaranteed: {iv.guaranteed}")
s = ev.balanced_accuracy_summary
print(f"{'credible (posterior)':22s} [{s.lower:.4f}, {s.upper:.4f}]")

# %%
# Near 100% the question is usually "how low could it be?": a one-sided lower bound
# spends the whole 5% on that side and is higher than the lower end of a two-sided
# interval.
low = bacc.exact_interval(cm, sides="lower")
print(f"exact 95% lower bound: {low.lower:.4f}")
print(f"P(balanced accuracy > 0.9) = {ev.balanced_accuracy.p_above(0.9):.3f}")

# %%
# The figure of the exact bounds
# ------------------------------
# :func:`bacc.display.plot.plot_class_accuracies` draws the exact interval of the
# balanced accuracy and of each class (bars), with the credible interval as a thin line
# below.
fig = plot_class_accuracies(ev, title="42 of 42 right")

# %%
# A picture of the intervals side by side (plain matplotlib, from the numbers above):
fig, ax = plt.subplots(figsize=(5.2, 2.6), layout="constrained")
rows = [(name, iv.lower, iv.upper) for name, iv in intervals.items()]
rows.append(("credible (posterior)", s.lower, s.upper))
for y, (name, lo, hi) in enumerate(reversed(rows)):
    colour = "#e67e22" if name.startswith("exact") else "#7f8c8d"
    ax.plot([lo, hi], [y, y], lw=4, color=colour)
    ax.plot([lo, hi], [y, y], "|", color="black", ms=10)
ax.set_yticks(range(len(rows)), [r[0] for r in reversed(rows)])
ax.set_xlabel("balanced accuracy, 95% two-sided interval")
ax.spines[["top", "right"]].set_visible(False)

# %%
# Which intervals keep their promise?
# -----------------------------------
# :func:`bacc.coverage` simulates many test sets of the same sizes from a classifier
# whose true class accuracies are known (here 0.98 and 0.95) and counts how often each
# method's interval contains the true balanced accuracy. Only the exact method keeps its
# 95% promise; the Wald interval covers the truth in about 70% of test sets.
cov = bacc.coverage(["union", "wald", "bayes"], class_sizes=[30, 12],
                    true_class_accuracies=[0.98, 0.95], n_simulations=20_000,
                    random_state=0)
print(cov)

plt.show()
