"""evaluate_many: the same numbers as one evaluate per group, computed across groups at once."""

import io
import sys

import numpy as np
import pytest

import bacc
from bacc import BaccError


def _binary_stack(G, state):
    rng = np.random.default_rng(state)
    n = rng.integers(1, 400, (G, 2))
    n[0] = [0, 25]  # a detector that has only seen one class
    n[1] = [10**9, 10]  # a huge class
    k = rng.binomial(n, rng.uniform(0.4, 1.0, (G, 2)))
    k[2] = n[2]  # perfect detector
    s = np.zeros((G, 2, 2), dtype=np.int64)
    s[:, 0, 0], s[:, 0, 1] = k[:, 0], n[:, 0] - k[:, 0]
    s[:, 1, 1], s[:, 1, 0] = k[:, 1], n[:, 1] - k[:, 1]
    return s


def test_batch_equals_single_evaluations_to_1e9():
    stack = _binary_stack(60, 3)
    res = bacc.evaluate_many(stack, groups=[f"det{i}" for i in range(60)])
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bacc.BaccWarning)
        for g in range(60):
            ev = bacc.evaluate(stack[g])
            s = ev.balanced_accuracy_summary
            ex = ev.exact_interval()
            assert res.sample_accuracy[g] == pytest.approx(ev.sample_accuracy, abs=1e-12)
            assert res.sample_balanced_accuracy[g] == pytest.approx(
                ev.sample_balanced_accuracy, abs=1e-12
            )
            assert abs(res.mean[g] - s.mean) < 1e-9
            assert abs(res.lower[g] - s.lower) < 1e-9
            assert abs(res.upper[g] - s.upper) < 1e-9
            assert abs(res.p_above_chance[g] - ev.p_above_chance) < 1e-9
            assert abs(res.exact_lower[g] - ex.lower) < 1e-9
            assert abs(res.exact_upper[g] - ex.upper) < 1e-9
            assert res.support[g].tolist() == ev.confusion.support.tolist()


def test_batch_handles_multiclass_groups():
    rng = np.random.default_rng(5)
    stack = rng.integers(0, 30, (4, 3, 3))
    res = bacc.evaluate_many(stack, labels=["a", "b", "c"])
    for g in range(4):
        ev = bacc.evaluate(stack[g])
        assert abs(res.lower[g] - ev.balanced_accuracy_summary.lower) < 1e-9
        assert abs(res.p_above_chance[g] - ev.p_above_chance) < 1e-9


def test_batch_accepts_matrices_by_name_and_reports_records():
    res = bacc.evaluate_many({"cam-1": [[42, 3], [6, 4]], "cam-2": [[30, 0], [0, 12]]})
    recs = res.to_records()
    assert [r["group"] for r in recs] == ["cam-1", "cam-2"]
    assert recs[1]["support"] == {"0": 30, "1": 12}
    assert "cam-2" in str(res)


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        (np.zeros((2, 2, 3)), "shape"),
        (np.array([[[1, -1], [0, 1]]]), "negative"),
        (np.array([[[0, 0], [0, 0]]]), "no examples"),
        (np.array([[[1.5, 1], [0, 1]]]), "non-integer"),
    ],
)
def test_batch_bad_input(counts, message):
    with pytest.raises(BaccError, match=message):
        bacc.evaluate_many(counts)


class _FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_only(monkeypatch):
    """evaluate_many draws a progress bar on standard error when it is a terminal."""
    import bacc.batch as batch_module

    monkeypatch.setattr(batch_module, "_DELAY", 0.0)
    monkeypatch.setattr(batch_module, "_CHUNK", 8)
    stack = np.random.default_rng(3).integers(0, 30, (40, 2, 2))
    term = _FakeTerminal()
    monkeypatch.setattr(sys, "stderr", term)
    on = bacc.evaluate_many(stack)
    assert "evaluating [" in term.getvalue()
    term2 = _FakeTerminal()
    monkeypatch.setattr(sys, "stderr", term2)
    off = bacc.evaluate_many(stack, progress=False)
    assert term2.getvalue() == ""
    pipe = io.StringIO()  # not a terminal: nothing drawn
    monkeypatch.setattr(sys, "stderr", pipe)
    bacc.evaluate_many(stack)
    assert pipe.getvalue() == ""
    # chunking changes no number
    np.testing.assert_array_equal(on.lower, off.lower)
    full = bacc.evaluate_many(stack, progress=False)
    monkeypatch.setattr(batch_module, "_CHUNK", 2048)
    np.testing.assert_array_equal(bacc.evaluate_many(stack, progress=False).upper, full.upper)


# --- groups with three or more classes: the batched lattice quadrature -----------------------


def _stack(k, n):
    """(G, l, l) counts with k correct of n per class (errors go to the next class)."""
    G, l = n.shape
    s = np.zeros((G, l, l), dtype=np.int64)
    i = np.arange(l)
    s[:, i, i] = k
    s[:, i, (i + 1) % l] += n - k
    return s


def _assert_like_single(stack, prior=(1.0, 1.0), tol=1e-9):
    """Every group's credible interval, mean and P(> chance) within ``tol`` of evaluate()."""
    import warnings

    res = bacc.evaluate_many(stack, prior=prior, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bacc.BaccWarning)
        for g in range(stack.shape[0]):
            ev = bacc.evaluate(stack[g], prior=prior)
            s = ev.balanced_accuracy_summary
            assert abs(res.lower[g] - s.lower) < tol, g
            assert abs(res.upper[g] - s.upper) < tol, g
            assert abs(res.mean[g] - s.mean) < tol, g
            assert abs(res.p_above_chance[g] - ev.p_above_chance) < tol, g
    return res


def _handled(stack, prior=(1.0, 1.0)):
    from bacc._engine.helpers.validate import check_prior
    from bacc._engine.sums.batch_lattice import many_sums

    k = np.einsum("gii->gi", stack).astype(float)
    n = stack.sum(axis=2).astype(float)
    pa, pb = check_prior(prior, n.shape[1])
    return many_sums(k + pa, n - k + pb, n > 0, 1.0 / n.shape[1], np.array([0.025, 0.975]))[3]


def test_ten_class_detectors_equal_single_evaluations_to_1e9():
    """The typical ten-class detector (10 to 5000 examples per class, accuracies 0.5 to 1):
    computed by the batched lattice, within 1e-9 of BetaSum's numbers."""
    rng = np.random.default_rng(21)
    n = np.exp(rng.uniform(np.log(10), np.log(5000), (24, 10))).astype(np.int64)
    k = rng.binomial(n, rng.uniform(0.5, 1.0, n.shape))
    k[:4, 0] = n[:4, 0]  # perfect classes
    stack = _stack(k, n)
    assert _handled(stack).all()
    _assert_like_single(stack)


def test_multiclass_adversarial_groups_equal_single_evaluations():
    """Empty classes in some groups, perfect and one-example classes, class sizes from 1 to
    10^6, 10^9 examples per class, 30 classes: within 1e-9 of the single evaluation."""
    rng = np.random.default_rng(4)
    n = rng.integers(0, 60, (12, 6))
    n[:, 0] = np.maximum(n[:, 0], 1)
    n[::3, 1] = 0  # empty class: left out of that group's balanced accuracy
    n[1::4, 2] = 1  # one example
    k = rng.binomial(n, rng.uniform(0.3, 1.0, n.shape))
    k[::2, 3] = n[::2, 3]  # perfect
    _assert_like_single(_stack(k, n))
    n = np.exp(rng.uniform(0.0, np.log(1e6), (8, 5))).astype(np.int64) + 1
    k = rng.binomial(n, rng.uniform(0.5, 1.0, n.shape))
    k[::3, 0] = n[::3, 0]
    _assert_like_single(_stack(k, n))
    n = np.full((3, 4), 10**9)
    _assert_like_single(_stack(rng.binomial(n, rng.uniform(0.9, 0.999999, n.shape)), n))
    n = rng.integers(5, 200, (3, 30))
    _assert_like_single(_stack(rng.binomial(n, rng.uniform(0.5, 1.0, n.shape)), n))


@pytest.mark.parametrize("prior", [(2.0, 2.0), "jeffreys"])
def test_multiclass_other_priors_equal_single_evaluations(prior):
    """Non-flat priors; under Jeffreys' prior, groups whose densities are singular at an end
    with mass go to the single evaluation, the others stay in the batch."""
    rng = np.random.default_rng(8)
    n = rng.integers(5, 200, (10, 4))
    k = rng.binomial(n, rng.uniform(0.5, 1.0, n.shape))
    k[:3, 1] = n[:3, 1]
    stack = _stack(k, n)
    _assert_like_single(stack, prior=prior)
    if prior == "jeffreys":
        handled = _handled(stack, prior)
        assert handled.any() and not handled.all()


def test_multiclass_per_class_priors_and_a_mode_far_from_an_end():
    """Per-class priors (non-integer exponents away from the ends) and a small class whose
    density at 0 is x^8 (1 - x)^4, far from its end form over the lattice's reach: the step
    comes from the Euler-Maclaurin bound there (this group was 8e-10 off with the measured end
    steps alone)."""
    prior = [(1.0, 1.0), (0.5, 3.0), (2.0, 2.0), (1.0, 0.5)]
    k = np.array([[8, 114, 78, 150], [30, 20, 61, 5]])
    n = np.array([[12, 175, 118, 197], [41, 33, 80, 9]])
    stack = _stack(k, n)
    assert _handled(stack, prior)[0]
    _assert_like_single(stack, prior=prior)


def test_multiclass_random_priors_sizes_and_class_counts():
    """A sweep: 3 to 8 classes of 1 to 10^4 examples, accuracies 0.3 to 1, a perfect class in
    a third of the groups, each class's prior drawn from six; every group within 1e-9 of the
    single evaluation (whichever path it takes), including a rough class beside two smooth
    ones (Beta(16, 2) with Beta(520, 409) and Beta(2063.5, 560.5): 1.6e-10 off before the
    step was tied to 1/8 of the smooth classes' spread)."""
    rng = np.random.default_rng(12)
    priors = np.array([(1, 1), (2, 2), (0.5, 0.5), (1, 0.5), (0.5, 3), (3, 1)], dtype=float)
    for _ in range(8):
        l = int(rng.choice([3, 4, 5, 8]))
        n = np.exp(rng.uniform(0.0, np.log(1e4), (3, l))).astype(np.int64) + 1
        k = rng.binomial(n, rng.uniform(0.3, 1.0, n.shape))
        k[0, 0] = n[0, 0]
        prior = priors[rng.integers(0, len(priors), l)]
        _assert_like_single(_stack(k, n), prior=prior)
    k = np.array([[15, 519, 2063]])
    n = np.array([[16, 927, 2623]])
    _assert_like_single(_stack(k, n), prior=[(1, 1), (1, 1), (0.5, 0.5)])


def test_multiclass_credible_bounds_match_monte_carlo():
    """Independent check: the posterior probability below the lower bound and above the
    upper one is 2.5 % each, within 5 Monte Carlo standard errors (400 000 draws)."""
    rng = np.random.default_rng(2)
    n = np.array([[12, 300, 4000, 55, 9]])
    k = np.array([[12, 270, 3990, 40, 5]])
    res = bacc.evaluate_many(_stack(k, n), progress=False)
    draws = rng.beta(k + 1.0, n - k + 1.0, size=(400_000, 5)).mean(axis=1)
    se = np.sqrt(0.025 * 0.975 / draws.size)
    assert abs(np.mean(draws < res.lower[0]) - 0.025) < 5 * se
    assert abs(np.mean(draws > res.upper[0]) - 0.025) < 5 * se


def test_gregory_end_weights_integrate_end_densities():
    """The end rule's claim: r^p e^(-beta r) (p < 6) integrated to 1e-11 relative at the
    steps the lattice uses (_end_step), with the plain rule from p = 6 on."""
    from scipy.special import gammaln

    from bacc._engine.sums.batch_lattice import _END_P, _end_step, gregory_weights

    omega = gregory_weights(12)
    for p in range(0, 30):
        h = float(_end_step(np.array([float(p)]))[0])
        x = np.arange(int((p + 80) / h)) * h
        with np.errstate(divide="ignore"):
            f = np.exp(p * np.log(x) - x - gammaln(p + 1.0)) if p else np.exp(-x)
        if p < _END_P:
            f[: omega.size] *= omega
        else:
            f[0] *= 0.5
        assert abs(h * f.sum() - 1.0) < 1e-11, p


def test_mixed_class_counts_in_one_call_and_grouping_changes_nothing():
    """Two-class and ten-class groups in one call; a group's numbers do not depend on the
    other groups it is batched with (FFT lengths differ) beyond 1e-12."""
    rng = np.random.default_rng(9)
    n = np.exp(rng.uniform(np.log(10), np.log(5000), (30, 10))).astype(np.int64)
    n[::5, 2:] = 0  # two-class groups
    k = rng.binomial(n, rng.uniform(0.5, 1.0, n.shape))
    stack = _stack(k, n)
    res = bacc.evaluate_many(stack, progress=False)
    assert res.n_classes[0] == 2 and res.n_classes[1] == 10
    for g in (0, 1, 7):
        one = bacc.evaluate_many(stack[g : g + 1], progress=False)
        for attr in ("lower", "upper", "p_above_chance"):
            assert abs(getattr(one, attr)[0] - getattr(res, attr)[g]) < 1e-12


def test_repeated_groups_are_computed_once_with_the_same_numbers():
    """Daily windows often repeat a matrix: every copy gets the numbers of the single
    evaluation (posteriors and exact bounds are computed once per distinct set of counts)."""
    base = _binary_stack(12, 5)
    stack = np.concatenate([base, base[::-1], base[:3]])
    res = bacc.evaluate_many(stack, progress=False)
    one = bacc.evaluate_many(base, progress=False)
    for attr in ("lower", "upper", "p_above_chance", "exact_lower", "exact_upper", "mean"):
        got = getattr(res, attr)
        want = getattr(one, attr)
        np.testing.assert_array_equal(got[:12], want)
        np.testing.assert_array_equal(got[12:24], want[::-1])
        np.testing.assert_array_equal(got[24:], want[:3])


def test_progress_bar_counts_multiclass_groups(monkeypatch):
    """The batched lattice reports its progress per batch of groups."""
    import bacc.batch as batch_module

    monkeypatch.setattr(batch_module, "_DELAY", 0.0)
    rng = np.random.default_rng(6)
    n = rng.integers(10, 300, (20, 5))
    stack = _stack(rng.binomial(n, 0.8), n)
    term = _FakeTerminal()
    monkeypatch.setattr(sys, "stderr", term)
    res = bacc.evaluate_many(stack)
    assert "evaluating [" in term.getvalue()
    assert np.isfinite(res.lower).all() and np.isfinite(res.upper).all()


# Quantiles of two-class groups against an independent mpmath quadrature, where the density
# of (X + Y) / 2 has a kink at 1/2 (a class whose density jumps at 0 beside one whose density
# jumps at 1: flat prior, all wrong and all correct). Near a kink Newton and Halley converge
# only linearly, and the iteration's early stop after a fast contraction is not taken there
# (with another start it had left a bound 3e-4 from the kink 4.6e-8 sd from the root). The
# bar is twice the iteration's design error of about 1e-8 sd (the early stop estimates the
# error left as step^2 / previous step; measured here: 3e-14 to 1.15e-8 sd).
@pytest.mark.parametrize(
    "matrix", [[[0, 3], [4, 4]], [[213, 111], [1, 0]], [[73, 0], [1, 0]], [[1, 0], [0, 73]]]
)
def test_credible_bounds_against_mpmath_next_to_a_kink(matrix):
    from references.reference import ref_ppf  # mpmath quadrature, independent of bacc

    m = np.array(matrix)
    k = np.diag(m).astype(float)
    n = m.sum(axis=1).astype(float)
    a, b, w = k + 1.0, n - k + 1.0, np.array([0.5, 0.5])
    sd = 0.5 * np.sqrt(np.sum(a * b / ((a + b) ** 2 * (a + b + 1.0))))
    want = [float(ref_ppf(q, a, b, w)) for q in (0.025, 0.975)]
    batch = bacc.evaluate_many(m[None], progress=False)
    single = bacc.evaluate(m).balanced_accuracy_summary
    for got in ((batch.lower[0], batch.upper[0]), (single.lower, single.upper)):
        assert abs(got[0] - want[0]) <= 2e-8 * sd and abs(got[1] - want[1]) <= 2e-8 * sd


def test_threads_change_no_number():
    rng = np.random.default_rng(7)
    G = 3000
    n = rng.integers(0, 60, (G, 2))
    k = rng.binomial(n, rng.uniform(0.3, 1.0, (G, 2)))
    two = np.zeros((G, 2, 2), dtype=np.int64)
    two[:, 0, 0], two[:, 0, 1] = k[:, 0], n[:, 0] - k[:, 0]
    two[:, 1, 1], two[:, 1, 0] = k[:, 1], n[:, 1] - k[:, 1]
    two[two.sum(axis=(1, 2)) == 0, 0, 0] = 1
    three = rng.integers(0, 40, (1200, 3, 3))
    three[:, np.arange(3), np.arange(3)] += rng.integers(5, 200, (1200, 3))
    for stack in (two, three):
        one = bacc.evaluate_many(stack, progress=False, workers=1)
        many = bacc.evaluate_many(stack, progress=False, workers=3)
        for field in ("mean", "lower", "upper", "exact_lower", "exact_upper", "p_above_chance"):
            assert np.array_equal(getattr(one, field), getattr(many, field)), field


@pytest.mark.parametrize("workers", [0, -1, 1.5, "2", True])
def test_bad_workers(workers):
    with pytest.raises(BaccError, match="workers must be a positive whole number"):
        bacc.evaluate_many(np.array([[[3, 1], [2, 5]]]), workers=workers)


def test_kinks_of_two_class_sums():
    """The density of wB B + wR R has a kink at wR when B's density jumps at 0 and R's at 1,
    at wB when B's jumps at 1 and R's at 0 (a parameter of at most 1 at that end)."""
    from bacc._engine.sums.two_betas import PairSums

    sums = PairSums(
        np.array([1.0, 5.0, 3.0]), np.array([2.0, 1.0, 4.0]), np.array([0.3, 0.3, 0.3]),
        np.array([74.0, 0.5, 9.0]), np.array([1.0, 6.0, 9.0]), np.array([0.7, 0.7, 0.7]),
    )  # fmt: skip
    k = sums.kinks()
    assert k[0, 0] == 0.7 and np.isinf(k[0, 1])  # B jumps at 0, R at 1
    assert np.isinf(k[1, 0]) and k[1, 1] == 0.3  # B jumps at 1, R is infinite at 0
    assert np.isinf(k[2]).all()  # smooth at every end


def test_a_background_job_reraises_in_the_caller():
    from bacc._engine.helpers.threads import Background

    def fail():
        raise ValueError("boom")

    for enabled in (True, False):
        if enabled:
            job = Background(fail, enabled=True)
            with pytest.raises(ValueError, match="boom"):
                job.result()
        else:
            with pytest.raises(ValueError, match="boom"):
                Background(fail, enabled=False)
    done = []
    Background(lambda: done.append(1), enabled=True).result()
    assert done == [1]
