"""Exact and approximate bounds of class accuracies, and what they promise for a labelling plan.

* :mod:`.per_class`: per-class bound kernels (Clopper-Pearson, Wald, Wilson, Jeffreys) and the
  levels of the union and Šidák constructions.
* :mod:`.buehler`: the Buehler bound of the balanced accuracy of two classes.
* :mod:`.assurance`: the probability that the exact interval after more labels meets a goal.
* :mod:`.anytime`: anytime-valid bounds: the beta-binomial mixture martingale of each class,
  the bounds of a weighted average of class accuracies from the product of the classes'
  martingales, and the stopping and alarm tests built on them.
"""
