"""
Scores and thresholds: the curve, the best threshold and the ROC
================================================================

A classifier's scores on a test set of 60 positives and 240 negatives (binormal, AUC about
0.8). :func:`bacc.scores` tallies them at every threshold; the balanced accuracy at each
threshold comes with its posterior, exact pointwise and simultaneous bands
(:meth:`bacc.ScoreCurve.curve`); the best threshold with an honest, cross-fitted estimate of
its balanced accuracy (:meth:`bacc.ScoreCurve.best_threshold`); a threshold that guarantees a
recall (:meth:`bacc.ScoreCurve.threshold_for`); and the ROC curve with its simultaneous band
and the AUC (:meth:`bacc.ScoreCurve.roc`, :meth:`bacc.ScoreCurve.auc`). The user guide page
:doc:`/guide/scores` explains each number.
"""

# %%
# The scores, tallied
# -------------------
# A score at or above the threshold predicts the positive class (1 here).
import matplotlib.pyplot as plt
import numpy as np

import bacc

rng = np.random.default_rng(0)
y = np.repeat([0, 1], [240, 60])
s = rng.normal(1.2 * y, 1.0)
sc = bacc.scores(y, s)
print(sc)

# %%
# Both pictures at once
# ---------------------
# :meth:`bacc.ScoreCurve.plot` draws the balanced accuracy against the threshold (left) and
# the ROC curve (right). Left: the posterior mean with its 95 % credible band (green), the
# exact pointwise bounds (dashed), the simultaneous band (grey), the sample values (thin
# line) and the best threshold. Right: the sample ROC curve inside its simultaneous band,
# which holds the whole true curve with probability 95 % for every score distribution; the
# AUC interval named in the title is the band's, the guaranteed one.
fig = sc.plot()

# %%
# The balanced accuracy at every threshold
# ----------------------------------------
# The same curve alone (:meth:`bacc.ThresholdCurve.plot`). The credible band and the exact
# bounds hold at one threshold fixed in advance; only the simultaneous band, wider, holds at
# every threshold at once, so only it covers a threshold picked by looking at this figure.
cur = sc.curve()
fig = cur.plot()

# %%
# The best threshold: in sample and honest
# ----------------------------------------
# The best threshold was chosen because these examples favour it, so its balanced accuracy
# on them is optimistic. The honest estimate decides each example by a threshold chosen
# without it (5 folds, 10 repetitions): report that one.
best = sc.best_threshold()
print(best)
print()
print(f"{'in sample (optimistic)':24} {best.in_sample_balanced_accuracy:.4f}")
print(f"{'honest (cross-fitted)':24} {best.honest_balanced_accuracy:.4f} "
      f"+- {best.honest_sd:.4f}")
print(f"{'optimism':24} {best.optimism:+.4f}")

# %%
# The ROC curve and the AUC
# -------------------------
# :meth:`bacc.RocCurve.plot` with the AUC interval to name: here DeLong's on the logit scale
# (approximate). Every interval says its kind.
roc = sc.roc()
fig = roc.plot(auc=sc.auc("delong-logit"))
for m in bacc.roc.AUC_METHODS:
    iv = sc.auc(m)
    print(f"{m:19} {iv.kind:11} {iv.auc:.3f} [{iv.lower:.3f}, {iv.upper:.3f}]")

# %%
# A figure of your own: a threshold with a guaranteed recall
# ----------------------------------------------------------
# Every number drawn is an attribute of a result. Here the sensitivity and specificity
# against the threshold (``cur.sensitivity``, ``cur.specificity``) with their simultaneous
# bands, the threshold whose sample recall first reaches 0.9 (read off the curve: the true
# recall falls short more than half the time), and the lower threshold that guarantees a recall
# of 0.9 with probability 95 % (``g.threshold``). The cost of the guarantee is the
# specificity lost between the two.
g = sc.threshold_for(recall=0.9)
naive = sc.thresholds[np.argmax(sc.sensitivity >= 0.9)]
finite = np.isfinite(cur.thresholds)
t = cur.thresholds[finite]

fig, ax = plt.subplots(figsize=(6.4, 4.4), layout="constrained")
for name, colour in (("sensitivity", "tab:green"), ("specificity", "tab:blue")):
    ax.step(t, getattr(cur, name)[finite], where="post", color=colour, lw=1.4,
            label=name)
    ax.fill_between(t, getattr(cur, f"band_{name}_lower")[finite],
                    getattr(cur, f"band_{name}_upper")[finite], step="post",
                    color=colour, alpha=0.15, lw=0)
ax.axhline(0.9, color="grey", lw=0.8, ls=":")
ax.axvline(naive, color="tab:red", lw=1.0, ls="--",
           label=f"sample recall 0.9: {naive:.2f}")
ax.axvline(g.threshold, color="black", lw=1.2,
           label=f"recall >= 0.9 guaranteed: {g.threshold:.2f}")
ax.set_xlim(t.min(), t.max())
ax.set_ylim(0, 1.02)
ax.set_xlabel("threshold (score >= threshold predicts 1)")
ax.set_ylabel("rate (shaded: simultaneous 95 % band)")
fig.legend(fontsize=8, loc="outside lower center", ncols=2, frameon=False)
print(g.statement)
print(f"expected recall {g.recall:.3f}; false-positive rate {g.fpr:.3f} "
      f"[{g.fpr_lower:.3f}, {g.fpr_upper:.3f}] (exact, from the negatives)")

plt.show()
