"""
Is the new model better? Two classifiers on separate test sets
==============================================================

The old model was evaluated last year on 500 examples; the new one this year on a fresh
test set of 250. The two test sets are independent, so the two posteriors of the
balanced accuracy are independent too, and the posterior of their difference follows
exactly (Carrillo et al. (2014), eq. 14). :func:`bacc.compare` computes it
deterministically and :meth:`bacc.Comparison.plot` draws it (the same figure as
:func:`bacc.display.plot.plot_difference`).
"""

# %%
# Compare two confusion matrices
# ------------------------------
import matplotlib.pyplot as plt

import bacc

old = [[350, 30], [25, 95]]  # rows: true negative, true positive
new = [[185, 15], [6, 44]]
c = bacc.compare(new, old, names=("new", "old"))
print(c)

# %%
# The new model is better with posterior probability ``c.p_better``; the interval of the
# difference says by how much.
lo, hi = c.difference.interval(0.95)
print(f"P(new > old) = {c.p_better:.3f}")
print(f"difference {c.mean:+.3f} [{lo:+.3f}, {hi:+.3f}]")

# %%
# The figure shows the density of the difference, its central 95% interval, the mean and
# the line of no difference.
fig = c.plot()

# %%
# Better by enough to matter? A region of practical equivalence
# -------------------------------------------------------------
# A gain of half a point may not be worth a deployment. ``rope`` (region of practical
# equivalence) splits the posterior in three: worse by more than ``rope``, within
# ``rope``, better by more than ``rope``. The three probabilities sum to one.
c2 = bacc.compare(new, old, rope=0.02, names=("new", "old"))
print(f"P(new < old - 0.02)   = {c2.p_left:.3f}")
print(f"P(|new - old| <= 0.02) = {c2.p_rope:.3f}")
print(f"P(new > old + 0.02)   = {c2.p_right:.3f}")

# %%
# The band of practical equivalence is shaded in the figure, and its probability is in
# the title.
fig = c2.plot(title="new against old, rope 0.02")

# %%
# When the data cannot tell
# -------------------------
# A third model, tested on 250 examples, with about the old model's balanced accuracy:
# the posterior of the difference straddles zero, with a quarter to a half of its mass
# in each of the three regions. Neither "better" nor "equivalent within 0.02" can be
# claimed: the test set is too small for either. Report the three probabilities, not "no
# significant difference".
similar = [[178, 22], [8, 42]]
c3 = bacc.compare(similar, old, rope=0.02, names=("similar", "old"))
print(c3)
fig = c3.plot()

plt.show()
