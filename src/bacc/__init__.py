"""bacc: how good a classifier really is.

The balanced accuracy with its full posterior, exact confidence bounds and fair comparisons of
classifiers (Brodersen et al. 2010; Carrillo, Brodersen & Castellanos 2014).
"""

from __future__ import annotations

from . import metrics
from .approx import ApproxInterval, approx_class_intervals, approx_interval, fold_sem_interval
from .batch import BatchEvaluation, evaluate_many
from .compare import Comparison, McNemarTest, Ranking, compare, compare_paired, mcnemar_exact, rank
from .confusion import ConfusionMatrix
from .counting import GroupedCounts, counts, counts_from_long
from .coverage import CoverageResult, MethodCoverage, coverage
from .distributions import BetaSum
from .errors import BaccError, BaccWarning
from .evaluation import ClassResult, Evaluation, PosteriorSummary, evaluate
from .exact import (
    BinomialTest,
    ClassInterval,
    ExactInterval,
    binomial_test,
    class_intervals,
    clopper_pearson,
    exact_interval,
)
from .posterior import (
    BalancedAccuracyPosterior,
    BetaPosterior,
    posterior_accuracy,
    posterior_balanced_accuracy,
    posterior_class_accuracies,
)

__all__ = [
    "ApproxInterval",
    "Comparison",
    "GroupedCounts",
    "McNemarTest",
    "Ranking",
    "compare",
    "compare_paired",
    "counts",
    "counts_from_long",
    "mcnemar_exact",
    "rank",
    "BinomialTest",
    "ClassInterval",
    "CoverageResult",
    "ExactInterval",
    "MethodCoverage",
    "approx_class_intervals",
    "approx_interval",
    "binomial_test",
    "class_intervals",
    "clopper_pearson",
    "coverage",
    "exact_interval",
    "fold_sem_interval",
    "BaccError",
    "BaccWarning",
    "BatchEvaluation",
    "BalancedAccuracyPosterior",
    "BetaPosterior",
    "BetaSum",
    "ClassResult",
    "ConfusionMatrix",
    "Evaluation",
    "PosteriorSummary",
    "evaluate",
    "evaluate_many",
    "metrics",
    "posterior_accuracy",
    "posterior_balanced_accuracy",
    "posterior_class_accuracies",
]
__version__ = "0.1.0"
