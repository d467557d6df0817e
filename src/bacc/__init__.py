"""bacc: how good a classifier really is.

The balanced accuracy with its full posterior, exact confidence bounds and fair comparisons of
classifiers (Brodersen et al. 2010; Carrillo, Brodersen & Castellanos 2014).
"""

from __future__ import annotations

from .confusion import ConfusionMatrix
from .errors import BaccError, BaccWarning

__all__ = ["BaccError", "BaccWarning", "ConfusionMatrix"]
__version__ = "0.1.0"
