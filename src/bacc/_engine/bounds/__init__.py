"""Exact and approximate bounds of class accuracies, and what they promise for a labelling plan.

* :mod:`.per_class`: per-class bound kernels (Clopper-Pearson, Wald, Wilson, Jeffreys) and the
  levels of the union and Šidák constructions.
* :mod:`.buehler`: the Buehler bound of the balanced accuracy of two classes.
* :mod:`.assurance`: the probability that the exact interval after more labels meets a goal.
* :mod:`.order_statistics`: thresholds of a score with a guaranteed recall, false-positive
  rate or precision at a prevalence, exact and distribution-free (order statistics of the
  scores).
* :mod:`.anytime`: anytime-valid bounds: the beta-binomial mixture martingale of each class,
  the bounds of a weighted average of class accuracies from the product of the classes'
  martingales, and the stopping and alarm tests built on them.
* :mod:`.betting`: anytime-valid bounds by betting: the hedged capital process of each class
  (Waudby-Smith & Ramdas 2024), its interval certified on cells of null values, and the bounds
  of a weighted average of class accuracies from the product of the classes' capitals.
"""
