"""Rank several classifiers by the posterior of their balanced accuracies.

Carrillo et al. (2014), section 4.5, ranks classifiers by counting pairwise wins: the sign of the
posterior mean of each difference ``delta = lambda_i - lambda_j`` (eq. 14) decides a winner. Here,
beside the wins:

* :func:`rank`: classifiers with their own test sets (or treated as such), independent
  posteriors, as in the paper. ``P(row > column)`` is exact (:class:`bacc.BetaSum`).
* :func:`rank_paired`: classifiers that predicted the same examples. Their posteriors are
  correlated; the paired model of :func:`bacc.compare_paired` (a Dirichlet over the joint
  outcomes in each class) is generalised from two classifiers to ``T``, and every pair's
  ``P(row > column)`` equals what :func:`bacc.compare_paired` gives for that pair (all pairs
  at once by :mod:`bacc._engine.paired_greater`, within 1e-9).

Which classifier is best, and the expected rank, are joint questions: both come from seeded
exact joint posterior draws, with Monte Carlo standard errors.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ._engine.helpers.convert import FrozenArrays, jsonable
from ._engine.helpers.validate import (
    MAX_SIMULATIONS,
    as_label_sequence,
    check_choice,
    check_int,
    check_random_state,
    check_sequence,
)
from ._engine.joint import class_patterns, draw_joint_balanced
from ._engine.paired_greater import paired_greater
from ._engine.probability_greater import pairwise_greater
from .comparison import (
    ClassifierPosterior,
    check_dirichlet_prior,
    check_names,
    independent_difference,
    same_classes,
)
from .confusion import ConfusionMatrix, balanced_classes, check_label_values
from .distributions import BetaSum, PairedDifference
from .errors import BaccError
from .evaluation import Evaluation
from .labels import encode
from .posterior import prior_phrase

__all__ = ["Ranking", "rank", "rank_paired", "rank_paired_counts"]

#: ``pairwise="auto"`` computes every pair exactly up to this many pairs (independent
#: posteriors, about 10 ms a pair) ...
EXACT_PAIRS_INDEPENDENT = 300
#: ... and up to this many for paired posteriors (30 classifiers; all pairs at once by
#: :func:`bacc._engine.paired_greater.paired_greater`, about 2 ms a pair); beyond, from the draws.
EXACT_PAIRS_PAIRED = 435
#: Pairs that batched computation leaves (a few examples per class) are computed one by one
#: (:class:`bacc.PairedDifference`, about 60 ms each); with ``pairwise="auto"``, more than this
#: many send every pair to the draws instead.
EXACT_PAIRS_ONE_BY_ONE = 45


# ----------------------------------------------------------------------------------------------
# result
@dataclass(frozen=True, eq=False)
class Ranking(FrozenArrays):
    """Result of :func:`rank` or :func:`rank_paired`. Frozen; print it or ``to_dict()``.

    Attributes
    ----------
    names : tuple of str
        Classifiers, in the order given.
    labels : tuple
        Classes of the balanced accuracy.
    mean_balanced_accuracy, sample_balanced_accuracy : numpy.ndarray
        Posterior mean and sample value of each classifier's balanced accuracy.
    mean_difference : numpy.ndarray, shape (T, T)
        Posterior mean of ``lambda_row - lambda_column`` (Carrillo et al. (2014), eq. 14).
    wins, rank : numpy.ndarray of int
        Carrillo et al. (2014), section 4.5: pairwise wins by the sign of the posterior mean of ``delta``, and
        the rank by number of wins (1 = most wins; ties share the better rank).
    p_greater : numpy.ndarray, shape (T, T)
        ``P(lambda_row > lambda_column)`` (diagonal NaN): exact (``pairwise == "exact"``), by
        one vectorised quadrature within 1e-9 (``"quadrature"``), or from the joint draws
        (``"draws"``, standard errors in ``p_greater_se``).
    p_best, p_best_se : numpy.ndarray
        Probability that each classifier has the highest balanced accuracy, with its Monte
        Carlo standard error (0 when exact: two classifiers with exact pairs).
    expected_rank, expected_rank_se : numpy.ndarray
        Posterior expected rank (1 = best) and its Monte Carlo standard error.
    n_draws : int
        Number of joint posterior draws behind ``p_best`` and ``expected_rank``; 0 when they
        are exact: of two classifiers, ``p_best`` is ``P(greater)`` and the expected rank
        ``1 + P(the other is greater)``, from the exact ``p_greater``.
    random_state : object
        Seed of the draws, as given.
    paired : bool
        True when the classifiers were scored on the same examples and ranked under their
        joint (paired) posterior (:func:`rank_paired`); False for independent posteriors.
    pairwise : {"exact", "draws"}
        How ``p_greater`` was computed.
    p_greater_se : numpy.ndarray or None
        Monte Carlo standard errors of ``p_greater`` when ``pairwise == "draws"``.
    prior : str
        The prior, in words.
    """

    names: tuple
    labels: tuple
    mean_balanced_accuracy: np.ndarray
    sample_balanced_accuracy: np.ndarray
    mean_difference: np.ndarray = field(repr=False)
    p_greater: np.ndarray = field(repr=False)
    wins: np.ndarray
    rank: np.ndarray
    p_best: np.ndarray
    p_best_se: np.ndarray
    expected_rank: np.ndarray
    expected_rank_se: np.ndarray
    n_draws: int
    random_state: object
    paired: bool = False
    pairwise: str = "exact"
    p_greater_se: np.ndarray | None = field(default=None, repr=False)
    prior: str = "flat prior Beta(1, 1) per class"

    @property
    def model(self) -> str:
        """The posterior model, in words."""
        if self.paired:
            return ("paired: joint Dirichlet posterior of the classifiers' outcomes on the same "
                    "examples")
        return "independent posteriors (one per classifier)"

    @property
    def order(self) -> np.ndarray:
        """Indices of the classifiers from first to last (by rank, then expected rank)."""
        return np.lexsort((self.expected_rank, self.rank))

    def to_dict(self) -> dict:
        """Plain JSON-able dict."""

        def mat(m):
            return [[None if np.isnan(v) else float(v) for v in row] for row in m]

        rs = self.random_state
        return {
            "names": [jsonable(n) for n in self.names],
            "labels": [jsonable(x) for x in self.labels],
            "mean_balanced_accuracy": self.mean_balanced_accuracy.tolist(),
            "sample_balanced_accuracy": self.sample_balanced_accuracy.tolist(),
            "mean_difference": mat(self.mean_difference),
            "p_greater": mat(self.p_greater),
            "wins": self.wins.tolist(),
            "rank": self.rank.tolist(),
            "p_best": self.p_best.tolist(),
            "p_best_se": self.p_best_se.tolist(),
            "expected_rank": self.expected_rank.tolist(),
            "expected_rank_se": self.expected_rank_se.tolist(),
            "n_draws": self.n_draws,
            "random_state": rs if isinstance(rs, int | type(None)) else str(rs),
            "paired": self.paired,
            "model": self.model,
            "prior": self.prior,
            "pairwise": self.pairwise,
            "p_greater_se": None if self.p_greater_se is None else mat(self.p_greater_se),
        }

    def __repr__(self) -> str:
        """One line: the classifiers from first to last with their posterior mean balanced
        accuracies, and P(best) of the first (``print()`` gives the full table)."""
        from .display.numbers import repr_number, repr_probability
        order = [int(i) for i in self.order]
        shown = [f"{self.rank[i]}. {self.names[i]} ({repr_number(self.mean_balanced_accuracy[i])})"
                 for i in order[:5]]
        more = f", ... {len(order) - 5} more" if len(order) > 5 else ""
        top = order[0]
        return (
            f"<Ranking of {len(order)} classifiers: {', '.join(shown)}{more}; "
            f"P({self.names[top]} best){repr_probability(self.p_best[top])}, "
            f"{'paired' if self.paired else 'independent'}>"
        )

    def __str__(self) -> str:
        from .display.text import ranking_text

        return ranking_text(self)

    def _repr_html_(self) -> str:
        from .display.html import ranking_html

        return ranking_html(self)



# ----------------------------------------------------------------------------------------------
# shared steps
def default_draws(variables: int) -> int:
    """Default number of joint draws: 100 000, fewer when each draw needs many Beta variables
    (about 3e7 in all), never fewer than 10 000.

    Examples
    --------
    >>> default_draws(40), default_draws(3000)
    (100000, 10000)
    """
    return int(min(100_000, max(10_000, 30_000_000 // max(variables, 1))))


def default_names(n: int) -> list[str]:
    """Names of unnamed classifiers: ``A, B, C, ...`` as in :func:`bacc.compare` (``C1, C2,
    ...`` beyond 26).

    Examples
    --------
    >>> default_names(3), default_names(27)[-1]
    (['A', 'B', 'C'], 'C27')
    """
    if n <= 26:
        return [chr(ord("A") + i) for i in range(n)]
    return [f"C{i + 1}" for i in range(n)]


def _setup(what, T, names, default, n_draws, pairwise, limit, beyond) -> tuple[tuple, str]:
    """Check what both rankings take: names, the number of draws and the pairwise mode."""
    if T < 2:
        raise BaccError(f"{what} needs at least two classifiers, got {T}")
    nm = check_names(names, T, default)
    if n_draws is not None:
        check_int(n_draws, "n_draws", 2, MAX_SIMULATIONS)
    return nm, _pairwise_mode(pairwise, T, limit, beyond)


def _pairwise_mode(pairwise: str, T: int, limit: int, beyond: str) -> str:
    mode = check_choice(pairwise, ("auto", "exact", "quadrature", "draws"), "pairwise")
    if mode == "quadrature" and beyond != "quadrature":
        raise BaccError("pairwise='quadrature' needs independent posteriors (bacc.rank); "
                        "rank_paired computes pairs 'exact' or from the 'draws'")
    if mode == "auto":
        if T * (T - 1) // 2 > limit:
            return beyond
        # paired: exact unless too many pairs are left to the one-by-one computation
        return "auto" if beyond == "draws" else "exact"
    return mode


def _exact_pairs(T: int, p_of_pair: Callable[[int, int], float], progress) -> np.ndarray:
    """``P(row > column)`` for every pair from ``p_of_pair(i, j) = P(lambda_i > lambda_j)``."""
    p = np.full((T, T), np.nan)
    total = T * (T - 1) // 2
    done = 0
    for i in range(T):
        for j in range(i + 1, T):
            p[i, j] = p_of_pair(i, j)
            p[j, i] = 1.0 - p[i, j]
            done += 1
            if progress is not None:
                progress(done, total)
    return p


#: Pairs of a quadrature checked against one exact convolution each, and the largest
#: difference accepted.
VERIFY_PAIRS = 24
VERIFY_TOL = 1e-8


def rng_verify(posts) -> list[tuple[int, int]]:
    """The pairs that verify a quadrature: among the classifiers with the least data (the
    roughest densities) first, then spread over the rest (deterministic)."""
    T = len(posts)
    rough = np.argsort([float(np.min(p.a + p.b)) for p in posts], kind="stable")
    pairs = [(int(rough[i]), int(rough[j])) for i in range(min(T, 6)) for j in range(i + 1, min(T, 6))]
    step = max(1, T // 9)
    pairs += [(i, (i + 1 + i // step) % T) for i in range(0, T, step)]
    out = []
    for i, j in pairs:
        if i != j and (i, j) not in out and (j, i) not in out:
            out.append((i, j))
    return out[:VERIFY_PAIRS]


def _verified(p: np.ndarray, posts, pairs) -> bool:
    """The quadrature agrees with the exact computation on ``pairs`` within VERIFY_TOL."""
    for i, j in pairs:
        if abs(p[i, j] - float(independent_difference(posts[i], posts[j]).sf(0.0))) > VERIFY_TOL:
            return False
    return True


def _best_and_ranks_of_two(p_greater: np.ndarray):
    """``_from_draws``'s numbers for two classifiers from their exact ``P(row > column)``:
    ``P(best)`` of each is the probability that it is the greater (a tie has probability 0),
    its expected rank 1 plus the probability that the other is; no Monte Carlo error."""
    p = float(p_greater[0, 1])
    zero = np.zeros(2)
    return np.array([p, 1.0 - p]), zero, np.array([2.0 - p, 1.0 + p]), zero.copy()


def _decided_by_the_pair(T: int, mode: str) -> bool:
    """Two classifiers whose pair is exact (or by the checked quadrature): P(best) and the
    expected ranks follow from it, and no draws are made."""
    return T == 2 and mode != "draws"


def _from_draws(draws: np.ndarray, pairs: bool = True):
    """P(best) (a tie for the best shares it), expected rank (a tie, of probability 0 for these
    continuous draws, is ranked by position) and, with ``pairs``, P(row > column), with
    standard errors, from joint draws of shape (n, T)."""
    n, T = draws.shape
    top = draws.max(axis=1, keepdims=True)
    is_top = draws == top
    p_best = (is_top / is_top.sum(axis=1, keepdims=True)).mean(axis=0)
    p_best_se = np.sqrt(p_best * (1 - p_best) / n)
    # continuous draws: ties have probability 0 (the best is still shared when one happens)
    ranks = T - np.argsort(np.argsort(draws, axis=1), axis=1)
    exp_rank = ranks.mean(axis=0)
    exp_rank_se = ranks.std(axis=0, ddof=1) / np.sqrt(n)
    greater = np.full((T, T), np.nan)
    for i in range(T if pairs else 0):
        g = (draws[:, [i]] > draws).mean(axis=0)
        greater[i] = g
        greater[i, i] = np.nan
    return p_best, p_best_se, exp_rank, exp_rank_se, greater, np.sqrt(greater * (1 - greater) / n)


def _result(names, labels, means, samples, draws, p_greater, mode, *, n_draws, random_state,
            paired, prior) -> Ranking:
    mean_diff = means[:, None] - means[None, :]
    wins = np.sum(mean_diff > 0, axis=1).astype(int)
    rnk = 1 + np.sum(wins[None, :] > wins[:, None], axis=1).astype(int)
    if draws is None:  # two classifiers (_decided_by_the_pair)
        p_best, p_best_se, exp_rank, exp_rank_se = _best_and_ranks_of_two(p_greater)
        n_draws = 0
    else:
        p_best, p_best_se, exp_rank, exp_rank_se, greater, greater_se = _from_draws(
            draws, pairs=mode == "draws")
    if mode == "draws":
        p_greater, p_se = greater, greater_se
    else:
        p_se = None
    return Ranking(
        names=tuple(names),
        labels=tuple(labels),
        mean_balanced_accuracy=np.asarray(means, dtype=float),
        sample_balanced_accuracy=np.asarray(samples, dtype=float),
        mean_difference=mean_diff,
        p_greater=p_greater,
        wins=wins,
        rank=rnk,
        p_best=p_best,
        p_best_se=p_best_se,
        expected_rank=exp_rank,
        expected_rank_se=exp_rank_se,
        n_draws=int(n_draws),
        random_state=random_state,
        paired=paired,
        pairwise=mode,
        p_greater_se=p_se,
        prior=prior,
    )


def _draw_balanced(rng, post: ClassifierPosterior, n: int, chunk_elems: int = 4_000_000) -> np.ndarray:
    """Exact independent draws of one classifier's balanced accuracy (chunked for memory)."""
    m = post.a.size
    step = max(1, chunk_elems // m)
    out = np.empty(n)
    for s in range(0, n, step):
        k = min(step, n - s)
        out[s : s + k] = rng.beta(post.a, post.b, size=(k, m)) @ post.w
    return out


# ----------------------------------------------------------------------------------------------
# independent posteriors
def _is_series(obj) -> bool:
    """A pandas Series (or anything with an index, ``items`` and ``to_numpy``, one dimension)."""
    return (all(hasattr(obj, a) for a in ("index", "items", "to_numpy"))
            and not hasattr(obj, "columns") and getattr(obj, "ndim", 1) == 1)


def _item_names(items) -> list[str]:
    """The names the items carry (a ``name`` attribute, as :attr:`Evaluation.name` or a named
    pandas Series has); an item without one gets the letter of its place (``A, B, C, ...``),
    and a name given twice is told apart as the command line does (``"m"``, ``"m (2)"``).

    Examples
    --------
    >>> from types import SimpleNamespace as N
    >>> _item_names([N(name="m"), N(name=None), N(name="m")])
    ['m', 'B', 'm (2)']
    """
    letters = default_names(len(items))
    given = [getattr(x, "name", None) for x in items]
    names = [n if isinstance(n, str) and n else letters[t] for t, n in enumerate(given)]
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n} ({seen[n]})")
    while len(set(out)) != len(out):  # a suffixed name that was given as such
        out = [f"{n}'" if out.count(n) > 1 and k > out.index(n) else n for k, n in enumerate(out)]
    return out


def rank(
    evaluations,
    *,
    names=None,
    random_state=0,
    n_draws: int | None = None,
    prior=None,
    rows: str = "true",
    pairwise: str = "auto",
    progress: Callable[[int, int], None] | None = None,
) -> Ranking:
    """Rank several classifiers by their posterior balanced accuracies (independent posteriors).

    Parameters
    ----------
    evaluations : sequence, mapping or pandas Series of (ConfusionMatrix, array_like or Evaluation)
        The classifiers' results over the same classes. A mapping (``{"name": result}``) or a
        Series names them by its keys or index.
    names : sequence of str, optional
        Names. Default: the names the input carries, never replaced: a mapping's keys, a
        Series' index, or the results' own ``name`` (``bacc.evaluate(..., name=)``, or the
        prediction column of a table); only a result given without any name is called by
        the letter of its place, ``A, B, C, ...`` (as in :func:`bacc.compare`), and a name
        given twice becomes ``"m"``, ``"m (2)"``.
    random_state : int, numpy Generator or None
        Seed of the joint posterior draws behind ``p_best`` and ``expected_rank``.
    n_draws : int, optional
        Number of joint posterior draws (default 100 000, fewer for large rankings so that
        about 3e7 Beta variables are drawn, but never fewer than 10 000; the Monte Carlo
        standard errors are reported either way). Two classifiers need none: with the pair
        exact, ``P(best)`` is ``P(greater)`` (``n_draws`` of the result is then 0).
    prior : Beta prior for matrix inputs (default flat); see :func:`bacc.compare`.
    rows : {"true", "predicted"}
        Orientation of matrix inputs.
    pairwise : {"auto", "exact", "quadrature", "draws"}
        How ``P(row > column)`` is computed: ``"exact"`` (one :class:`bacc.BetaSum` of the
        difference per pair, about 10 ms each: the work grows with the square of the number of
        classifiers), ``"quadrature"`` (every pair in one vectorised pass,
        ``P(i > j) = integral of f_i F_j``; 300 classifiers in about 2 s; see
        :mod:`bacc._engine.probability_greater`), checked against the exact computation on 24 pairs
        (those with the least data first) and replaced by exact pairs when any differs by
        more than 1e-8 (densities with kinks, from classes of a few examples);
        ``"draws"`` (from the joint draws, with standard errors), or ``"auto"`` (default:
        exact up to 300 pairs, that is 25 classifiers, the checked quadrature beyond).
    progress : callable, optional
        Called as ``progress(done, total)`` as the pairwise step advances (for a progress
        bar).

    Returns
    -------
    Ranking
        ``wins`` and ``rank`` (the scheme of Carrillo et al. (2014)), ``mean_difference``, the
        ``p_greater`` matrix, ``p_best`` and ``expected_rank`` with Monte Carlo standard
        errors; ``paired`` is False.

    Raises
    ------
    BaccError
        Fewer than two classifiers, classifiers over different classes, bad options.

    Notes
    -----
    Carrillo et al. (2014), section 4.5: compute the pairwise posterior differences (eq. 14)
    and their posterior means, let the sign of each mean decide a winner, count wins, and rank
    by wins. By linearity the posterior mean of ``delta`` is the difference of the posterior
    means. The paper notes that the sign of the mean stands in for ``P(lambda_i > lambda_j)``;
    that probability is given here (``p_greater``, each a :class:`bacc.BetaSum` survival
    function at 0). ``p_best[t]`` and ``expected_rank[t]`` are estimated from ``n_draws``
    exact, independent joint draws of the posteriors, so their Monte Carlo standard errors are
    ``sqrt(p (1 - p) / n)`` and ``sd(rank) / sqrt(n)``; of two classifiers they follow exactly
    from ``p_greater`` (no draws, standard errors 0). As in the paper, the posteriors are
    treated as independent; classifiers that predicted the same examples are correlated and
    are ranked with :func:`rank_paired`.

    References
    ----------
    .. [1] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic
       performance evaluation for multiclass classification using the posterior balanced
       accuracy. ROBOT2013: First Iberian Robotics Conference, Advances in Intelligent
       Systems and Computing 252, 347-361, section 4.5 and section 5.1 (ranking C1, C2, C3).

    Examples
    --------
    >>> import bacc
    >>> r = bacc.rank([[[40, 5], [5, 10]], [[30, 15], [8, 7]], [[44, 1], [2, 13]]])
    >>> r.rank.tolist()  # posterior means 0.760, 0.565, 0.890
    [2, 3, 1]
    >>> round(float(r.p_greater[2, 0]), 3)  # P(lambda_C > lambda_A)
    0.954
    """
    if isinstance(evaluations, Mapping):
        default = [str(k) for k in evaluations]
        items = list(evaluations.values())
    elif _is_series(evaluations):
        # a pandas Series of results: its index names them
        default = [str(k) for k in evaluations.index]
        items = list(evaluations.to_numpy(dtype=object))
    else:
        if isinstance(evaluations, str | bytes | ConfusionMatrix | Evaluation | np.ndarray):
            raise BaccError("evaluations must be a sequence (or mapping) of several classifiers' results")
        items = list(check_sequence(evaluations, "evaluations"))
        default = _item_names(items)
    T = len(items)
    nm, mode = _setup("rank", T, names, default, n_draws, pairwise, EXACT_PAIRS_INDEPENDENT,
                      "quadrature")
    rng = check_random_state(random_state)
    posts = []
    for t, x in enumerate(items):  # a loop, not a comprehension: warnings name the user's line
        posts.append(
            ClassifierPosterior(x, prior=prior, weights=None, rows=rows, what=f"classifier {nm[t]}")
        )
    for t in range(1, T):
        # a ranking may hold test sets where a class has no examples (groups of a report):
        # each keeps its own balanced accuracy, as in the table beside it
        same_classes(posts[0], posts[t], nm[0], nm[t], included=False)
    p_greater = None
    if mode == "exact":
        p_greater = _exact_pairs(
            T, lambda i, j: float(independent_difference(posts[i], posts[j]).sf(0.0)), progress
        )
    elif mode == "quadrature":
        dists = [BetaSum(p.a, p.b, p.w) for p in posts]
        p_greater = pairwise_greater(dists, progress)
        if not _verified(p_greater, posts, rng_verify(posts)):
            # the densities have kinks the quadrature does not resolve: every pair exactly
            mode = "exact"
            p_greater = _exact_pairs(
                T, lambda i, j: float(independent_difference(posts[i], posts[j]).sf(0.0)), progress
            )
    if _decided_by_the_pair(T, mode):
        draws = None
    else:
        if n_draws is None:
            n_draws = default_draws(sum(p.a.size for p in posts))
        draws = np.column_stack([_draw_balanced(rng, p, int(n_draws)) for p in posts])
    phrases = {prior_phrase(p.prior_a, p.prior_b) for p in posts}
    return _result(
        nm, posts[0].cm.labels, np.array([p.mean for p in posts]),
        np.array([p.sample for p in posts]), draws, p_greater, mode, n_draws=n_draws,
        random_state=random_state, paired=False,
        prior=phrases.pop() if len(phrases) == 1 else "Beta priors that differ between classifiers",
    )


# ----------------------------------------------------------------------------------------------
# paired posteriors
def _predictions(predictions, n: int):
    """Names and label sequences of several classifiers' predictions."""
    if isinstance(predictions, Mapping):
        names = [str(k) for k in predictions]
        cols = list(predictions.values())
    else:
        if isinstance(predictions, str | bytes):
            raise BaccError("predictions must be several prediction sequences (or a mapping of them)")
        arr = None
        if isinstance(predictions, np.ndarray) and predictions.ndim == 2:
            arr = predictions
        elif hasattr(predictions, "columns") and hasattr(predictions, "to_numpy"):
            names = [str(c) for c in predictions.columns]
            return names, [predictions[c] for c in predictions.columns]
        if arr is not None:
            if arr.shape[0] != n and arr.shape[1] == n:
                arr = arr.T
            cols = [arr[:, t] for t in range(arr.shape[1])]
        else:
            cols = list(check_sequence(predictions, "predictions"))
        letters = default_names(len(cols))
        names = []
        for t, col in enumerate(cols):
            nm = getattr(col, "name", None)
            names.append(str(nm) if isinstance(nm, str) and nm else letters[t])
        if len(set(names)) != len(names):
            names = letters
    return names, cols


def rank_paired(
    y_true,
    predictions,
    *,
    names=None,
    labels=None,
    prior=0.5,
    weights=None,
    random_state=0,
    n_draws: int | None = None,
    pairwise: str = "auto",
    progress: Callable[[int, int], None] | None = None,
) -> Ranking:
    """Rank classifiers that predicted the same test examples, under their joint posterior.

    Parameters
    ----------
    y_true : sequence
        True labels, one per example.
    predictions : mapping, sequence of sequences, 2-D array or DataFrame
        Each classifier's predictions of the same examples: ``{name: y_pred}``, a list of
        prediction sequences (pandas Series give their names), an array of shape
        ``(n_examples, T)``, or a DataFrame with one column per classifier.
    names : sequence of str, optional
        Names (default: the mapping's keys, Series or column names, else ``A, B, C, ...``).
    labels : sequence, optional
        Class order (and classes never seen).
    prior : float or {"flat", "jeffreys"}
        Concentration ``c`` of one cell of the two-classifier paired model, as in
        :func:`bacc.compare_paired` (default ``0.5``: each class accuracy has the flat-prior
        marginal ``Beta(k + 1, n - k + 1)``, as in :func:`bacc.evaluate`).
    weights : array_like, optional
        Class weights of the balanced accuracy (default ``1/l``).
    random_state : int, numpy Generator or None
        Seed of the joint posterior draws.
    n_draws : int, optional
        Number of joint posterior draws (default 100 000, fewer when each draw needs many
        Gamma variables, one per distinct right/wrong pattern of a class and one per classifier
        and class, so that about 3e7 are drawn, as in :func:`rank`; never fewer than 10 000).
        Two classifiers with an exact pair need none, as in :func:`rank`.
    pairwise : {"auto", "exact", "draws"}
        How ``P(row > column)`` is computed: ``"exact"`` (every pair as
        :func:`bacc.compare_paired` gives it: all pairs at once by a Fourier inversion, about
        2 ms a pair, and the pairs whose checks it does not pass, where classes have a handful
        of examples, by one :class:`bacc.PairedDifference` each, about 60 ms), ``"draws"``
        (from the joint draws, with standard errors), or ``"auto"`` (default: exact up to 435
        pairs, that is 30 classifiers, unless more than 45 pairs are left to the one-by-one
        computation; else from the draws).
    progress : callable, optional
        Called as ``progress(done, total)`` after the pairs computed at once and after each
        pair computed on its own.

    Returns
    -------
    Ranking
        As :func:`rank`, with ``paired=True``.

    Raises
    ------
    BaccError
        Fewer than two classifiers, sequences of different lengths, labels outside ``labels``,
        bad options.

    Notes
    -----
    In class ``i`` each example's outcome is a pattern of ``T`` bits (each classifier right or
    wrong); the ``2**T`` patterns are multinomial with a Dirichlet posterior
    ``Dirichlet(counts + c / 2**(T - 2))``. Summing cells, every pair of classifiers has the
    posterior ``Dirichlet(pair counts + c)`` of :func:`bacc.compare_paired`, so ``p_greater``
    of a pair equals that function's ``p_better`` (exactly with ``pairwise="exact"``), and for
    two classifiers the ranking is that comparison. The exact pairs are computed together
    (:mod:`bacc._engine.paired_greater`: periodised Fourier inversion of each pair's
    characteristic function, Bohman 1972, with Gauss rules of the Beta variables), checked pair
    by pair, within 1e-9 of :func:`bacc.compare_paired`. Each classifier's class accuracy is
    ``Beta(k + 2c, n - k + 2c)`` whatever ``T``. ``p_best`` and ``expected_rank`` come from
    ``n_draws`` exact joint draws (the ``2**T`` cells are never listed: the prior part is drawn
    by stick-breaking, see :mod:`bacc._engine.joint`), with Monte Carlo standard errors; of two
    classifiers, from the exact pair.
    Classes without true examples are left out with a warning.

    References
    ----------
    .. [1] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic
       performance evaluation for multiclass classification using the posterior balanced
       accuracy. ROBOT2013: First Iberian Robotics Conference, Advances in Intelligent
       Systems and Computing 252, 347-361, section 4.5, eq. 14.
    .. [2] Sethuraman, J. (1994). A constructive definition of Dirichlet priors. Statistica
       Sinica 4, 639-650.
    .. [3] Bohman, H. (1972). From characteristic function to distribution function via
       Fourier analysis. BIT Numerical Mathematics 12, 279-283.

    Examples
    --------
    >>> import bacc
    >>> y = [0] * 30 + [1] * 30
    >>> a = [0] * 27 + [1] * 3 + [1] * 26 + [0] * 4
    >>> b = [0] * 25 + [1] * 5 + [1] * 24 + [0] * 6
    >>> c = [0] * 19 + [1] * 11 + [1] * 29 + [0] * 1
    >>> r = bacc.rank_paired(y, {"a": a, "b": b, "c": c})
    >>> [r.names[i] for i in r.order]
    ['a', 'b', 'c']
    >>> p = bacc.compare_paired(y, a, b).p_better
    >>> abs(float(r.p_greater[0, 1]) - p) < 1e-9  # every pair is compare_paired's answer
    True
    """
    yt = as_label_sequence(y_true, "y_true")
    default, cols = _predictions(predictions, len(yt))
    T = len(cols)
    nm, mode = _setup("rank_paired", T, names, default, n_draws, pairwise, EXACT_PAIRS_PAIRED,
                      "draws")
    c = float(check_dirichlet_prior(prior)[0])
    if not np.isscalar(prior) and np.ndim(prior) > 0 and not isinstance(prior, str):
        raise BaccError("rank_paired takes one concentration for every cell (or 'flat', 'jeffreys')")
    rng = check_random_state(random_state)
    preds = []
    for t, col in enumerate(cols):
        p = as_label_sequence(col, f"predictions of {nm[t]}")
        if len(p) != len(yt):
            raise BaccError(
                f"the predictions of {nm[t]} have {len(p)} entries and y_true has {len(yt)}; "
                "a paired ranking needs every classifier's prediction of the same examples"
            )
        preds.append(p)
    named = {"y_true": yt, **{f"predictions of {nm[t]}": p for t, p in enumerate(preds)}}
    classes, (ti, *codes) = encode(
        named, labels=labels,
        refuse=lambda seqs: [check_label_values(seqs["y_true"], seqs[k]) for k in list(seqs)[1:]],
    )
    return _paired_ranking(classes, ti, codes, None, nm, mode, c, rng, weights, n_draws,
                           random_state, progress)


def rank_paired_counts(
    classes,
    codes,
    n,
    *,
    names=None,
    prior=0.5,
    weights=None,
    random_state=0,
    n_draws: int | None = None,
    pairwise: str = "auto",
    progress: Callable[[int, int], None] | None = None,
) -> Ranking:
    """:func:`rank_paired` from counted examples: the distinct (true, prediction 1, ...,
    prediction T) tuples and how many examples show each (what
    :func:`bacc.counting.joint.joint_counts` counts where the data live).

    Parameters
    ----------
    classes : sequence
        The classes, in order.
    codes : array_like of int, shape (m, 1 + T)
        Class index of the true label and of each classifier's prediction, per tuple.
    n : array_like of int, shape (m,)
        Examples of each tuple.
    names, prior, weights, random_state, n_draws, pairwise, progress
        As in :func:`rank_paired` (default names ``A, B, C, ...``).

    Returns
    -------
    Ranking
        The same result as :func:`rank_paired` on the examples written out one by one.
    """
    codes = np.asarray(codes, dtype=np.int64)
    if codes.ndim != 2 or codes.shape[1] < 3:
        raise BaccError("codes must have one row per tuple: the true class and two or more predictions")
    T = codes.shape[1] - 1
    nm, mode = _setup("rank_paired", T, names, default_names(T), n_draws, pairwise,
                      EXACT_PAIRS_PAIRED, "draws")
    c = float(check_dirichlet_prior(prior)[0])
    if not np.isscalar(prior) and np.ndim(prior) > 0 and not isinstance(prior, str):
        raise BaccError("rank_paired takes one concentration for every cell (or 'flat', 'jeffreys')")
    rng = check_random_state(random_state)
    return _paired_ranking(tuple(classes), codes[:, 0], list(codes[:, 1:].T),
                           np.asarray(n, dtype=np.int64).reshape(-1), nm, mode, c, rng, weights,
                           n_draws, random_state, progress)


def _patterns(right: np.ndarray, ti: np.ndarray, n_classes: int, n: np.ndarray | None):
    """Per class, the distinct right/wrong patterns and how many examples show each
    (:func:`bacc._engine.joint.class_patterns`, with entries that stand for ``n`` examples)."""
    if n is None:
        return class_patterns(right, ti, n_classes)
    out = []
    for i in range(n_classes):
        sel = (ti == i) & (n > 0)
        rows = right[sel]
        if rows.shape[0] == 0:
            out.append((np.zeros((0, right.shape[1]), dtype=bool), np.zeros(0, dtype=np.int64)))
            continue
        pats, inv = np.unique(rows, axis=0, return_inverse=True)
        cnt = np.bincount(np.ravel(inv), weights=n[sel]).round().astype(np.int64)
        out.append((pats.astype(bool), cnt))
    return out


def _pair_alphas(patterns, c: float) -> np.ndarray:
    """The Dirichlet parameters of every pair ``i < j`` (in the order of ``np.triu_indices``)
    in every class: the four cells (both right, only ``i``, only ``j``, both wrong) plus ``c``.
    Shape (pairs, classes, 4)."""
    T = patterns[0][0].shape[1]
    iu, ju = np.triu_indices(T, 1)
    out = np.empty((iu.size, len(patterns), 4))
    for k, (pats, cnt) in enumerate(patterns):
        right = pats.astype(float)
        cnt = cnt.astype(float)
        total = float(cnt.sum())
        each = right.T @ cnt
        both = (right * cnt[:, None]).T @ right
        n11 = both[iu, ju]
        out[:, k, 0] = n11
        out[:, k, 1] = each[iu] - n11
        out[:, k, 2] = each[ju] - n11
        out[:, k, 3] = total - each[iu] - each[ju] + n11
    return out + c


def _paired_exact(patterns, w, c: float, progress, *, strict: bool) -> np.ndarray | None:
    """``P(row > column)`` of every pair, each :func:`bacc.compare_paired`'s ``p_better``: all
    pairs at once (:func:`bacc._engine.paired_greater.paired_greater`), those it leaves one by
    one (:class:`bacc.PairedDifference`). None when not ``strict`` and more than
    :data:`EXACT_PAIRS_ONE_BY_ONE` pairs are left (the caller takes the draws)."""
    T = patterns[0][0].shape[1]
    use = w > 0
    alpha = _pair_alphas(patterns, c)[:, use]
    wu = w[use]
    values, handled = paired_greater(alpha, wu)
    left = np.flatnonzero(~handled)
    if not strict and left.size > EXACT_PAIRS_ONE_BY_ONE:
        return None
    total = values.size
    done = total - left.size
    if progress is not None and done:
        progress(done, total)
    for k in left:
        values[k] = float(PairedDifference(alpha[k], wu).sf(0.0))
        done += 1
        if progress is not None:
            progress(done, total)
    p = np.full((T, T), np.nan)
    iu, ju = np.triu_indices(T, 1)
    p[iu, ju] = values
    p[ju, iu] = 1.0 - values
    return p


def _paired_ranking(classes, ti, codes, n, nm, mode, c, rng, weights, n_draws, random_state,
                    progress) -> Ranking:
    """The paired ranking of class indices ``ti`` (truth) and ``codes`` (one array per
    classifier), each entry one example or, with ``n``, ``n`` examples (:func:`rank_paired`)."""
    T = len(codes)
    m = len(classes)
    if n is None:
        cells = [np.bincount(ti * m + pi, minlength=m * m) for pi in codes]
    else:
        cells = [np.bincount(ti * m + pi, weights=n, minlength=m * m).round().astype(np.int64)
                 for pi in codes]
    cms = [ConfusionMatrix(x.reshape(m, m), classes) for x in cells]
    cm0 = cms[0]
    keep, w = balanced_classes(cm0, weights, empty="drop", stacklevel=3)
    idx = np.flatnonzero(keep)
    right = np.column_stack([pi == ti for pi in codes])
    patterns = _patterns(right, ti, cm0.n_classes, n)
    patterns = [patterns[i] for i in idx]
    n_i = np.array([cnt.sum() for _, cnt in patterns], dtype=float)
    k_ti = np.array([[cnt[pats[:, t]].sum() for pats, cnt in patterns] for t in range(T)], dtype=float)
    means = ((k_ti + 2 * c) / (n_i + 4 * c)) @ w
    samples = (k_ti / n_i) @ w
    p_greater = None
    if mode in ("exact", "auto"):
        p_greater = _paired_exact(patterns, w, c, progress, strict=mode == "exact")
        mode = "exact" if p_greater is not None else "draws"
    if _decided_by_the_pair(T, mode):
        draws = None
    else:
        if n_draws is None:
            # the Gamma variables of each draw: one per observed pattern and a share per
            # classifier
            n_draws = default_draws(sum(cnt.size + T for _, cnt in patterns))
        draws = draw_joint_balanced(patterns, w, c, int(n_draws), rng)
    phrase = (
        f"paired Dirichlet prior {c:g} per cell of each pair (marginally Beta({2 * c:g}, "
        f"{2 * c:g}) per class)"
    )
    if c == 0.5:
        phrase = "flat prior Beta(1, 1) per class (paired Dirichlet, 1/2 per cell of each pair)"
    return _result(
        nm, tuple(cm0.labels[i] for i in idx), means, samples, draws, p_greater, mode,
        n_draws=n_draws, random_state=random_state, paired=True, prior=phrase,
    )
