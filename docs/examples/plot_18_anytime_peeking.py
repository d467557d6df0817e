"""
Watching a stream of labels: a confidence sequence beside the fixed-n interval
==============================================================================

Labels arrive one at a time and the accuracy is on a dashboard, refreshed after every
label. The exact interval of a fixed sample size (Clopper-Pearson for the accuracy, the
union bound for the balanced accuracy) is valid at one look chosen in advance; read at
every look, it wanders outside the truth now and then. A confidence sequence
(:func:`bacc.confidence_sequence`) holds at every look at once. This example simulates a
stream whose true accuracy is known, draws both with
:func:`bacc.display.plot.plot_sequence`, and counts the looks where each excludes the
truth. The guide page :doc:`/guide/anytime` measures how often this happens over many
streams.
"""

# %%
# One stream of labels
# --------------------
# A classifier with true accuracy 0.9 on both classes, 5 000 labelled examples in the
# order they arrived. We look 117 times, at sizes spaced evenly on a log scale from 10
# to 5 000. The seed was chosen for a stream where the fixed-n interval escapes; how
# often that happens over many streams is measured at the end.
import matplotlib.pyplot as plt
import numpy as np

import bacc
from bacc.anytime import anytime_bounds, fixed_n_bounds
from bacc.display.plot import plot_sequence

n_labels, true_accuracy = 5000, 0.9
looks = np.unique(np.geomspace(10, n_labels, 120).round().astype(int))

rng = np.random.default_rng(6)
y_true = rng.integers(0, 2, n_labels)
y_pred = np.where(rng.random(n_labels) < true_accuracy, y_true, 1 - y_true)

seq = bacc.confidence_sequence(y_true, y_pred, metric="accuracy", looks=looks)
print(seq)
print(seq.final)

# %%
# The fixed-n interval at every look
# ----------------------------------
# :func:`bacc.anytime.fixed_n_bounds` recomputes the 95 % Clopper-Pearson interval of
# the counts at each look: what a dashboard built on the exact interval would show.


def share_excluding(lower, upper, truth):
    """Share of the looks at which the interval does not contain the truth."""
    return float(np.mean((lower > truth) | (upper < truth)))


fixed = fixed_n_bounds(seq)
print(f"looks: {len(seq)}")
print(f"looks where the fixed-n interval excludes the truth:    "
      f"{share_excluding(*fixed, true_accuracy):.1%}")
print(f"looks where the confidence sequence excludes the truth: "
      f"{share_excluding(seq.lower, seq.upper, true_accuracy):.1%}")

# %%
# The picture: the sequence as a band, the fixed-n interval dashed, the truth dotted,
# and a red tick at every look where the fixed-n interval excludes the truth. Someone
# who stopped at one of those looks would have reported an interval that misses the
# true accuracy; the band never does here.
fig = plot_sequence(seq, fixed=fixed, truth=true_accuracy,
                    title="accuracy of one stream, true value 0.9")
fig.axes[0].set_ylim(0.5, 1.0)  # zoom in: the default axis runs from 0 to 1

# %%
# The band is wider than the dashed interval: that is the price of being allowed to
# look at every label and stop at any time. Here the sequence is tuned for 100
# examples (the default ``tuned_for``) and read at 5 000; a stream planned to run to
# thousands of labels would fix a larger ``tuned_for`` before it starts. With
# ``running_intersection=True`` (the default) each look keeps the tightest bounds so
# far, so the band only narrows.
print(f"width at the last look: sequence {seq.final.width:.4f}, "
      f"fixed-n {fixed[1][-1] - fixed[0][-1]:.4f}")

# %%
# The first hundred labels: the betting sequence
# ----------------------------------------------
# The band is widest where decisions are often taken: over the first tens of labels.
# ``method="betting"`` gives another confidence sequence, the hedged capital process of
# Waudby-Smith & Ramdas (2024), whose bets adapt to the labels in the order they came and
# are largest at the start. It needs no ``tuned_for``; it is much narrower early and wider
# after a few hundred labels than a mixture tuned for that size. Choose between them
# before the labels are seen (see :ref:`anytime-which`).
bet = bacc.confidence_sequence(y_true, y_pred, metric="accuracy", looks=looks,
                               method="betting")
for n in (10, 30, 100, 1000, 5000):
    i = int(np.searchsorted(looks, n))
    print(f"after {looks[i]:5d} labels: width of the mixture {seq.upper[i] - seq.lower[i]:.3f}, "
          f"of the betting sequence {bet.upper[i] - bet.lower[i]:.3f}")

fig = plot_sequence(bet, fixed=fixed, truth=true_accuracy,
                    title="the same stream, betting sequence")
fig.axes[0].set_ylim(0.5, 1.0)

# %%
# The balanced accuracy of an imbalanced stream
# ---------------------------------------------
# One example in ten is positive. The classifier gets 95 % of the negatives and 70 % of
# the positives right, so the true balanced accuracy is 0.825. The sequence of the
# balanced accuracy is one statement about both classes at once (the product of the
# classes' martingales); the fixed-n interval it is compared with is the union bound of
# :func:`bacc.exact_interval`, recomputed at each look. Again the seed shows a stream
# where the fixed-n interval escapes.
class_accuracy = np.array([0.95, 0.70])
truth = float(class_accuracy.mean())

rng = np.random.default_rng(2)
y_true = (rng.random(n_labels) < 0.1).astype(int)
y_pred = np.where(rng.random(n_labels) < class_accuracy[y_true], y_true, 1 - y_true)

seq_ba = bacc.confidence_sequence(y_true, y_pred, looks=looks)
fixed_ba = fixed_n_bounds(seq_ba, method="union")
print(seq_ba)
print(f"looks where the fixed-n union bound excludes the truth:  "
      f"{share_excluding(*fixed_ba, truth):.1%}")
print(f"looks where the confidence sequence excludes the truth: "
      f"{share_excluding(seq_ba.lower, seq_ba.upper, truth):.1%}")

# %%
# With one positive in ten, the first looks hold a handful of positives: the sample
# balanced accuracy jumps, and both intervals are wide until the positive class has
# examples enough.
fig = plot_sequence(seq_ba, fixed=fixed_ba, truth=truth,
                    title="balanced accuracy, 10 % positives, true value 0.825")

# %%
# At the last look, the two intervals of the final counts side by side (the sequence's
# ``tuned_for`` is 100 examples per class by default):
cm = bacc.ConfusionMatrix.from_predictions(y_true, y_pred)
print(bacc.anytime_interval(cm))
print(bacc.exact_interval(cm))

# %%
# Over many streams
# -----------------
# One stream shows what can happen, not how often. The same 117 looks on 2 000 streams
# of the first classifier (true accuracy 0.9), with the counts of all streams at once:
# :func:`bacc.clopper_pearson` and :func:`bacc.anytime.anytime_bounds` take arrays, and
# each distinct (correct, labels) pair is computed once.
rng = np.random.default_rng(0)
hits = rng.random((2000, n_labels)) < true_accuracy
k = hits.cumsum(axis=1)[:, looks - 1]                 # correct after each look
pairs = np.stack([k, np.broadcast_to(looks, k.shape)]).reshape(2, -1)
pairs, back = np.unique(pairs, axis=1, return_inverse=True)
for name, (lo, hi) in [("fixed-n Clopper-Pearson", bacc.clopper_pearson(*pairs)),
                       ("confidence sequence", anytime_bounds(*pairs))]:
    out = (lo > true_accuracy) | (hi < true_accuracy)  # per distinct pair
    ever = out[back.reshape(k.shape)].any(axis=1)         # per stream
    print(f"{name:24} ever excludes the truth in {ever.mean():.1%} of the streams")

# %%
# The fixed-n interval promised 5 % and, read at these looks, broke the promise in
# several times as many streams; the more looks, the worse (about half the streams when
# read after every label up to 10 000). The sequence stays under 5 % however often it is
# read.

plt.show()
