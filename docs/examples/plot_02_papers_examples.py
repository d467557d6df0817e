"""
Three ways to report a classifier: the papers' example
======================================================

Brodersen et al. (2010) open with two classifiers evaluated by cross-validation. ``C1``
was tested on a balanced set (70 examples per class) and does equally well on both
classes. ``C2`` was tested on an imbalanced set (45 positive, 10 negative examples) and
mostly predicts "positive". Their Fig. 1 reports each classifier three ways; this
example redraws it with :func:`bacc.display.plot.plot_measures` from the matrices that
ship with bacc.

The matrices are the papers'; their split into five folds is illustrative (the paper
gives only the sums) and is documented in the package data.
"""

# %%
# Load the shipped examples
# -------------------------
import json
from importlib.resources import files

import matplotlib.pyplot as plt

import bacc
from bacc.display.plot import plot_measures

data = json.loads((files("bacc") / "data" / "paper_examples.json").read_text())
examples = {e["short"]: e for e in data["examples"]}
for short in ("C1", "C2"):
    e = examples[short]
    print(f"{short}: {e['name']}")
    print(f"    rows = true class {e['labels']}: {e['counts']}")

# %%
# The conventional report: mean of the fold accuracies
# ----------------------------------------------------
# Many papers report the mean accuracy over the folds with two standard errors.
# :func:`bacc.fold_sem_interval` computes it, labelled as approximate. For ``C1`` the
# upper end passes 100%: the interval does not even stay among the possible values (the
# first flaw named by Brodersen et al. (2010)).
folds = {short: examples[short]["folds"] for short in ("C1", "C2")}
fold_intervals = [bacc.fold_sem_interval(folds[s]) for s in ("C1", "C2")]
print(fold_intervals[0])

# %%
# The posterior accuracy and balanced accuracy
# --------------------------------------------
# The folds are summed into one confusion matrix (the algorithm-level evaluation of
# Brodersen et al. (2010), section V), which :func:`bacc.evaluate` turns into
# posteriors.
evaluations = {}
for short in ("C1", "C2"):
    e = examples[short]
    cm = bacc.ConfusionMatrix.from_folds(e["folds"], labels=e["labels"])
    evaluations[short] = bacc.evaluate(cm)
print(evaluations["C2"])

# %%
# ``C2`` has an accuracy of 0.84 but a balanced accuracy of 0.67 and a wide interval:
# the accuracy rewards it for predicting the majority class (the second flaw).
#
# The figure
# ----------
# Red: mean of the fold accuracies with two standard errors; blue: posterior accuracy;
# green: posterior balanced accuracy, each with its central 95% interval. Report the
# green one.
fig = plot_measures(evaluations, fold_intervals)

# %%
# Without folds (a single test set), leave ``fold_intervals`` out: the figure then says
# why the red interval is missing.
face_place = examples["face/place"]
cm_fp = bacc.ConfusionMatrix(face_place["counts"], labels=face_place["labels"])
ev_fp = bacc.evaluate(cm_fp)
fig = plot_measures({"face/place": ev_fp}, title="one test set of 20 examples")

plt.show()
