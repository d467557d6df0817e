"""Claims of ``bacc.comparison`` (two classifiers, independent test sets; Carrillo et al. (2014) section 4.5).

References used here are independent of bacc's engine:

* ``exact_p_better_binary``: ``P(lambda_A > lambda_B) = int f_A(x) F_B(x) dx`` for two binary
  classifiers under the flat prior. With integer Beta parameters every density and CDF involved
  is a polynomial on known pieces, so Gauss-Legendre rules of sufficient degree integrate them
  exactly; the integrands are evaluated in mpmath at 30 digits.
* ``cf_reference``: Gil-Pelaez inversion of the exact characteristic function
  ``prod_i 1F1(a_i; a_i + b_i; i w_i t)`` (mpmath), by the trapezoidal rule, whose only errors
  are aliasing (made negligible by a period twice the support) and truncation (stopped when the
  characteristic function is below 1e-13).
"""

from __future__ import annotations

import json
import warnings

import mpmath as mp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bacc
from bacc.comparison import Comparison, compare

# ---------------------------------------------------------------------------------------------
# references


def _gl(n):
    x, w = np.polynomial.legendre.leggauss(n)
    return [mp.mpf(float(v)) for v in x], [mp.mpf(float(v)) for v in w]


def exact_p_better_binary(cm_a, cm_b, dps=30):
    """P(lambda_A > lambda_B) for two binary confusion matrices (rows = true), flat prior."""
    with mp.workdps(dps):
        (a1, b1), (a2, b2) = [(int(r[i]) + 1, int(sum(r)) - int(r[i]) + 1) for i, r in enumerate(cm_a)]
        (c1, d1), (c2, d2) = [(int(r[i]) + 1, int(sum(r)) - int(r[i]) + 1) for i, r in enumerate(cm_b)]

        def pdf(a, b):
            inv = 1 / mp.beta(a, b)
            return lambda x: inv * x ** (a - 1) * (1 - x) ** (b - 1)

        f1, f2, g1 = pdf(a1, b1), pdf(a2, b2), pdf(c1, d1)

        def cdf(a, b):
            return lambda v: mp.betainc(a, b, 0, v, regularized=True)

        G1, G2 = cdf(c1, d1), cdf(c2, d2)
        n_fa = (a1 + b1 + a2 + b2 - 4) // 2 + 2
        n_fb = (c1 + d1 + c2 + d2 - 3) // 2 + 2
        n_out = (a1 + b1 + a2 + b2 + c1 + d1 + c2 + d2) // 2 + 2
        xa, wa = _gl(n_fa)
        xb, wb = _gl(n_fb)
        xo, wo = _gl(n_out)

        def integrate(f, lo, hi, nodes, weights):
            half, mid = (hi - lo) / 2, (hi + lo) / 2
            return half * mp.fsum(w * f(mid + half * x) for x, w in zip(nodes, weights, strict=True))

        def f_A(x):  # density of (X1 + X2) / 2
            lo, hi = max(mp.mpf(0), 2 * x - 1), min(mp.mpf(1), 2 * x)
            return 2 * integrate(lambda u: f1(u) * f2(2 * x - u), lo, hi, xa, wa)

        def F_B(x):  # P((Y1 + Y2) / 2 <= x)
            lo, hi = max(mp.mpf(0), 2 * x - 1), min(mp.mpf(1), 2 * x)
            return G1(lo) + integrate(lambda u: g1(u) * G2(2 * x - u), lo, hi, xb, wb)

        total = mp.mpf(0)
        for lo, hi in ((mp.mpf(0), mp.mpf(1) / 2), (mp.mpf(1) / 2, mp.mpf(1))):
            total += integrate(lambda x: f_A(x) * F_B(x), lo, hi, xo, wo)
        return float(total)  # int f_A(x) P(B <= x) dx = P(B <= A)


def cf_reference(a, b, w, dps=20, tail=1e-13, width=40.0):
    """CDF of sum_i w_i Beta(a_i, b_i) by Gil-Pelaez inversion of the exact CF (mpmath)."""
    with mp.workdps(dps):
        a = [mp.mpf(float(v)) for v in a]
        b = [mp.mpf(float(v)) for v in b]
        w = [mp.mpf(float(v)) for v in w]
        mean = mp.fsum(wi * ai / (ai + bi) for ai, bi, wi in zip(a, b, w, strict=True))
        var = mp.fsum(wi**2 * ai * bi / ((ai + bi) ** 2 * (ai + bi + 1)) for ai, bi, wi in zip(a, b, w, strict=True))
        sd = mp.sqrt(var)
        span = min(mp.fsum(abs(wi) for wi in w), 2 * width * sd)
        du = 2 * mp.pi / (2 * span)
        phis, small, k = [], 0, 0
        while small < 5:
            k += 1
            u = k * du
            phi = mp.mpf(1)
            for ai, bi, wi in zip(a, b, w, strict=True):
                phi *= mp.hyp1f1(ai, ai + bi, 1j * wi * u)
            phis.append(phi)
            small = small + 1 if abs(phi) < tail * u * du else 0
            assert k < 20000, "characteristic function decays too slowly for this reference"

    def cdf(x):
        with mp.workdps(dps):
            x = mp.mpf(float(x))
            s = (mean - x) / 2
            for j, phi in enumerate(phis, 1):
                s += mp.im(mp.exp(-1j * j * du * x) * phi) / (j * du)
            return float(mp.mpf(1) / 2 - du / mp.pi * s)

    return cdf


def _components(cm, prior=(1.0, 1.0)):
    cm = np.asarray(cm)
    k = np.diag(cm).astype(float)
    n = cm.sum(axis=1).astype(float)
    return k + prior[0], n - k + prior[1]


def _cf_for(cm_a, cm_b, prior=(1.0, 1.0)):
    aa, ba = _components(cm_a, prior)
    ab, bb = _components(cm_b, prior)
    la, lb = len(aa), len(ab)
    return cf_reference(np.r_[aa, ab], np.r_[ba, bb], np.r_[np.full(la, 1 / la), np.full(lb, -1 / lb)])


# ---------------------------------------------------------------------------------------------
# accuracy against the references

BINARY_CASES = {
    "seed_like": ([[42, 3], [6, 4]], [[40, 5], [8, 2]]),
    "perfect_class": ([[20, 0], [3, 9]], [[19, 1], [2, 10]]),
    "tiny": ([[2, 1], [0, 1]], [[1, 2], [1, 0]]),
    "unbalanced": ([[30, 2], [1, 2]], [[28, 4], [2, 1]]),
}


@pytest.mark.parametrize("name", list(BINARY_CASES))
def test_p_better_matches_mpmath_reference_binary(name):
    """P(lambda_A > lambda_B) = int f_A F_B dx to 1e-7 (we see ~1e-10)."""
    cm_a, cm_b = BINARY_CASES[name]
    ref = exact_p_better_binary(cm_a, cm_b)
    got = compare(cm_a, cm_b).p_better
    assert abs(got - ref) < 1e-7, (got, ref)


MULTI_CASES = {
    "three_classes": (
        [[30, 6, 4], [5, 20, 5], [2, 6, 12]],
        [[25, 10, 5], [3, 25, 2], [4, 4, 12]],
        (1.0, 1.0),
    ),
    "ten_classes": (
        np.diag(np.arange(20, 30)) + np.diag(40 - np.arange(20, 30)) @ np.roll(np.eye(10, dtype=int), 1, axis=1),
        np.diag(np.arange(21, 31)) + np.diag(40 - np.arange(21, 31)) @ np.roll(np.eye(10, dtype=int), 1, axis=1),
        (1.0, 1.0),
    ),
    "binary_jeffreys": ([[3, 0], [3, 7]], [[1, 2], [2, 8]], (0.5, 0.5)),
}


@pytest.mark.parametrize("name", list(MULTI_CASES))
def test_difference_cdf_and_quantiles_match_characteristic_function_reference(name):
    """CDF of delta to 1e-7 and its quantiles to min(1e-7, 0.1% of the sd) (a second method)."""
    cm_a, cm_b, prior = MULTI_CASES[name]
    ref = _cf_for(cm_a, cm_b, prior)
    c = compare(cm_a, cm_b, prior=prior)
    d = c.difference
    sd = d.std()
    xs = [0.0] + [c.mean + z * sd for z in (-3.0, -1.0, 0.5, 2.0)]
    for x in xs:
        assert abs(d.cdf(x) - ref(x)) < 1e-7, x
    assert abs(c.p_better - (1.0 - ref(0.0))) < 1e-7
    for q, xq in zip((0.025, 0.5, 0.975), (c.lower, c.median, c.upper), strict=True):
        # distance to the reference quantile, from the reference CDF at our quantile
        err = abs(ref(xq) - q) / d.pdf(xq)
        assert err < min(1e-7, 1e-3 * sd), (q, err)


def test_p_better_is_one_half_for_identical_classifiers():
    cm = [[30, 5, 1], [4, 20, 6], [2, 3, 25]]
    c = compare(cm, cm)
    assert abs(c.p_better - 0.5) < 1e-9
    assert abs(c.mean) < 1e-15
    assert abs(c.lower + c.upper) < 1e-9  # symmetric interval


def test_swapping_the_classifiers_complements_p_better_and_mirrors_delta():
    a, b = BINARY_CASES["seed_like"]
    ab, ba = compare(a, b), compare(b, a)
    # not bit-identical: the lattice is built in a different component order
    assert abs(ab.p_better + ba.p_better - 1.0) < 1e-9
    assert abs(ab.lower + ba.upper) < 1e-9 and abs(ab.upper + ba.lower) < 1e-9
    assert abs(ab.p_left - ba.p_right) < 1e-9


def test_relabelling_classes_leaves_the_comparison_unchanged():
    a = bacc.ConfusionMatrix([[30, 6, 4], [5, 20, 5], [2, 6, 12]])
    b = bacc.ConfusionMatrix([[25, 10, 5], [3, 25, 2], [4, 4, 12]])
    order = [2, 0, 1]
    c1 = compare(a, b)
    c2 = compare(a.relabel(order), b.relabel(order))
    assert abs(c1.p_better - c2.p_better) < 1e-9
    assert abs(c1.lower - c2.lower) < 1e-9 and abs(c1.upper - c2.upper) < 1e-9


def test_rope_probabilities_partition_the_posterior_and_match_the_cdf():
    a, b = MULTI_CASES["three_classes"][:2]
    c = compare(a, b, rope=0.02)
    d = c.difference
    assert abs(c.p_left + c.p_rope + c.p_right - 1.0) < 1e-12
    assert abs(c.p_left - d.cdf(-0.02)) < 1e-15
    assert abs(c.p_right - d.sf(0.02)) < 1e-15
    assert abs(c.p_rope - (d.cdf(0.02) - d.cdf(-0.02))) < 1e-9
    assert c.probs() == (c.p_left, c.p_rope, c.p_right)
    c0 = compare(a, b)
    assert c0.p_rope == 0.0 and c0.p_right == c0.p_better
    assert abs(c0.p_left + c0.p_better - 1.0) < 1e-12
    assert abs(c0.p_worse - c0.p_left) < 1e-15


def test_mean_of_delta_is_the_difference_of_posterior_means():
    a, b = MULTI_CASES["three_classes"][:2]
    c = compare(a, b)
    ea, eb = bacc.evaluate(a), bacc.evaluate(b)
    m = ea.balanced_accuracy.mean() - eb.balanced_accuracy.mean()
    assert abs(c.mean - m) < 1e-15
    assert c.mean_balanced_accuracy == pytest.approx((ea.balanced_accuracy.mean(), eb.balanced_accuracy.mean()), abs=1e-15)
    assert c.sample_difference == pytest.approx(ea.sample_balanced_accuracy - eb.sample_balanced_accuracy, abs=1e-15)


def test_evaluations_matrices_and_orientation_give_the_same_result():
    a, b = BINARY_CASES["seed_like"]
    c1 = compare(a, b)
    c2 = compare(bacc.evaluate(a), bacc.evaluate(b))
    c3 = compare(np.array(a).T, np.array(b).T, rows="predicted")
    c4 = compare(bacc.ConfusionMatrix(a), b)
    for c in (c2, c3, c4):
        assert c.p_better == pytest.approx(c1.p_better, abs=1e-15)
        assert c.lower == pytest.approx(c1.lower, abs=1e-15)


def test_jeffreys_prior_through_evaluations_and_through_prior_argument_agree():
    a, b = BINARY_CASES["seed_like"]
    c1 = compare(a, b, prior="jeffreys")
    c2 = compare(bacc.evaluate(a, prior="jeffreys"), bacc.evaluate(b, prior="jeffreys"))
    assert c1.p_better == pytest.approx(c2.p_better, abs=1e-15)


def test_interval_contains_the_median_and_the_mean_and_has_the_requested_mass():
    a, b = MULTI_CASES["three_classes"][:2]
    c = compare(a, b, confidence=0.9)
    assert c.lower < c.median < c.upper
    assert c.lower < c.mean < c.upper
    d = c.difference
    assert d.cdf(c.upper) - d.cdf(c.lower) == pytest.approx(0.9, abs=1e-9)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(2, 3).flatmap(
        lambda l: st.tuples(
            st.lists(st.lists(st.integers(0, 25), min_size=l, max_size=l), min_size=l, max_size=l),
            st.lists(st.lists(st.integers(0, 25), min_size=l, max_size=l), min_size=l, max_size=l),
        )
    ),
    st.floats(0.0, 0.1),
)
def test_probabilities_and_intervals_are_consistent_for_any_matrices(mats, rope):
    a, b = (np.asarray(m) for m in mats)
    # every class needs true examples (else it is dropped with a warning)
    a[np.arange(len(a)), np.arange(len(a))] += 1
    b[np.arange(len(b)), np.arange(len(b))] += 1
    c = compare(a, b, rope=rope)
    for p in (c.p_better, c.p_left, c.p_rope, c.p_right):
        assert 0.0 <= p <= 1.0
    assert abs(c.p_left + c.p_rope + c.p_right - 1.0) < 1e-9
    assert c.p_right <= c.p_better + 1e-12
    assert -1.0 <= c.lower <= c.median <= c.upper <= 1.0
    wider = compare(a, b, rope=rope + 0.05)
    assert wider.p_rope >= c.p_rope - 1e-12


# ---------------------------------------------------------------------------------------------
# results


def test_result_is_frozen_prints_a_table_and_converts_to_json():
    c = compare(*BINARY_CASES["seed_like"], rope=0.01, names=("forest", "<svm>"))
    assert isinstance(c, Comparison)
    with pytest.raises(AttributeError):
        c.p_better = 0.0  # type: ignore[misc]
    text = str(c)
    assert "P(forest > <svm>)" in text and "P(|forest - <svm>| <= 0.01)" in text
    assert "independent test sets" in text
    page = c._repr_html_()
    assert "&lt;svm&gt;" in page and "<svm>" not in page
    d = json.loads(json.dumps(c.to_dict()))
    assert d["p_better"] == c.p_better and d["paired"] is False and d["mcnemar"] is None
    assert d["difference"]["lower"] == c.lower


# ---------------------------------------------------------------------------------------------
# bad input


def test_different_numbers_of_classes_is_an_error():
    with pytest.raises(bacc.BaccError, match="2 classes and classifier B has 3"):
        compare([[5, 1], [2, 6]], [[5, 1, 0], [2, 6, 1], [0, 1, 4]])


def test_different_labels_is_an_error():
    a = bacc.ConfusionMatrix([[5, 1], [2, 6]], labels=["cat", "dog"])
    b = bacc.ConfusionMatrix([[5, 1], [2, 6]], labels=["cat", "cow"])
    with pytest.raises(bacc.BaccError, match="same classes"):
        compare(a, b)


@pytest.mark.parametrize("rope", [-0.01, float("nan"), float("inf"), "0.1", True])
def test_invalid_rope_is_an_error(rope):
    with pytest.raises(bacc.BaccError, match="rope"):
        compare([[5, 1], [2, 6]], [[4, 2], [2, 6]], rope=rope)


def test_other_bad_arguments_are_errors():
    a, b = [[5, 1], [2, 6]], [[4, 2], [2, 6]]
    with pytest.raises(bacc.BaccError, match="confidence"):
        compare(a, b, confidence=1.5)
    with pytest.raises(bacc.BaccError, match="names"):
        compare(a, b, names=("only one",))
    with pytest.raises(bacc.BaccError, match="carries its own prior"):
        compare(bacc.evaluate(a), b, prior=(2, 2))
    with pytest.raises(bacc.BaccError, match="classifier B"):
        compare(a, [[1, -2], [0, 3]])


# ---------------------------------------------------------------------------------------------
# known limitation of the engine (reported; not bacc.comparison's own arithmetic)


def test_symmetric_jeffreys_single_examples_give_one_half():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compare([[1, 0], [1, 0]], [[0, 1], [0, 1]], prior="jeffreys")
    # lambda_A and lambda_B have the same distribution: P(A > B) = 1/2 exactly
    assert abs(c.p_better - 0.5) < 1e-7


@pytest.mark.parametrize("rope", [1.0, 2.5, -0.1, float("nan"), float("inf"), "0.1", True])
def test_rope_has_one_rule_for_every_comparison(rope):
    """The rope of a difference of balanced accuracies (in [-1, 1]) is a number in [0, 1): one
    check, the same message, for compare, compare_paired and compare_across."""
    calls = [
        lambda: bacc.compare([[5, 1], [1, 5]], [[4, 2], [2, 4]], rope=rope),
        lambda: bacc.compare_paired([0, 1, 0, 1], [0, 1, 1, 1], [0, 0, 0, 1], rope=rope),
        lambda: bacc.compare_across({"x": [[5, 1], [1, 5]], "y": [[6, 1], [2, 5]]},
                                    {"x": [[4, 2], [2, 4]], "y": [[5, 2], [1, 6]]}, rope=rope),
    ]
    for call in calls:
        with pytest.raises(bacc.BaccError, match=r"rope must be a number in \[0, 1\)"):
            call()
