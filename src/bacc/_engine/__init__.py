"""Private numerical kernels and shared helpers of bacc (not a public API).

The public modules import from here; nothing here imports them.

Kernels, by what they compute:

* :mod:`.sums`: sums of independent components, the posterior balanced accuracy and its
  differences, with the one chooser of how each sum is computed (see its modules).
* :mod:`.beta`: Beta functions (CDF, quantiles, tail spans) checked rather than trusted;
  :mod:`.beta_grid`: the Beta CDF at many equally spaced points.
* :mod:`.bounds`: exact and approximate bounds of class accuracies (per-class kernels, the
  levels of the union and Šidák constructions, the Buehler bound of two classes) and the
  assurance of a labelling plan (see its modules).
* :mod:`.probability_greater`: ``P(X_i > X_j)`` for every pair of independent variables
  (rankings); :mod:`.paired_greater`: ``P(lambda_i > lambda_j)`` for every pair of classifiers
  on one test set (paired rankings); :mod:`.joint`: joint posterior draws of several
  classifiers on one test set.
* :mod:`.roc`: the ROC curve of a score: counts per threshold, the area with DeLong's
  (co)variance and test, the Kolmogorov-Smirnov band of the curve and the Bayesian bootstrap
  of the area.
* :mod:`.meta_analysis`: the random-effects model of several classifiers' balanced accuracies
  across data sets (comparisons and rankings in a population of data sets);
* :mod:`.hierarchy`: the per-class hierarchical (mixed-effects) posteriors;
  :mod:`.beta_mixture`: many subjects' accuracy densities as mixtures of Beta laws over its nodes.

Helpers, apart from the kernels (:mod:`.helpers`): argument checks, result conversions, work on
several threads and old argument names kept for one release.
"""
