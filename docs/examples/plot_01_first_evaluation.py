"""
First evaluation: reading the posterior balanced accuracy
==========================================================

A classifier was tested on 45 examples of one class and 10 of the other. It got 42 and 4
of them right. How good is it? This example evaluates the confusion matrix with
:func:`bacc.evaluate`, reads the printed table, takes the numbers out of the result and
draws the posterior with :meth:`bacc.Evaluation.plot` (the same figure as
:func:`bacc.display.plot.plot_posterior`).
"""

# %%
# Evaluate a confusion matrix
# ---------------------------
# Rows are the true class, columns the predicted class. ``print`` shows the table that
# the ``bacc evaluate`` command prints: sample values, the posterior summaries with
# their central credible intervals, and the exact (frequentist) intervals beside them.
import matplotlib.pyplot as plt

import bacc

ev = bacc.evaluate([[42, 3], [6, 4]])
print(ev)

# %%
# The accuracy (0.84) looks good, but it mostly reflects the large class: the second
# class is recognised 4 times out of 10. The balanced accuracy, the mean of the
# per-class accuracies, is 0.67, and its credible interval is wide because 10 examples
# say little.
#
# Numbers for a report
# --------------------
# ``ev.balanced_accuracy`` is a distribution object with the ``scipy.stats`` frozen
# interface. Report the posterior mean (or median) with a 95% interval, and the
# probability that the classifier is better than chance.
ba = ev.balanced_accuracy
print(f"mean {ba.mean():.3f}, median {ba.median():.3f}, mode {ba.mode():.3f}")
lo, hi = ba.interval(0.95)
print(f"95% central interval [{lo:.4f}, {hi:.4f}]")
lo, hi = ba.interval(0.95, kind="hdi")
print(f"95% highest-density interval [{lo:.4f}, {hi:.4f}]")
print(f"P(balanced accuracy > {ev.chance}) = {ev.p_above_chance:.4f}")

# %%
# The same numbers, computed together, are in ``ev.balanced_accuracy_summary``;
# ``to_dict`` gives plain values to store as JSON.
s = ev.balanced_accuracy_summary
print(f"{s.mean:.4f} [{s.lower:.4f}, {s.upper:.4f}] at {s.confidence:.0%}")
print(sorted(ev.to_dict()))

# %%
# The picture
# -----------
# :meth:`bacc.Evaluation.plot` draws the posterior density of the balanced accuracy and
# of the accuracy on a shared axis (Brodersen et al. (2010), Fig. 2): the shaded band is
# the central 95% credible interval, the vertical lines mark the mean, median and mode,
# and the dash-dot line is chance. The accuracy sits far to the right of the balanced
# accuracy: it rewards a classifier for predicting the large class.
fig = ev.plot()

# %%
# One panel only, with a title (``measures`` and ``title`` are passed on to
# :func:`bacc.display.plot.plot_posterior`):
from bacc.display.plot import plot_posterior

fig = plot_posterior(ev, measures=["balanced_accuracy"], title="42/45 and 4/10 correct")

# %%
# Showing and saving the figures
# ------------------------------
# Each function returns a ``matplotlib`` figure: ``fig.savefig("posterior.png")`` writes
# it. When ``matplotlib.pyplot`` has been imported, as at the top of this script, bacc
# creates its figures through it, so ``plt.show()`` opens them in windows when the
# script runs, and a notebook shows them below the cell.
plt.show()
