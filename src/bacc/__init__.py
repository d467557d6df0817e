"""bacc: how good a classifier really is.

The balanced accuracy with its full posterior, exact confidence bounds and fair comparisons of
classifiers (Brodersen et al. 2010; Carrillo, Brodersen & Castellanos 2014).
"""

from __future__ import annotations

from . import metrics
from .batch import BatchEvaluation, evaluate_many
from .confusion import ConfusionMatrix
from .distributions import BetaSum
from .errors import BaccError, BaccWarning
from .evaluation import ClassResult, Evaluation, PosteriorSummary, evaluate
from .posterior import (
    BalancedAccuracyPosterior,
    BetaPosterior,
    posterior_accuracy,
    posterior_balanced_accuracy,
    posterior_class_accuracies,
)

__all__ = [
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
