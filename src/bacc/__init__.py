"""bacc: how good a classifier really is.

The balanced accuracy with its full posterior, exact confidence bounds and fair comparisons of
classifiers (Brodersen et al. 2010; Carrillo, Brodersen & Castellanos 2014).

The package is layered; data flow one way::

    input ──► ConfusionMatrix ──► numerics ──► results ──► display
    (readers, counting,          (posterior, intervals,      (display: text, HTML,
     sklearn, cli)                significance, comparison,    plots, report; cli)
                                  batch, simulation, metrics;
                                  private kernels in _engine)

The modules, by layer:

Input
    * :mod:`.labels`: class labels and per-class options (weights, priors), the one path from a
      user's labels to class indices and the order of the classes.
    * :mod:`.confusion`: :class:`ConfusionMatrix`, validated integer counts with class labels.
    * :mod:`.readers`: files of examples and of confusion matrices read into labels and counts.
    * :mod:`.counting`: confusion matrices counted where the data live (files by DuckDB,
      DataFrames by their own engine), one per group or per time window.
    * :mod:`.sklearn`: scikit-learn workflows, cross-validated evaluation and a posterior scorer.

Numerics
    * :mod:`.posterior`: the posterior distributions of the accuracy and the balanced accuracy.
    * :mod:`.distributions`: the distributions returned (Beta posteriors, weighted sums of
      Betas, paired differences), each with the ``scipy.stats`` frozen surface.
    * :mod:`.evaluation`: :func:`evaluate`, everything about one confusion matrix in one result.
    * :mod:`.intervals`: exact and approximate confidence intervals of the accuracy and the
      balanced accuracy.
    * :mod:`.anytime`: anytime-valid intervals and confidence sequences, valid at every look
      of a stream of labels and under any stopping rule.
    * :mod:`.significance`: the exact binomial test against chance and McNemar's exact test.
    * :mod:`.comparison`: the probability that one classifier is better than another, and the
      posterior of their difference (independent test sets or one shared test set).
    * :mod:`.ranking`: several classifiers ranked by the posterior of their balanced accuracies.
    * :mod:`.batch`: :func:`evaluate_many`, many confusion matrices evaluated at once.
    * :mod:`.monitoring`: :func:`monitor`, every detector per time window against its own past.
    * :mod:`.mixed_effects`: :func:`population`, the population balanced accuracy of many
      subjects (mixed-effects models).
    * :mod:`.across`: :func:`compare_across` and :func:`rank_across`, classifiers compared and
      ranked in the population of data sets (or subjects) from each one's confusion matrices.
    * :mod:`.score_inputs`: label and score arrays checked (scores are numbers, not labels)
      and tallied.
    * :mod:`.score_curve`: :class:`ScoreCurve`, a classifier's scores tallied at every
      threshold (:func:`scores` is its front door, in :mod:`.counting`).
    * :mod:`.threshold_curve`: the balanced accuracy at every threshold with its bands, and the
      best threshold with what choosing it on the test set inflates.
    * :mod:`.guaranteed_threshold`: thresholds with a distribution-free guarantee on recall,
      false-positive rate or precision at a deployment prevalence.
    * :mod:`.roc`: the ROC curve with a simultaneous band, the AUC with labelled intervals, and
      DeLong's test of two correlated AUCs.
    * :mod:`.score_coverage`: :func:`auc_coverage`, how often each AUC interval keeps its promise.
    * :mod:`.metrics`: sample statistics of a confusion matrix (point estimates).
    * :mod:`.metric_posterior`: the posterior of every metric of :mod:`.metrics` under an
      explicit sampling design.
    * :mod:`.prevalence`: precision, NPV, F1 and accuracy of a two-class classifier at a
      deployment prevalence.
    * :mod:`.planning`: how many labels to collect, and which class to label next.
    * :mod:`.sequential`: labelling until the anytime-valid bound clears a goal, and what it
      costs.
    * :mod:`.simulation`: the coverage simulator, how often each interval method keeps its
      promise.
    * :mod:`._engine`: the private numerical kernels (sums of Betas, Beta functions, bounds).

Output
    * :mod:`.display`: text, HTML, pictures and the HTML report of every result.
    * :mod:`.cli`: the ``bacc`` command; :mod:`.__main__` runs it as ``python -m bacc``.

Shared
    * :mod:`.errors`: the one exception family (:class:`BaccError`) and the error for a missing
      optional dependency.
    * :mod:`.progress`: a progress bar on standard error, drawn only on a terminal.
"""

import importlib as _importlib
from types import ModuleType as _ModuleType

#: Where each public name lives: the package imports a module only when one of its names is
#: first used, so ``import bacc`` (and ``bacc --version``) does not pay for scipy.
_WHERE = {
    "metrics": ".metrics",
    "BatchEvaluation": ".batch",
    "evaluate_many": ".batch",
    "Comparison": ".comparison",
    "compare_paired": ".comparison",
    "ConfusionMatrix": ".confusion",
    "GroupedCounts": ".counting",
    "counts": ".counting",
    "counts_from_long": ".counting",
    "compare": ".counting.tables",
    "compare_across": ".counting.across_tables",
    "rank_across": ".counting.across_tables",
    "AcrossComparison": ".across",
    "AcrossRanking": ".across",
    "NormalMixture": ".distributions",
    "evaluate": ".counting.tables",
    "rank": ".counting.tables",
    "BetaPosterior": ".distributions",
    "BetaSum": ".distributions",
    "PairedDifference": ".distributions",
    "BaccError": ".errors",
    "BaccWarning": ".errors",
    "MissingDependencyError": ".errors",
    "ClassResult": ".evaluation",
    "Evaluation": ".evaluation",
    "PosteriorSummary": ".evaluation",
    "ConfidenceSequence": ".anytime",
    "anytime_interval": ".anytime",
    "SequentialPlan": ".sequential",
    "plan_sequential": ".sequential",
    "confidence_sequence": ".anytime",
    "ClassInterval": ".intervals",
    "Interval": ".intervals",
    "approx_class_intervals": ".intervals",
    "approx_interval": ".intervals",
    "class_intervals": ".intervals",
    "clopper_pearson": ".intervals",
    "exact_interval": ".intervals",
    "fold_sem_interval": ".intervals",
    "MetricPosterior": ".metric_posterior",
    "posterior_metric": ".metric_posterior",
    "Population": ".mixed_effects",
    "population": ".mixed_effects",
    "Monitoring": ".monitoring",
    "monitor": ".monitoring",
    "LabelPlan": ".planning",
    "NextClass": ".planning",
    "NextLabel": ".planning",
    "next_label": ".planning",
    "plan_labels": ".planning",
    "BalancedAccuracyPosterior": ".posterior",
    "posterior_accuracy": ".posterior",
    "posterior_balanced_accuracy": ".posterior",
    "posterior_class_accuracies": ".posterior",
    "Ranking": ".ranking",
    "rank_paired": ".ranking",
    "BinomialTest": ".significance",
    "McNemarTest": ".significance",
    "binomial_test": ".significance",
    "mcnemar_exact": ".significance",
    "CoverageResult": ".simulation",
    "MethodCoverage": ".simulation",
    "coverage": ".simulation",
    "scores": ".counting.score_tables",
    "ScoreCurve": ".score_curve",
    "OneVsRest": ".score_curve",
    "ThresholdCurve": ".threshold_curve",
    "ChosenThreshold": ".threshold_curve",
    "GuaranteedThreshold": ".guaranteed_threshold",
    "RocCurve": ".roc",
    "AucInterval": ".roc",
    "AucComparison": ".roc",
    "compare_auc": ".roc",
    "auc_coverage": ".score_coverage",
}


__all__ = [
    "BaccError",
    "BaccWarning",
    "BalancedAccuracyPosterior",
    "BatchEvaluation",
    "BetaPosterior",
    "BetaSum",
    "BinomialTest",
    "ClassInterval",
    "ClassResult",
    "Comparison",
    "ConfusionMatrix",
    "CoverageResult",
    "Evaluation",
    "Interval",
    "GroupedCounts",
    "McNemarTest",
    "MethodCoverage",
    "MissingDependencyError",
    "PairedDifference",
    "Population",
    "PosteriorSummary",
    "Ranking",
    "approx_class_intervals",
    "approx_interval",
    "binomial_test",
    "class_intervals",
    "clopper_pearson",
    "compare",
    "compare_paired",
    "counts",
    "counts_from_long",
    "coverage",
    "evaluate",
    "evaluate_many",
    "exact_interval",
    "anytime_interval",
    "confidence_sequence",
    "ConfidenceSequence",
    "fold_sem_interval",
    "mcnemar_exact",
    "metrics",
    "posterior_accuracy",
    "posterior_balanced_accuracy",
    "posterior_class_accuracies",
    "rank",
    "rank_paired",
    "population",
    "posterior_metric",
    "LabelPlan",
    "NextClass",
    "NextLabel",
    "next_label",
    "plan_labels",
    "plan_sequential",
    "SequentialPlan",
    "MetricPosterior",
    "Monitoring",
    "monitor",
    "compare_across",
    "rank_across",
    "AcrossComparison",
    "AcrossRanking",
    "NormalMixture",
    "scores",
    "ScoreCurve",
    "OneVsRest",
    "ThresholdCurve",
    "ChosenThreshold",
    "GuaranteedThreshold",
    "RocCurve",
    "AucInterval",
    "AucComparison",
    "compare_auc",
    "auc_coverage",
]
__version__ = "0.1.0"


def __getattr__(name: str):
    """Import the module of a public name when it is first used (PEP 562)."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'bacc' has no attribute {name!r}")
    if module == f".{name}":  # a submodule exported as itself (bacc.metrics)
        value = _importlib.import_module(module, __name__)
    else:
        value = getattr(_importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names (``__all__``), the version and the submodules loaded, nothing else
    (no names of the imports that build the package)."""
    modules = {n for n, v in globals().items()
               if isinstance(v, _ModuleType) and not n.startswith("_")}
    return sorted(set(__all__) | modules | {"__version__"})
