"""bacc.population: mixed-effects inference on the population balanced accuracy.

Independent references: mpmath quadrature for each subject's marginal likelihood, the
deterministic quadrature of ``tests/references/population_reference.py`` (written without bacc's code, its
own error below 1e-10) for the whole normal-binomial posterior, a long MCMC run
(``tests/references/mcmc_population.py``), a dense trapezoidal grid for the beta-binomial model, closed
forms, and simulation-based calibration (Talts et al. 2018) for the model as a whole. The variational numbers the R package ``micp`` reports for its own examples
are recorded as what ``micp`` reports, not as truth.
"""

from __future__ import annotations

import json

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

import bacc
from bacc._engine.hierarchy import BetaBinomialPrior, ClassFit, NormalBinomialPrior, _log_rising
from bacc._engine.sums.grid_average import GridSum

# micp's README examples and the values its tests record (variational Bayes)
MICP_ACC = ([82, 75, 92, 85, 88], [100] * 5)
MICP_ACC_VB = {"mean": 0.82032710454459, "p_below": 2.75599137011806e-07,
               "ci": (0.719635834669835, 0.896141401582931), "F": -20.2828862747299}  # fmt: skip
MICP_BAL = ([[40, 44, 18, 42, 44], [48, 41, 65, 49, 32]], [[45, 51, 20, 46, 48], [55, 49, 80, 54, 32]])
MICP_BAL_VB = {"mean": 0.85604319744731, "p_below": 4.27705153315168e-14,
               "ci": (0.792830361850701, 0.906300586991726),
               "F": -15.0780771057361 + -17.7387649038124}  # fmt: skip


# ----------------------------------------------------------------------------------------------
# engine pieces against independent methods
def _mp_log_marginal(k, n, mu, lam):
    """log of int Bin(k | n, sigmoid(r)) N(r | mu, 1/lam) dr by mpmath (30 digits)."""
    mp.mp.dps = 30
    k, n, mu, lam = (mp.mpf(v) for v in (k, n, mu, lam))
    logc = mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1)

    def f(r):
        ls = -mp.log1p(mp.exp(-r))
        return mp.exp(logc + n * ls - (n - k) * r - lam / 2 * (r - mu) ** 2) * mp.sqrt(lam / (2 * mp.pi))

    # the integrand's peak (its log is concave), found by bisection on the slope
    lo, hi = mp.mpf(-200), mp.mpf(200)
    for _ in range(200):
        mid = (lo + hi) / 2
        if k - n / (1 + mp.exp(-mid)) - lam * (mid - mu) > 0:
            lo = mid
        else:
            hi = mid
    width = 1 / mp.sqrt(lam + n / 4)
    sd = 1 / mp.sqrt(lam)
    pts = sorted({-mp.inf, mu - 12 * sd, mu, mu + 12 * sd, mp.inf, lo}
                 | {lo + j * width for j in (-40, -10, -3, 3, 10, 40)})
    return float(mp.log(mp.quad(f, pts)))


HARD = [  # (k, n): perfect and all-wrong subjects, tiny and huge n, few errors
    (1000, 1000), (0, 3), (1, 1), (3, 100), (32, 32), (18, 20), (0, 5), (5000, 10000), (1, 8),
]


@pytest.mark.parametrize("k,n", HARD)
def test_subject_marginal_likelihood_matches_mpmath(k, n):
    fit = ClassFit(np.array([k, k]), np.array([n, n]), "normal-binomial", NormalBinomialPrior())
    rng = np.random.default_rng(k + n)
    mu = rng.uniform(-4, 9, size=(3, 4))
    v = np.array([-6.0, -1.0, 2.5])  # lambda = e^v: wide to narrow population densities
    ll, acc, _ = fit._subject_terms(mu, v, moments=True)
    for t in range(3):
        for c in range(4):
            want = _mp_log_marginal(k, n, mu[t, c], np.exp(v[t]))
            # error of L relative to L: 2e-9 where the subject is within ~6 sd of the node
            # (log L > -20), growing to 4e-9 (|log L| - 20) far in its tails (measured 2.2e-7 at
            # log L = -80), where the node has no weight or the error is common to its neighbours
            tol = 2e-9 + 4e-9 * max(0.0, abs(want) - 20.0)
            assert abs(ll[0, t, c] - want) <= tol, (t, c, ll[0, t, c], want)
    assert np.all((acc > 0) & (acc < 1))


def test_log_rising_factorial_against_mpmath():
    mp.mp.dps = 50
    for a in [0.01, 0.7, 9.99, 10.0, 37.5, 1e3, 1e5, 1e9, 1e15, 1e23]:
        for k in [0, 1, 3, 100, 1e4, 1e7]:
            want = float(mp.loggamma(mp.mpf(a) + k) - mp.loggamma(mp.mpf(a)))
            got = float(_log_rising(a, k))
            assert abs(got - want) <= 1e-12 * max(1.0, abs(want)), (a, k)


def test_grid_sum_of_normal_densities_is_exact():
    """The convolution engine on densities with a closed-form sum (two normals)."""
    for h in (0.05, 0.025):  # bacc's step is a 24th of the narrowest sd (0.04 here)
        x = np.arange(-12, 12, h)
        g = GridSum([-12, -12], h, [stats.norm.pdf(x), stats.norm.pdf(x, 0.5, 1.5)], 0.5)
        ref = stats.norm(0.25, np.sqrt((1 + 2.25) / 4))
        xs = np.linspace(-2, 2.5, 11)
        v = g.values(xs, ("cdf", "sf", "pdf"))
        np.testing.assert_allclose(v["cdf"], ref.cdf(xs), atol=2e-9)
        np.testing.assert_allclose(v["sf"], ref.sf(xs), atol=2e-9)
        np.testing.assert_allclose(v["pdf"], ref.pdf(xs), atol=2e-8)
        mean, var, _ = g.moments()
        assert mean == pytest.approx(0.25, abs=1e-12) and var == pytest.approx(3.25 / 4, rel=1e-10)


# ----------------------------------------------------------------------------------------------
# the whole posterior against independent references: a long MCMC run of the same model
# (tests/references/mcmc_population.py, its Monte Carlo error estimated from 40 independent chains) and,
# for the evidence and the beta-binomial model, adaptive quadrature with scipy
CASES = {
    "micp accuracy": MICP_ACC,
    "micp balanced": MICP_BAL,
    "perfect subjects": ([[20, 20, 19, 20], [5, 9, 7, 8]], [[20, 20, 20, 20], [10, 10, 10, 10]]),
    "three classes": ([[8, 9, 7], [5, 6, 9], [2, 4, 3]], [[10, 10, 10], [10, 12, 10], [6, 8, 5]]),
}


@pytest.fixture(scope="module")
def populations():
    """bacc's posterior of each case (the tests that need no chains take it from here)."""
    return {name: bacc.population(correct=k, totals=n) for name, (k, n) in CASES.items()}


@pytest.fixture(scope="module")
def mcmc(populations):
    from references.mcmc_population import gibbs_population

    out = {}
    for i, (name, (k, n)) in enumerate(CASES.items()):
        draws = gibbs_population(k, n, draws=10_000, burn=1_000, chains=40, random_state=i)
        out[name] = (populations[name], draws)
    return out


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.slow
@pytest.mark.xdist_group("mixed_effects_mcmc")  # one worker runs the chains (the fixture) once
def test_population_posterior_agrees_with_a_long_mcmc_run(mcmc, name):
    """Mean and CDF within 4.5 Monte Carlo standard errors (from the spread of chain means)."""
    pop, draws = mcmc[name]
    chains = draws.shape[1]
    se = draws.mean(axis=0).std(ddof=1) / np.sqrt(chains)
    assert abs(pop.summary.mean - draws.mean()) < 4.5 * se + 1e-12, (pop.summary.mean, draws.mean(), se)
    d = pop.balanced_accuracy
    for q in (0.025, 0.25, 0.5, 0.75, 0.975):
        x = d.ppf(q)
        frac = (draws <= x).mean(axis=0)
        se_q = frac.std(ddof=1) / np.sqrt(chains)
        assert abs(frac.mean() - q) < 4.5 * se_q + 1e-4, (q, frac.mean(), se_q)
    # the Monte Carlo error is small enough for the check to mean something
    assert se < 5e-4


@pytest.mark.parametrize(
    "k, n, prior",
    [
        (*MICP_ACC, None),
        (*MICP_ACC, {"mu0": 0.5, "eta0": 2.0, "a0": 2.0, "b0": 0.5}),
        (*MICP_BAL, None),  # class 1 has a perfect subject (32 of 32)
    ],
    ids=["micp accuracy", "micp accuracy, other prior", "micp balanced"],
)
@pytest.mark.slow  # a long check against an independent reference
def test_normal_binomial_posterior_matches_an_independent_quadrature(k, n, prior):
    """Log evidence, mean and the CDF at five quantiles (1e-4 to 0.9999) of micp's examples
    agree with a nested deterministic quadrature written in the tests (its own error, from
    doubling its settings, is below 1e-10) to 1e-8: the posterior is exact, not approximate."""
    from references.population_reference import ClassReference, balanced_cdf

    pop = bacc.population(correct=k, totals=n, prior=prior)
    rows = np.atleast_2d(k), np.atleast_2d(n)
    refs = [ClassReference(ki, ni, **(prior or {})) for ki, ni in zip(*rows, strict=True)]
    assert pop.log_evidence == pytest.approx(sum(r.log_evidence for r in refs), abs=1e-8)
    assert pop.summary.mean == pytest.approx(np.mean([r.mean for r in refs]), abs=1e-9)
    for cls, ref in zip(pop.classes, refs, strict=True):
        assert cls.accuracy.mean == pytest.approx(ref.mean, abs=1e-9)
    d = pop.balanced_accuracy
    for q in (1e-4, 0.025, 0.5, 0.975, 0.9999):
        assert balanced_cdf(refs, float(d.ppf(q))) == pytest.approx(q, abs=1e-8), q


@pytest.mark.parametrize("model", ["normal-binomial", "beta-binomial"])
def test_subjects_with_the_same_counts_share_one_computation_exactly(model):
    """Many subjects of one to three examples have a handful of distinct counts: the shared
    computation gives every subject exactly what its own computation gives."""
    rng = np.random.default_rng(11)
    n = rng.integers(1, 4, size=300).astype(float)
    k = rng.binomial(n.astype(int), 0.7).astype(float)
    prior = NormalBinomialPrior() if model == "normal-binomial" else BetaBinomialPrior()
    fit = ClassFit(k, n, model, prior)
    shared = fit._subject_terms(fit._cheb_x, fit.v, moments=True)
    own = fit._distinct_terms(k, n, fit._cheb_x, fit.v, True)
    assert len(np.unique(np.stack([k, n]), axis=1).T) <= 9
    for a, b in zip(shared, own, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=0)


@pytest.mark.slow  # a long check against an independent reference
def test_beta_binomial_agrees_with_a_dense_trapezoidal_grid():
    """Per class: evidence and posterior mean of the population accuracy on a plain dense grid
    in (x = logit p, v = logit(s / 10)) (trapezoidal rule, 0.02 x 0.05 steps over a box
    holding the posterior), each subject's beta-binomial probability by exact summation
    ``C(n, k) prod_{i<k} (a + i) prod_{i<n-k} (b + i) / prod_{i<n} (a + b + i)`` (stable for
    the huge ``a + b`` near ``s = 0``, where scipy's ``betabinom`` loses digits). The grid and
    interpolation machinery checked here is the one both models share."""
    from scipy import special

    k, n = np.array(MICP_BAL[0]), np.array(MICP_BAL[1])
    pop = bacc.population(correct=k, totals=n, model="beta-binomial")
    x = np.arange(-9.0, 12.0, 0.02)[:, None]
    v = np.arange(-50.0, 25.0, 0.05)[None, :]
    s = 10.0 * special.expit(v)
    nu = 1.0 / s**2
    a, b = special.expit(x) * nu, special.expit(-x) * nu
    log_prior = -np.logaddexp(0, -x) - np.logaddexp(0, x) - np.logaddexp(0, -v) - np.logaddexp(0, v)
    for i in range(2):
        log_joint = log_prior.copy()
        for kj, nj in zip(k[i], n[i], strict=True):
            log_joint = log_joint + (special.gammaln(nj + 1) - special.gammaln(kj + 1)
                                     - special.gammaln(nj - kj + 1))  # fmt: skip
            for j in range(nj):
                if j < kj:
                    log_joint = log_joint + np.log(a + j)
                if j < nj - kj:
                    log_joint = log_joint + np.log(b + j)
                log_joint = log_joint - np.log(a + b + j)
        top = log_joint.max()
        w = np.exp(log_joint - top)
        # the box holds the mass: its edges are far below the peak
        assert max(w[0].max(), w[-1].max(), w[:, 0].max(), w[:, -1].max()) < 1e-14
        log_z = top + np.log(w.sum() * 0.02 * 0.05)
        mean = float((w * special.expit(x)).sum() / w.sum())
        assert pop.classes[i].log_evidence == pytest.approx(log_z, abs=1e-8)
        assert pop.classes[i].accuracy.mean == pytest.approx(mean, abs=2e-8)


def test_micp_examples_recorded_and_how_variational_bayes_differs(populations):
    """micp's variational answers (recorded) beside the exact ones: VB is overconfident."""
    acc = populations["micp accuracy"]
    bal = populations["micp balanced"]
    for pop, vb in ((acc, MICP_ACC_VB), (bal, MICP_BAL_VB)):
        lo, hi = pop.summary.lower, pop.summary.upper
        # the exact interval contains micp's and is wider
        assert lo < vb["ci"][0] and hi >= vb["ci"][1] - 0.01
        assert (hi - lo) > 1.2 * (vb["ci"][1] - vb["ci"][0])
        # micp's infraliminal probability P(< 0.5) is far smaller than the exact one
        assert 1 - pop.p_above_chance > 100 * vb["p_below"]
        # the free energy is a lower bound of the log evidence
        assert vb["F"] < pop.log_evidence
        assert abs(pop.summary.mean - vb["mean"]) < 0.02


# ----------------------------------------------------------------------------------------------
# simulation-based calibration (Talts et al. 2018)
def _simulate(rng, l, m):
    """Hyperparameters from micp's prior, subjects from them, then counts."""
    mu = rng.normal(0.0, 1.0, size=l)
    lam = rng.gamma(1.0, 1.0, size=l)
    rho = rng.normal(mu[:, None], 1.0 / np.sqrt(lam)[:, None], size=(l, m))
    n = rng.integers(3, 40, size=(l, m))
    k = rng.binomial(n, 1.0 / (1.0 + np.exp(-rho)))
    truth = float(np.mean(1.0 / (1.0 + np.exp(-mu))))
    return k, n, truth


@pytest.mark.parametrize("l", [2, 3])
@pytest.mark.slow
def test_simulation_based_calibration(l):
    """The posterior CDF at the true population balanced accuracy is uniform (KS, 150 runs)."""
    rng = np.random.default_rng(100 + l)
    u = []
    for _ in range(150):
        k, n, truth = _simulate(rng, l, int(rng.integers(2, 9)))
        pop = bacc.population(correct=k, totals=n)
        u.append(float(pop.balanced_accuracy.cdf(truth)))
    p = stats.kstest(u, "uniform").pvalue
    assert p > 1e-3, p
    # and it is not trivially uniform: the values spread over the unit interval
    assert np.std(u) > 0.2


@pytest.mark.slow
def test_simulation_based_calibration_beta_binomial():
    rng = np.random.default_rng(7)
    u = []
    for _ in range(120):
        p_mean = rng.uniform(size=2)
        s = rng.uniform(0, 10, size=2)
        nu = 1 / s**2
        m = int(rng.integers(2, 8))
        pi = rng.beta((p_mean * nu)[:, None], ((1 - p_mean) * nu)[:, None], size=(2, m))
        n = rng.integers(3, 40, size=(2, m))
        k = rng.binomial(n, pi)
        pop = bacc.population(correct=k, totals=n, model="beta-binomial")
        u.append(float(pop.balanced_accuracy.cdf(p_mean.mean())))
    assert stats.kstest(u, "uniform").pvalue > 1e-3


# ----------------------------------------------------------------------------------------------
# the distribution surface
def test_distribution_surface_is_consistent():
    pop = bacc.population(correct=MICP_BAL[0], totals=MICP_BAL[1])
    d = pop.balanced_accuracy
    q = np.array([0.001, 0.025, 0.5, 0.975, 0.999])
    np.testing.assert_allclose(d.cdf(d.ppf(q)), q, atol=1e-10)
    np.testing.assert_allclose(d.sf(d.isf(q)), q, atol=1e-10)
    # the density is the slope of the CDF
    x = np.linspace(d.ppf(0.01), d.ppf(0.99), 9)
    e = 1e-5
    np.testing.assert_allclose(d.pdf(x), (d.cdf(x + e) - d.cdf(x - e)) / (2 * e), rtol=1e-5)
    # the mode is where the density peaks
    mode = d.mode()
    sd = d.std()
    assert d.pdf(mode) >= d.pdf(mode + 1e-3 * sd) and d.pdf(mode) >= d.pdf(mode - 1e-3 * sd)
    lo, hi = d.interval(0.95, kind="hdi")
    assert d.cdf(hi) - d.cdf(lo) == pytest.approx(0.95, abs=1e-9)
    assert d.pdf(lo) == pytest.approx(d.pdf(hi), rel=1e-4)
    draws = d.rvs(4000, random_state=1)
    assert stats.kstest(draws, d.cdf).pvalue > 1e-3
    np.testing.assert_array_equal(draws, d.rvs(4000, random_state=1))
    assert d.mean() == pytest.approx(pop.summary.mean)


def test_one_class_is_the_population_accuracy_with_chance_one_half():
    pop = bacc.population(correct=MICP_ACC[0], totals=MICP_ACC[1])
    assert pop.chance == 0.5 and len(pop.classes) == 1
    assert pop.summary.mean == pytest.approx(pop.classes[0].accuracy.mean, abs=1e-12)
    assert "population accuracy" in str(pop)


# ----------------------------------------------------------------------------------------------
# inputs: every form gives the same answer
def _matrices(rng, m=4, l=3):
    out = []
    for _ in range(m):
        cm = rng.integers(0, 6, size=(l, l)) + np.diag(rng.integers(5, 30, size=l))
        out.append(cm)
    return np.stack(out)


def test_input_forms_agree():
    rng = np.random.default_rng(3)
    stack = _matrices(rng)
    a = bacc.population(stack)
    b = bacc.population({f"s{j}": stack[j] for j in range(len(stack))})
    yt, yp, g = [], [], []
    for j, cm in enumerate(stack):
        for i in range(3):
            for c in range(3):
                yt += [i] * int(cm[i, c])
                yp += [c] * int(cm[i, c])
                g += [f"s{j}"] * int(cm[i, c])
    c = bacc.population(yt, yp, groups=g)
    gc = bacc.counts({"t": yt, "p": yp, "g": g}, true="t", pred="p", by="g")
    d = bacc.population(gc)
    k = np.einsum("jii->ij", stack)
    n = stack.sum(axis=2).T
    e = bacc.population(correct=k, totals=n)
    for other in (b, c, d, e):
        assert other.summary == a.summary
        assert other.log_evidence == a.log_evidence
    assert b.subject_names == ("s0", "s1", "s2", "s3") == d.subject_names
    assert b.subjects[2].shrunken == a.subjects[2].shrunken


def test_subject_results_and_fixed_effects():
    rng = np.random.default_rng(4)
    stack = _matrices(rng, m=5, l=2)
    pop = bacc.population(stack)
    pooled = bacc.evaluate(stack.sum(axis=0))
    assert pop.fixed_effects == pooled.balanced_accuracy_summary
    for j, s in enumerate(pop.subjects):
        own = bacc.evaluate(stack[j]).balanced_accuracy_summary
        assert s.independent.mean == pytest.approx(own.mean, abs=1e-12)
        assert s.independent.lower == pytest.approx(own.lower, abs=1e-9)
        assert s.sample_balanced_accuracy == pytest.approx(bacc.evaluate(stack[j]).sample_balanced_accuracy)
    # shrinkage pulls the subjects toward the population (on average over subjects)
    own = np.mean([abs(s.sample_balanced_accuracy - pop.summary.mean) for s in pop.subjects])
    shrunk = np.mean([abs(s.shrunken.mean - pop.summary.mean) for s in pop.subjects])
    assert shrunk < own
    d = pop.subject_posterior(2)
    assert d.mean() == pytest.approx(pop.subjects[2].shrunken.mean)
    # the distribution's mean is the exact mixture mean of the classes' conditional moments
    exact = np.mean([f.subject_moments(2)[0] for f in pop._fits])
    assert d.mean() == pytest.approx(exact, abs=1e-6)
    new = pop.predictive_posterior()
    assert new.mean() == pytest.approx(pop.predictive.mean, abs=1e-12)
    # a new subject's law has mass piled near 0 and 1 (small population precisions): the mass
    # beyond the grid's outer cells sits on them, a shift of at most a 24th of an sd
    exact_new = np.mean([f.subject_moments(None)[0] for f in pop._fits])
    assert new.mean() == pytest.approx(exact_new, abs=1e-3 * new.std())
    assert new.cdf(pop.predictive.lower) == pytest.approx((1 - pop.confidence) / 2, abs=1e-9)
    assert pop.predictive.lower < pop.summary.lower and pop.predictive.upper > pop.summary.upper
    json.dumps(pop.to_dict())


def test_a_subject_without_examples_of_a_class_is_reported_and_informed_by_the_others():
    stack = np.array([[[20, 2], [3, 15]], [[18, 4], [0, 0]], [[25, 1], [4, 20]]])
    pop = bacc.population(stack)
    assert len(pop.notes) == 1 and "subject 1" in pop.notes[0] and "class 1" in pop.notes[0]
    s = pop.subjects[1]
    assert s.support == (22, 0)
    assert s.sample_balanced_accuracy == pytest.approx(18 / 22)
    # its class-1 accuracy is the population's predictive one
    fit = pop._fits[1]
    assert fit.subject_moments(1) == fit.subject_moments(None)


# ----------------------------------------------------------------------------------------------
# bad input
@pytest.mark.parametrize(
    "kwargs, needle",
    [
        (dict(data=[[[5, 1], [2, 6]]]), "at least 2 subjects"),
        (dict(data={"a": [[5, 1], [2, 6]], "b": [[5, 1, 0], [2, 6, 1], [0, 0, 3]]}), "same classes"),
        (dict(data=[[[5.5, 1], [2, 6]], [[5, 1], [2, 6]]]), "whole numbers"),
        (dict(data=[[[5, 1], [2, 6]], [[0, 0], [0, 0]]]), "no examples"),
        (dict(data=[[[5, 1], [0, 0]], [[3, 1], [0, 0]]]), "class 1 has no examples in any subject"),
        (dict(data=[[[5, -1], [2, 6]], [[5, 1], [2, 6]]]), "negative"),
        (dict(data=[[5, 1], [2, 6]]), "shape (subjects, classes, classes)"),
        (dict(correct=[5, 6], totals=[4, 8]), "more correct"),
        (dict(correct=[5, 6], totals=[8, 8, 8]), "same shape"),
        (dict(correct=[5, 6]), "together"),
        (dict(data=[[[5, 1], [2, 6]]] * 2, model="probit"), "model"),
        (dict(data=[[[5, 1], [2, 6]]] * 2, prior={"eta0": -1}), "positive"),
        (dict(data=[[[5, 1], [2, 6]]] * 2, prior={"sigma": 1}), "unknown prior"),
        (dict(data=["a", "b"], y_pred=["a", "b"], groups=["g"]), "same length"),
        (dict(data=["a", "b"], y_pred=["a", "b"], groups=[[1], [2]]), "groups must be one-dimensional"),
        (dict(correct=[[1, 0], [2, 0]], totals=[[2, 0], [3, 0]]), "subject 1 has no examples"),
        (dict(correct=[[3, 3]], totals=[[1e20, 5]]), "at most 10^13"),  # not wrapped to negative
        (dict(data=[[[10**14, 0], [0, 1]], [[1, 0], [0, 1]]]), "at most 10^13"),
        (dict(data=np.zeros((0, 2, 2))), "at least 2 subjects"),
    ],
)
def test_bad_input_gets_a_clear_error(kwargs, needle):
    with pytest.raises(bacc.BaccError, match=None) as exc:
        bacc.population(**kwargs)
    assert needle in str(exc.value), str(exc.value)


# ----------------------------------------------------------------------------------------------
# command line and report
@pytest.fixture()
def subjects_csv(tmp_path):
    rng = np.random.default_rng(0)
    rows = ["subject,label,predicted"]
    for s in range(6):
        acc = rng.uniform(0.6, 0.95, 2)
        for _ in range(int(rng.integers(20, 50))):
            y = int(rng.integers(0, 2))
            p = y if rng.random() < acc[y] else 1 - y
            rows.append(f"S{s},{'ab'[y]},{'ab'[p]}")
    path = tmp_path / "subjects.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_cli_population_table_json_csv(subjects_csv):
    from test_cli import run

    args = [str(subjects_csv), "--true", "label", "--pred", "predicted", "--by", "subject"]
    table = run("population", *args).stdout
    assert "population balanced accuracy" in table and "shrunken" in table and "S5" in table
    data = json.loads(run("population", *args, "--format", "json").stdout)
    direct = bacc.population(bacc.counts(str(subjects_csv), true="label", pred="predicted", by="subject"))
    assert data["balanced_accuracy"]["mean"] == pytest.approx(direct.summary.mean, abs=1e-12)
    assert len(data["subjects"]) == 6
    csv = run("population", *args, "--format", "csv").stdout.splitlines()
    assert csv[0].startswith("entry,") and len(csv) == 1 + 3 + 6


def test_cli_population_bad_input_is_one_line(subjects_csv):
    from test_cli import assert_bad_input, run

    assert_bad_input(run("population", "--matrix", "42,3;6,4", check=False), "one confusion matrix per subject")
    assert_bad_input(run("population", str(subjects_csv), "--true", "label", "--pred", "predicted",
                         "--by", "subject", "--model", "x", check=False), "invalid choice")  # fmt: skip


def test_report_population_section(subjects_csv, tmp_path):
    from test_cli import run

    out = tmp_path / "r.html"
    run("report", str(subjects_csv), "--true", "label", "--pred", "predicted", "--by", "subject",
        "--population", "-o", str(out))  # fmt: skip
    page = out.read_text()
    assert "Population (mixed effects" in page and "Every subject" in page
    assert page.count("<svg") >= 2


# ----------------------------------------------------------------------------------------------
# the two ways a class's population density is read (docs/theory/population.rst)
@pytest.mark.parametrize(("model", "tol"), [("normal-binomial", 1e-8), ("beta-binomial", 1e-7)])
def test_population_cdf_agrees_with_the_chebyshev_logit_table(model, tol):
    """A one-class population's distribution function (six-point reading of the rows' fine
    grids) against its logit table (the rows' Chebyshev interpolants): the accuracy the theory
    page states, about 1e-9 (normal-binomial) and 1e-7 (beta-binomial)."""
    from scipy import special

    rng = np.random.default_rng(11)
    worst, checked = 0.0, 0
    while checked < 6:
        m = int(rng.integers(3, 12))
        n = rng.integers(20, 400, size=(1, m))
        k = rng.binomial(n, rng.beta(20 * 0.8, 20 * 0.2, size=(1, m)))
        pop = bacc.population(correct=k, totals=n, model=model)
        if pop._grid[3]:  # a class with mass at an end goes through the logit table itself
            continue
        d = pop.balanced_accuracy
        q = d.ppf(np.array([0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99]))
        table = pop._fits[0].logit_table.values(special.logit(q), ("cdf",))["cdf"]
        worst = max(worst, float(np.max(np.abs(d.cdf(q) - table))))
        checked += 1
    assert worst < tol, worst
