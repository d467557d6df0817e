"""
Many subjects: the population balanced accuracy
===============================================

A classifier was trained and tested separately in each of 16 subjects (sessions, sites,
cameras or patients). Summing their confusion matrices says how it did on these
subjects' pooled examples (fixed effects) and is overconfident when subjects differ. The
question one usually means is how good it is in the population the subjects come from:
the mixed-effects answer of Brodersen et al. (2012, 2013), computed exactly by
:func:`bacc.population` and drawn by :func:`bacc.display.plot.plot_population`.
"""

# %%
# Simulated subjects
# ------------------
# Each subject has its own class accuracies (logits drawn from a normal law centred on
# 1.6, an accuracy of 0.83) and its own number of examples, 35% of them positive. The
# data are labels, predictions and a subject column, as they would come from a table.
import matplotlib.pyplot as plt
import numpy as np

import bacc
from bacc.display.plot import plot_population

rng = np.random.default_rng(0)
y_true, y_pred, subject = [], [], []
for s in range(16):
    n = int(rng.integers(30, 120))
    accuracy = 1 / (1 + np.exp(-rng.normal(1.6, 0.6, size=2)))  # per class
    y = (rng.random(n) < 0.35).astype(int)
    right = rng.random(n) < accuracy[y]
    y_true += list(y)
    y_pred += list(np.where(right, y, 1 - y))
    subject += [f"s{s + 1:02d}"] * n

# %%
# The population posterior
# ------------------------
# ``print`` shows the population balanced accuracy, that of a new subject, the pooled
# (fixed-effects) answer beside them, a one-sentence verdict, the per-class population
# accuracies with the spread between subjects, and every subject's own and shrunken
# posterior.
pop = bacc.population(y_true, y_pred, groups=subject)
print(pop)

# %%
# The population interval is about twice as wide as the pooled one: the subjects differ
# more than their numbers of examples explain. A new subject's balanced accuracy is
# wider still.
lo, hi = pop.balanced_accuracy.interval(0.95)
print(f"population: {pop.summary.mean:.3f} [{lo:.3f}, {hi:.3f}]")
p = pop.predictive
print(f"a new subject: {p.mean:.3f} [{p.lower:.3f}, {p.upper:.3f}]")
f = pop.fixed_effects
print(f"pooled: {f.mean:.3f} [{f.lower:.3f}, {f.upper:.3f}]")

# %%
# The figure
# ----------
# Top: the posterior density of the population balanced accuracy, its 95% interval
# shaded and the pooled interval as a blue bar. Bottom: each subject's own interval
# (grey) and its shrunken interval under the model (green), pulled towards the
# population mean, most for the subjects with the fewest examples.
fig = plot_population(pop)

# %%
# Which model?
# ------------
# The default model is normal-binomial (logit accuracies normal across subjects, as in
# the R package ``micp``); ``model="beta-binomial"`` is that of Brodersen et al. (2012).
# The log evidence compares them: a difference of 4 favours the normal-binomial model
# here, as it should, since the data were simulated from it.
pop_bb = bacc.population(y_true, y_pred, groups=subject, model="beta-binomial")
print(f"log evidence: normal-binomial {pop.log_evidence:.2f}, "
      f"beta-binomial {pop_bb.log_evidence:.2f}")

# %%
# Counts instead of labels
# ------------------------
# With only counts at hand, give the correct and total examples per class (rows) and
# subject (columns). This is the example of the ``micp`` package with five subjects: its
# variational answer is overconfident, the exact one here is 1.7 times as wide. The
# verdict explains why the pooled answer must not be reported.
k = [[40, 44, 18, 42, 44], [48, 41, 65, 49, 32]]
n = [[45, 51, 20, 46, 48], [55, 49, 80, 54, 32]]
small = bacc.population(correct=k, totals=n)
print(small.verdict)
fig = plot_population(small, width=4.2)

plt.show()
