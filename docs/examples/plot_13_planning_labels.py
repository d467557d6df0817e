"""
How many labels do I need, and which next?
==========================================

A deployed detector was checked on 100 negatives (95 right) and 10 positives (8 right).
Its exact 95% lower bound of the balanced accuracy is 0.666. The goal is a lower bound
above 0.7. Labels cost money: :func:`bacc.plan_labels` says how many more are needed to
reach the goal with a required probability (the *assurance*, 0.8 by default), averaging
over what the classifier's accuracies may be given the labels so far.
:func:`bacc.next_label` says which class the next label should come from.
"""

# %%
# Labels that arrive as deployed
# ------------------------------
# If examples are labelled as they come, 95% of them are negatives. ``mix`` gives that
# share; ``budget`` asks what a fixed budget achieves.
import textwrap

import matplotlib.pyplot as plt

import bacc

cm = [[95, 5], [2, 8]]  # rows: true negative, true positive
plan = bacc.plan_labels(cm, lower=0.7, mix=[0.95, 0.05], budget=300)
print(plan)

# %%
# 383 more labels reach the goal with probability 0.80; a budget of 300 reaches it with
# probability 0.77 only. The numbers are attributes:
print(plan.labels, round(plan.assurance, 4), round(plan.budget_assurance, 4))

# %%
# Choosing the class of each label
# --------------------------------
# The exact bound is driven by the smallest class. If positives can be sought out (for
# example among the examples the detector flagged), 28 positives do the job of 383
# labels in the deployment mix.
chosen = bacc.plan_labels(cm, lower=0.7)
print(chosen)

# %%
# A goal the data make implausible
# --------------------------------
# Asking for a lower bound above 0.8 is reported, not searched for: even unlimited
# labels would clear it only with the posterior probability that the balanced accuracy
# exceeds 0.8.
hard = bacc.plan_labels(cm, lower=0.8)
print("reachable:", hard.reachable)
print(textwrap.fill(hard.message, 88))

# %%
# Before any label
# ----------------
# With nothing labelled yet, a prior guess stands in for the data: ``prior=(18, 2)``
# says "about 0.9 per class, worth 20 examples".
guess = bacc.plan_labels(None, lower=0.8, prior=(18, 2))
print("labels per class:", guess.per_class)

# %%
# Which class next?
# -----------------
# :func:`bacc.next_label` computes, for one more example of each class, the expected
# width of the exact interval (or its lower bound) after its label, exactly over the two
# outcomes.
print(bacc.next_label(cm))

# %%
# When the true class is unknown until labelled, pick by what the classifier predicted:
print(bacc.next_label(cm, by="predicted"))

# %%
# The assurance of a budget
# -------------------------
# ``budget_assurance`` for a range of budgets, in the deployment mix: the probability of
# reaching the goal grows slowly, because only one label in twenty is a positive.
budgets = [25, 50, 100, 150, 200, 300, 400, 600, 800]
assurance = [
    bacc.plan_labels(cm, lower=0.7, mix=[0.95, 0.05], budget=b).budget_assurance
    for b in budgets
]
fig, ax = plt.subplots(figsize=(5.2, 3.0), layout="constrained")
ax.plot(budgets, assurance, "o-", color="#1e8449")
ax.axhline(0.8, color="#7f8c8d", ls="-.", lw=1)
ax.axvline(plan.labels, color="#222222", ls=":", lw=1)
ax.set_xlabel("more labels, arriving in the mix 95% / 5%")
ax.set_ylabel("P(lower bound > 0.7)")
ax.spines[["top", "right"]].set_visible(False)

# %%
# Plan the number, then collect it: labelling until the bound first clears the goal
# would void the coverage of the exact interval, which holds for a sample size fixed in
# advance.

plt.show()
