"""Sums of independent components: the posterior balanced accuracy and its differences.

The balanced accuracy's posterior is a weighted sum of independent Beta variables (Brodersen et
al. (2010), eq. 7; Carrillo et al. (2014), eqs. 12-14). One chooser decides how each sum is
computed, for one sum or many rows, and every caller asks it:

* :mod:`.chooser`: the method of each sum (pair quadrature, lattice, narrow-part moments,
  batched lattice, one by one) and why two lattice methods exist for three or more classes.
* :mod:`.single`: the engines of one sum (:class:`bacc.BetaSum`,
  :class:`bacc.PairedDifference`), built by the method chosen.
* :mod:`.rows`: many rows at once (:func:`bacc.evaluate_many`, :func:`bacc.monitor`), each
  row by the method chosen.

The kernels:

* :mod:`.components`: which component is exact, which go on the lattice, which are narrow.
* :mod:`.two_betas`: exact two-component sums by one-dimensional quadrature.
* :mod:`.two_class_rows`: credible intervals and tails of many two-class sums at once.
* :mod:`.lattice`: the stop-loss lattice of three or more components, with Richardson
  extrapolation (one sum).
* :mod:`.batch_lattice`: the lattice quadrature of many sums of three or more components.
* :mod:`.narrow_part`: components far narrower than the lattice, entered by their moments.
* :mod:`.paired_difference`: the difference of two classifiers on one test set (Dirichlet
  classes).
* :mod:`.worse_than_baseline`: ``P(lambda_now < lambda_base - margin)`` for many windows.
* :mod:`.small_counts`: the same for two-class windows of small counts, exactly, from the
  window's polynomial distribution function and the baseline's Gauss-Jacobi rules.
* :mod:`.grid_average`: the average of independent variables given by densities on a grid
  (population posteriors).
* :mod:`.solvers`: Beta moments and the safeguarded quantile iterations.
* :mod:`.mode`: the maximum of a density that may have kinks, jumps or singular points.
"""
