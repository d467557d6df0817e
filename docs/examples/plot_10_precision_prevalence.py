"""
Precision at the prevalence the classifier will meet
====================================================

A test set was built with 2 000 negatives and 50 positives: 2.4% positives. In
deployment, positives are much rarer, say 0.425%. Sensitivity and specificity do not
depend on the prevalence; precision does, and a test set's precision says little about
the one users will see. :func:`bacc.posterior_metric` turns the test set's posteriors of
sensitivity and false-positive rate into the posterior of precision at any prevalence
(an exact one-dimensional integral), and
:func:`bacc.display.plot.plot_precision_prevalence` draws the curve to set an alarm
policy by.
"""

# %%
# Precision on the test set
# -------------------------
import matplotlib.pyplot as plt
import numpy as np

import bacc
from bacc.display.plot import plot_precision_prevalence
from bacc.metric_posterior import precision_curve

cm = [[1950, 50], [8, 42]]  # rows: true negative, true positive
on_test = bacc.posterior_metric(cm, "precision", label=1)
print(on_test)

# %%
# At the deployment prevalence
# ----------------------------
# ``prevalence=`` gives the share of the positive class the classifier will meet. Most
# alarms will be false: about 7 in 8.
deployed = bacc.posterior_metric(cm, "precision", label=1, prevalence=0.00425)
print(deployed)
lo, hi = deployed.interval()
print(f"median {deployed.median:.3f}, 95% credible [{lo:.3f}, {hi:.3f}]")

# %%
# An exact frequentist interval combines the Clopper-Pearson bounds of the two rates by
# a union bound (:func:`bacc.prevalence.precision_interval`):
lo, hi = bacc.prevalence.precision_interval(cm, 1, 0.00425)
print(f"exact 95% interval of the precision at 0.425%: [{lo:.3f}, {hi:.3f}]")

# %%
# The curve
# ---------
# :func:`bacc.metric_posterior.precision_curve` computes the posterior median, the
# central credible band and the exact interval over a grid of prevalences; the figure
# marks the test set's prevalence and the deployment one.
prevalences = np.geomspace(0.0005, 0.5, 40)
curve = precision_curve(cm, prevalences, label=1)
fig = plot_precision_prevalence(curve, prevalence=0.00425, test_prevalence=50 / 2050)

# %%
# Read it from right to left: at the test set's prevalence precision is about 0.45; at
# one positive in a thousand it is below 0.05. To promise a precision of 0.5 in
# deployment, this classifier needs positives to make up several percent of what it
# sees, or a lower false-positive rate.
#
# F1 and balanced precision
# -------------------------
# F1 depends on the prevalence through precision. Balanced precision is precision at a
# prevalence of 50%, a property of the classifier alone, comparable across test sets.
f1 = bacc.posterior_metric(cm, "f1", label=1, prevalence=0.00425)
bp = bacc.posterior_metric(cm, "balanced_precision", label=1)
print(f"F1 at 0.425%: {f1.median:.3f};  balanced precision: {bp.median:.3f}")

plt.show()
