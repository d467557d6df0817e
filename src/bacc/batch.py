"""Evaluate many confusion matrices at once (thousands of detectors; the detector dashboards of Sandler & Dirac 2024).

The work is vectorised across groups: sample statistics, closed-form posterior means and exact
Clopper-Pearson union bounds are array operations (each distinct pair of correct and total
counts once). For groups whose balanced accuracy involves one or two classes (the binary
detectors of a monitoring service) the credible interval and the probability above chance come
from the same two-class quadrature as the single evaluation, run for all groups in one set of
array operations (quantiles by a vectorised safeguarded Newton iteration; groups with the same
posteriors computed once): every number equals the one :func:`bacc.evaluate` and
:func:`bacc.exact_interval` give for a single matrix (to 1e-9; measured: within 7e-14, as the
iteration may start elsewhere (from the wide class's own quantile where the other adds little
variance) and stop at another point within its tolerance, and the probability above chance is
set to 1 where a sub-Gaussian tail bound puts its complement below 1e-16, where the quadrature
gives 1 to within its own error, 3e-14 measured).

Groups with three or more classes are computed together by a lattice quadrature of their own
(:mod:`bacc._engine.sums.batch_lattice`: one class exact, the others sampled on a lattice aligned
with the ends of their supports, batched FFT convolutions, Newton iterations on all groups at
once). It is a different deterministic method from the single evaluation's
(:class:`bacc.distributions.BetaSum`); measured against it over ten-class detectors of 10 to
5000 examples per class, groups with empty, perfect and one-example classes, class sizes from
1 to 10^6, 30 classes, the priors (1, 1), (2, 2) and Jeffreys', and random mixes of 3 to 8
classes of 1 to 10^4 examples under six priors, the credible bounds and the probability above
chance agree within 7e-11 (1.6e-11 on the ten-class detectors; the tests require 1e-9). The
groups that method does not take (a class with mass at an end of its support and a non-integer
exponent there, as under Jeffreys' prior; no class with a smooth density, as when every class
has at most a few examples) are evaluated one by one with :class:`~bacc.distributions.BetaSum`.

Which of these methods computes each group is decided in one place for every caller
(:mod:`bacc._engine.sums.chooser`, the groups run by :mod:`bacc._engine.sums.rows`). They run in
chunks of groups on threads (``workers``, default one per CPU): numpy and scipy
release the interpreter lock inside their element-wise loops, each chunk writes its own rows,
and the numbers are the same for any number of threads (tested bit for bit).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from ._engine.beta import posterior_parameters
from ._engine.helpers.convert import FrozenArrays, jsonable
from ._engine.helpers.threads import Background, check_workers
from ._engine.helpers.validate import (
    check_choice,
    check_confidence,
    check_count_limit,
    check_prior,
    unmasked,
)
from ._engine.sums.rows import interval_and_tail, steps
from .confusion import ConfusionMatrix, included_classes
from .distributions import BetaSum
from .errors import BaccError, BaccWarning, require
from .labels import check_classes
from .progress import Progress

__all__ = ["BatchEvaluation", "evaluate_many"]

_CHUNK = 2048  # two-class groups evaluated together (tens of MB of temporaries at most)
_DELAY = 0.5  # seconds before a progress bar appears


@dataclass(frozen=True, eq=False)
class BatchEvaluation(FrozenArrays):
    """One row per group. Arrays are aligned with ``groups``.

    Attributes
    ----------
    groups : tuple
        Group names (``0..G-1`` when none were given).
    labels : tuple
        Class labels shared by all groups.
    support : ndarray, shape (G, l)
        Examples per true class.
    correct : ndarray, shape (G, l)
        Correct predictions per true class.
    sample_accuracy, sample_balanced_accuracy : ndarray, shape (G,)
    mean, lower, upper : ndarray, shape (G,)
        Posterior mean and central credible interval of the balanced accuracy.
    exact_lower, exact_upper : ndarray, shape (G,)
        Exact two-sided union-bound interval (Clopper-Pearson per class at δ/(2l); Sandler & Dirac (2024)).
    p_above_chance : ndarray, shape (G,)
        Posterior probability that the balanced accuracy exceeds ``1 / l_g``.
    n_classes : ndarray, shape (G,)
        Classes that enter each group's balanced accuracy (those with examples).
    """

    groups: tuple
    labels: tuple
    confidence: float
    support: np.ndarray = field(repr=False)
    correct: np.ndarray = field(repr=False)
    sample_accuracy: np.ndarray = field(repr=False)
    sample_balanced_accuracy: np.ndarray = field(repr=False)
    mean: np.ndarray = field(repr=False)
    lower: np.ndarray = field(repr=False)
    upper: np.ndarray = field(repr=False)
    exact_lower: np.ndarray = field(repr=False)
    exact_upper: np.ndarray = field(repr=False)
    p_above_chance: np.ndarray = field(repr=False)
    n_classes: np.ndarray = field(repr=False)

    def __len__(self) -> int:
        return len(self.groups)

    #: attribute -> column of ``to_pandas`` and key of ``to_records`` (names that say what
    #: they are; ``support_<label>`` follow)
    _COLUMNS = {
        "sample_accuracy": "sample_accuracy",
        "sample_balanced_accuracy": "sample_balanced_accuracy",
        "mean": "posterior_mean",
        "lower": "credible_lower",
        "upper": "credible_upper",
        "exact_lower": "exact_lower",
        "exact_upper": "exact_upper",
        "p_above_chance": "p_above_chance",
    }

    def to_records(self) -> list[dict]:
        """One plain dict per group (JSON-able)."""
        out = []
        for g, name in enumerate(self.groups):
            row = {"group": jsonable(name)}
            for attr, col in self._COLUMNS.items():
                row[col] = float(getattr(self, attr)[g])
            row["support"] = {
                str(jsonable(lab)): int(v)
                for lab, v in zip(self.labels, self.support[g], strict=True)
            }
            out.append(row)
        return out

    def to_dict(self) -> dict:
        """Plain JSON-able dict: labels, confidence and one record per group."""
        return {
            "labels": [jsonable(x) for x in self.labels],
            "confidence": self.confidence,
            "groups": self.to_records(),
        }

    def to_pandas(self):
        """A pandas DataFrame with one row per group (pandas is imported only here).

        Columns: ``group``, ``sample_accuracy``, ``sample_balanced_accuracy``,
        ``posterior_mean``, ``credible_lower``, ``credible_upper``, ``exact_lower``,
        ``exact_upper``, ``p_above_chance`` and ``support_<label>`` (examples of each class).
        """
        pd = require("pandas", "data", "to_pandas")
        data = {"group": list(self.groups)}
        for attr, col in self._COLUMNS.items():
            data[col] = getattr(self, attr)
        for j, lab in enumerate(self.labels):
            data[f"support_{lab}"] = self.support[:, j]
        return pd.DataFrame(data)

    def __repr__(self) -> str:
        """One line: the groups, the classes, and the range of the posterior mean balanced
        accuracies with the groups at its ends (``print()`` gives the table)."""
        from .display.numbers import repr_number
        G = len(self.groups)
        head = f"<BatchEvaluation: {G} group{'s' if G != 1 else ''}, {len(self.labels)} classes"
        means = np.asarray(self.mean, dtype=float)
        if not G or np.all(np.isnan(means)):
            return head + ">"
        lo, hi = int(np.nanargmin(means)), int(np.nanargmax(means))
        if G == 1:
            return head + f", balanced accuracy {repr_number(means[0])} (posterior mean)>"
        return (
            head + f", balanced accuracy (posterior mean) from {repr_number(means[lo])} "
            f"({self.groups[lo]}) to {repr_number(means[hi])} ({self.groups[hi]})>"
        )

    def __str__(self) -> str:
        from .display.text import batch_text

        return batch_text(self)

    def _repr_html_(self) -> str:
        from .display.html import batch_html

        return batch_html(self)


def _as_stack(counts, groups, labels, rows):
    """Return (G, l, l) int64 counts (rows = true class), group names and labels."""
    if (
        hasattr(counts, "counts")
        and hasattr(counts, "groups")
        and not isinstance(counts, ConfusionMatrix)
    ):
        arr = np.asarray(counts.counts)
        groups = tuple(counts.groups) if groups is None else check_classes(groups, name="groups")
        labels = tuple(counts.labels) if labels is None else check_classes(labels, name="labels")
    elif isinstance(counts, dict):
        groups = tuple(counts) if groups is None else check_classes(groups, name="groups")
        mats = [
            c if isinstance(c, ConfusionMatrix) else ConfusionMatrix.from_matrix(c, rows=rows)
            for c in counts.values()
        ]
        return _from_matrices(mats, groups, labels)
    elif isinstance(counts, list | tuple) and counts and isinstance(counts[0], ConfusionMatrix):
        return _from_matrices(list(counts), groups, labels)
    else:
        counts = unmasked(counts, "counts")
        try:
            arr = np.asarray(counts)
        except (TypeError, ValueError) as exc:
            raise BaccError(f"cannot read the counts as an array: {exc}") from None
        check_choice(rows, ("true", "predicted"), "rows")
        if rows == "predicted" and arr.ndim == 3:
            arr = np.swapaxes(arr, 1, 2)
    if arr.ndim != 3 or arr.shape[1] != arr.shape[2] or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise BaccError(f"counts must have shape (groups, classes, classes), got {arr.shape}")
    stack = _validate_stack(arr)
    G, l = stack.shape[:2]
    groups = tuple(range(G)) if groups is None else check_classes(groups, name="groups")
    if len(groups) != G:
        raise BaccError(f"groups has {len(groups)} names but counts has {G} groups")
    labels = tuple(range(l)) if labels is None else check_classes(labels, name="labels")
    if len(labels) != l:
        raise BaccError(f"labels has {len(labels)} entries but the matrices have {l} classes")
    return stack, groups, labels


def _warn_left_out(inc: np.ndarray, groups: tuple, labels: tuple) -> None:
    """One warning for the groups whose balanced accuracy leaves out a class without true
    examples (as :func:`bacc.evaluate` warns for one matrix), naming the first."""
    short = ~inc.all(axis=1)
    if short.any():
        g = int(np.flatnonzero(short)[0])
        missing = [labels[i] for i in np.flatnonzero(~inc[g])]
        warnings.warn(
            f"{int(short.sum())} of {inc.shape[0]} groups have classes with no true examples, "
            f"left out of their balanced accuracy (e.g. group {groups[g]!r}: class(es) "
            f"{missing[:5]!r})",
            BaccWarning, stacklevel=3,
        )


def _validate_stack(arr) -> np.ndarray:
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise BaccError("counts must be numbers")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            g = int(np.argwhere(~np.isfinite(arr))[0][0])
            raise BaccError(f"group {g} has a non-finite count")
        if np.any(arr != np.round(arr)):
            g = int(np.argwhere(arr != np.round(arr))[0][0])
            raise BaccError(f"group {g} has a non-integer count")
    if np.any(arr < 0):
        g = int(np.argwhere(arr < 0)[0][0])
        raise BaccError(f"group {g} has a negative count")
    check_count_limit(arr, "counts")
    stack = arr.astype(np.int64)
    empty = stack.sum(axis=(1, 2)) == 0
    if empty.any():
        raise BaccError(f"group {int(np.flatnonzero(empty)[0])} has no examples (all counts are 0)")
    return stack


def _from_matrices(mats, groups, labels):
    if not mats:
        raise BaccError("no confusion matrices were given")
    lab0 = mats[0].labels
    for i, m in enumerate(mats):
        if m.labels != lab0:
            raise BaccError(
                f"group {i} has labels {m.labels!r}, group 0 has {lab0!r}; groups must share classes"
            )
    stack = np.stack([m.counts for m in mats])
    groups = tuple(range(len(mats))) if groups is None else check_classes(groups, name="groups")
    if len(groups) != len(mats):
        raise BaccError(f"groups has {len(groups)} names but there are {len(mats)} matrices")
    return stack, groups, lab0 if labels is None else check_classes(labels, name="labels")


def evaluate_many(
    counts,
    *,
    groups=None,
    labels=None,
    prior=(1.0, 1.0),
    confidence: float = 0.95,
    rows: str = "true",
    progress: bool = True,
    workers: int | None = None,
) -> BatchEvaluation:
    """Evaluate many confusion matrices at once.

    Parameters
    ----------
    counts : array_like of shape (G, l, l), sequence or dict of matrices, or grouped counts
        One confusion matrix per group (rows = true class unless ``rows="predicted"``); also
        accepts the result of :func:`bacc.counts` with ``by=`` (anything with ``.counts``,
        ``.groups`` and ``.labels``).
    groups, labels : sequence, optional
        Names of the groups and classes.
    prior : (float, float) or per-class pairs or {"flat", "jeffreys"}
        Beta prior of the class accuracies.
    confidence : float
        Level of the credible and exact intervals.
    rows : {"true", "predicted"}
        What the rows of the given matrices are.
    progress : bool
        Draw a progress bar on standard error when it is a terminal and the run takes more
        than half a second (default ``True``).
    workers : int, optional
        Threads for the quadratures of the groups of two or more classes, which run in
        chunks of groups (numpy and scipy release the interpreter lock while they compute).
        Default: every CPU this process may use, at most 8. The numbers do not depend on it.

    Returns
    -------
    BatchEvaluation
        One row per group: sample accuracy and balanced accuracy, posterior mean and central
        credible interval, exact union-bound interval, probability above chance, support.

    Notes
    -----
    Classes without examples in a group are left out of that group's balanced accuracy (as in
    :func:`bacc.evaluate`, but without a warning per group; ``n_classes`` says how many remain).

    The posterior is that of :func:`bacc.posterior_balanced_accuracy` (Brodersen et al. 2010;
    Carrillo et al. 2014), the exact interval the union bound of :func:`bacc.exact_interval`
    (Sandler & Dirac 2024) over Clopper & Pearson (1934) class bounds.

    Groups of one or two classes give the numbers of :func:`bacc.evaluate` (the same code).
    Groups of three or more classes are computed together by a lattice quadrature (see
    :mod:`bacc._engine.sums.batch_lattice`; Gerber 1982 for its narrow part, Marchal & Arbel 2017
    for its convolution window), within 7e-11 of :func:`bacc.evaluate` in the measurements of
    ``benchmarks/bench_batch.py`` and ``tests/test_batch.py``; groups outside its conditions
    are evaluated one by one.

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124, eqs. 1-7.
    .. [2] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic
       performance evaluation for multiclass classification using the posterior balanced
       accuracy. ROBOT2013: First Iberian Robotics Conference, Advances in Intelligent
       Systems and Computing 252, 347-361, eqs. 8 and 12.
    .. [3] Sandler, T. & Dirac, L. (2024). Tales from the binomial tail: confidence intervals
       for balanced accuracy. Groundlight blog, 16 January 2024, section "Constructing the bound
       for balanced accuracy".
    .. [4] Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits
       illustrated in the case of the binomial. Biometrika 26, 404-413.
    .. [5] Gerber, H. U. (1982). On the numerical evaluation of the distribution of aggregate
       claims and its stop-loss premiums. Insurance: Mathematics and Economics 1, 13-18.
    .. [6] Marchal, O. & Arbel, J. (2017). On the sub-Gaussianity of the Beta and Dirichlet
       distributions. Electronic Communications in Probability 22, paper 54.

    Examples
    --------
    >>> import numpy as np, bacc
    >>> res = bacc.evaluate_many(np.array([[[42, 3], [6, 4]], [[30, 0], [0, 12]]]))
    >>> res.mean.round(4).tolist()  # (43/47 + 5/12) / 2, (31/32 + 13/14) / 2
    [0.6658, 0.9487]
    """

    c = check_confidence(confidence)
    threads = check_workers(workers)
    stack, groups, labels = _as_stack(counts, groups, labels, rows)
    G, l, _ = stack.shape
    pa, pb = check_prior(prior, l, classes=labels)
    k = np.einsum("gii->gi", stack).astype(float)
    n = stack.sum(axis=2).astype(float)
    inc = included_classes(n)
    m = inc.sum(axis=1)
    _warn_left_out(inc, groups, labels)
    total = stack.sum(axis=(1, 2)).astype(float)
    sample_acc = k.sum(axis=1) / total
    with np.errstate(invalid="ignore", divide="ignore"):
        rec = np.where(inc, k / np.where(inc, n, 1.0), 0.0)
    sample_bal = rec.sum(axis=1) / m
    A, B = posterior_parameters(k, n, pa[None, :], pb[None, :])
    post_mean = np.where(inc, A / (A + B), 0.0).sum(axis=1) / m
    # exact union bound per group: on a thread of its own while the posteriors are computed
    ex_lo = np.empty(G)
    ex_hi = np.empty(G)
    bounds = Background(_exact_bounds(n, k, m, inc, c, ex_lo, ex_hi), enabled=threads > 1)
    q = np.array([(1 - c) / 2, (1 + c) / 2])
    # each group's sum by the method the chooser picks for it (bacc._engine.sums.rows);
    # chance is 1 / l over every class of the matrices (confusion.chance_level)
    with Progress(steps(inc), "evaluating", enabled=progress, delay=_DELAY) as bar:
        lower, upper, p_above = interval_and_tail(
            A, B, inc, 1.0 / l, q, single=BetaSum, threads=threads, advance=bar.advance,
            pair_chunk=_CHUNK,
        )
    bounds.result()
    return BatchEvaluation(
        groups=groups,
        labels=labels,
        confidence=c,
        support=n.astype(np.int64),
        correct=k.astype(np.int64),
        sample_accuracy=sample_acc,
        sample_balanced_accuracy=sample_bal,
        mean=post_mean,
        lower=lower,
        upper=upper,
        exact_lower=ex_lo,
        exact_upper=ex_hi,
        p_above_chance=p_above,
        n_classes=m.astype(np.int64),
    )


def _exact_bounds(n, k, m, inc, c, ex_lo, ex_hi):
    """A job filling ``ex_lo``, ``ex_hi``: the union bound of every group (Clopper-Pearson at the
    per-bound level for its number of classes; each distinct (correct, examples) pair once,
    as small daily counts repeat a lot)."""
    from ._engine.bounds.per_class import cp_bounds, per_bound_alpha

    def job():
        for mg in np.unique(m):
            rows_g = m == mg
            alpha = per_bound_alpha(c, int(mg), "two", "union")
            pairs, back = np.unique(
                n[rows_g].ravel() + 1j * k[rows_g].ravel(), return_inverse=True
            )
            lo_u, hi_u = cp_bounds(pairs.imag, pairs.real, alpha, "two")
            back = back.ravel()
            lo_b = lo_u[back].reshape(k[rows_g].shape)
            hi_b = hi_u[back].reshape(k[rows_g].shape)
            msk = inc[rows_g]
            ex_lo[rows_g] = np.where(msk, lo_b, 0.0).sum(axis=1) / mg
            ex_hi[rows_g] = np.where(msk, hi_b, 0.0).sum(axis=1) / mg

    return job
