"""The one number formatter of bacc's text, HTML, figures and report.

Every number a person reads passes through these functions, so that a probability, an interval
or a percentage looks the same in a terminal table, a notebook, a figure legend and the report;
the ``repr_*`` functions give the numbers of the results' one-line reprs.
"""

from __future__ import annotations

import math

__all__ = [
    "digits_for",
    "interval",
    "mc_error",
    "number",
    "p_phrase",
    "percent",
    "probability",
    "significant",
    "repr_interval",
    "repr_level",
    "repr_number",
    "repr_probability",
]


def _missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def number(x, digits: int = 4, *, missing: str = "-") -> str:
    """``x`` with ``digits`` decimals; ``missing`` for None or nan.

    Examples
    --------
    >>> number(0.66578), number(float("nan")), number(1 / 3, 2)
    ('0.6658', '-', '0.33')
    """
    if _missing(x):
        return missing
    return f"{float(x):.{digits}f}"


def probability(p) -> str:
    """A probability with four decimals, ``"> 0.9999"`` and ``"< 0.0001"`` at the extremes.

    Examples
    --------
    >>> probability(0.99996), probability(3e-7), probability(0.25)
    ('> 0.9999', '< 0.0001', '0.2500')
    """
    if _missing(p):
        return "-"
    if p >= 0.9999:
        return "> 0.9999"
    if p <= 1e-4:
        return "< 0.0001"
    return f"{float(p):.4f}"


def p_phrase(p) -> str:
    """What follows ``P(...)``: ``"= 0.9955"``, ``"> 0.9999"`` or ``"< 0.0001"``.

    Examples
    --------
    >>> p_phrase(0.9955), p_phrase(1.0)
    ('= 0.9955', '> 0.9999')
    """
    t = probability(p)
    return t if t[0] in "<>-" else f"= {t}"


def mc_error(x) -> str:
    """A Monte Carlo standard error with four decimals, as the numbers it qualifies;
    ``"< 0.0001"`` when it rounds to nothing.

    Examples
    --------
    >>> mc_error(0.001), mc_error(0.00047), mc_error(2e-6)
    ('0.0010', '0.0005', '< 0.0001')
    """
    if _missing(x):
        return "-"
    return "< 0.0001" if float(x) < 0.00005 else f"{float(x):.4f}"


def significant(x, digits: int = 4, *, missing: str = "-") -> str:
    """``x`` with ``digits`` significant digits (p-values, chance levels); ``missing`` for None
    or nan.

    Examples
    --------
    >>> significant(0.0351563), significant(1 / 3, 3), significant(2.5e-7)
    ('0.03516', '0.333', '2.5e-07')
    """
    if _missing(x):
        return missing
    return f"{float(x):.{digits}g}"


def interval(lower, upper, digits: int = 4, *, missing: str = "-") -> str:
    """``"[lower, upper]"``.

    Examples
    --------
    >>> interval(0.5, 0.75)
    '[0.5000, 0.7500]'
    """
    return f"[{number(lower, digits, missing=missing)}, {number(upper, digits, missing=missing)}]"


def percent(confidence: float, *, precise: bool = False) -> str:
    """A confidence level as a percentage: ``"95%"`` (``precise``: up to 6 significant digits,
    ``"99.99%"``).

    Examples
    --------
    >>> percent(0.95), percent(0.9999, precise=True)
    ('95%', '99.99%')
    """
    return f"{100 * confidence:.6g}%" if precise else f"{100 * confidence:g}%"


def digits_for(*pairs: tuple[float, float], least: int = 4, most: int = 12) -> int:
    """Enough decimals to tell the ends of each interval apart (``least`` to ``most``).

    Examples
    --------
    >>> digits_for((0.5, 0.6)), digits_for((0.999999, 0.9999995))
    (4, 9)
    """
    d = least
    for lo, hi in pairs:
        gap = abs(hi - lo)
        if math.isfinite(gap) and gap > 0:
            d = max(d, int(math.ceil(-math.log10(gap))) + 2)
    return min(d, most)


# ----------------------------------------------------------------------------------------------
# one-line reprs: ``<Evaluation: balanced accuracy 0.666 [0.534, 0.808] ...>``: 3 decimals, and a
# probability that rounds to 0 or 1 written ``<0.001`` or ``>0.999`` (with its relation sign)
def repr_number(x, digits: int = 3) -> str:
    """A number of a one-line repr: ``digits`` decimals, ``nan`` for a missing value.

    Examples
    --------
    >>> repr_number(0.66578), repr_number(float("nan"))
    ('0.666', 'nan')
    """
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    return "nan" if math.isnan(v) else f"{v:.{digits}f}"


def repr_probability(p) -> str:
    """A probability of a one-line repr, with its relation sign: ``=0.995``, ``>0.999``.

    Examples
    --------
    >>> repr_probability(0.99547), repr_probability(1 - 1e-9), repr_probability(0.0)
    ('=0.995', '>0.999', '=0.000')
    """
    v = float(p)
    if math.isnan(v):
        return "=nan"
    if 0.0 < v < 0.0005:
        return "<0.001"
    if 0.9995 <= v < 1.0:
        return ">0.999"
    return f"={v:.3f}"


def repr_level(confidence) -> str:
    """A level of a one-line repr: ``0.95`` as ``95%``.

    Examples
    --------
    >>> repr_level(0.95), repr_level(0.999)
    ('95%', '99.9%')
    """
    return f"{float(confidence) * 100:g}%"


def repr_interval(lower, upper, digits: int = 3) -> str:
    """``[lower, upper]`` for a one-line repr.

    Examples
    --------
    >>> repr_interval(0.5341, 0.8077)
    '[0.534, 0.808]'
    """
    return f"[{repr_number(lower, digits)}, {repr_number(upper, digits)}]"
