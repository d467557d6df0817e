"""bacc: how good a classifier really is.

The balanced accuracy with its full posterior, exact confidence bounds and fair comparisons of
classifiers (Brodersen et al. 2010; Carrillo, Brodersen & Castellanos 2014).

The package is layered; data flow one way::

    input ──► ConfusionMatrix ──► numerics ──► results ──► display
    (readers, counting,          (posterior, intervals,      (display: text, HTML,
     sklearn, cli)                significance, comparison,    plots, report; cli)
                                  batch, simulation, metrics;
                                  private kernels in _engine)
"""

from __future__ import annotations

from . import metrics
from .batch import BatchEvaluation, evaluate_many
from .comparison import Comparison, compare, compare_paired
from .confusion import ConfusionMatrix
from .counting import GroupedCounts, counts, counts_from_long
from .distributions import BetaPosterior, BetaSum, PairedDifference
from .errors import BaccError, BaccWarning, MissingDependencyError
from .evaluation import ClassResult, Evaluation, PosteriorSummary, evaluate
from .intervals import (
    ClassInterval,
    Interval,
    approx_class_intervals,
    approx_interval,
    class_intervals,
    clopper_pearson,
    exact_interval,
    fold_sem_interval,
)
from .metric_posterior import MetricPosterior, posterior_metric
from .mixed_effects import Population, population
from .monitoring import Monitoring, monitor
from .planning import LabelPlan, NextClass, NextLabel, next_label, plan_labels
from .posterior import (
    BalancedAccuracyPosterior,
    posterior_accuracy,
    posterior_balanced_accuracy,
    posterior_class_accuracies,
)
from .ranking import Ranking, rank, rank_paired
from .significance import BinomialTest, McNemarTest, binomial_test, mcnemar_exact
from .simulation import CoverageResult, MethodCoverage, coverage

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
    "MetricPosterior",
    "Monitoring",
    "monitor",
]
__version__ = "0.1.0"
