"""Label planning (:func:`bacc.plan_labels`, :func:`bacc.next_label`), checked against a
brute-force simulation of the labelling process scored by :func:`bacc.exact_interval` itself.

Claims:

* a plan's labels meet the goal with the promised assurance, and one label fewer does not
  (three designs: two balanced classes from an empty matrix, a 0.95 / 0.05 deployment mix, three
  classes with a width goal);
* the exact sums agree with the vectorised simulation;
* the class chosen by :func:`bacc.next_label` has the smallest expected width, where the
  expectation is computed by brute force;
* bad input is refused with a :class:`bacc.BaccError` (one line, exit status 2, on the command
  line).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import bacc
from bacc._engine.bounds.assurance import AssuranceModel
from bacc._engine.bounds.per_class import per_bound_alpha

R = 20_000  # brute-force replications per design: Monte Carlo error about 0.003 at 0.8


def _matrix(k, n) -> np.ndarray:
    """A confusion matrix with ``k`` correct of ``n`` per class (errors in the next column)."""
    l = len(k)
    cm = np.zeros((l, l), dtype=np.int64)
    for i in range(l):
        cm[i, i] = k[i]
        cm[i, (i + 1) % l] += n[i] - k[i]
    return cm


def _met(k, n, plan) -> bool:
    """Does the interval bacc reports for these counts meet the plan's goal?"""
    iv = bacc.exact_interval(_matrix(k, n), confidence=plan.confidence, sides=plan.sides,
                             empty="keep")
    return iv.lower > plan.target if plan.goal == "lower" else iv.width <= plan.target


def _score(k, n, plan) -> tuple[float, float]:
    """Share of replications meeting the goal (each distinct outcome scored once), with its
    Monte Carlo standard error."""
    rows = np.concatenate([k, np.broadcast_to(n, k.shape)], axis=1)
    uniq, inv = np.unique(rows, axis=0, return_inverse=True)
    l = k.shape[1]
    met = np.array([_met(u[:l], u[l:], plan) for u in uniq])[inv.ravel()]
    p = float(met.mean())
    return p, math.sqrt(p * (1 - p) / met.size)


def brute_force(plan, prior=(1.0, 1.0), random_state=0):
    """Simulate the labelling process label by label: draw the class accuracies from the design
    prior, then every further label (its class from the mix, or as planned per class) and
    whether the classifier got it right; score the final matrix with ``bacc.exact_interval``.
    The state one label earlier is the same sequence without its last label."""
    rng = np.random.default_rng(random_state)
    k0, n0 = np.array(plan.correct), np.array(plan.support)
    l = k0.size
    a, b = np.broadcast_to(np.asarray(prior, dtype=float), (l, 2)).T
    theta = rng.beta(a + k0, b + n0 - k0, size=(R, l))
    out = []
    if plan.design == "mix":
        total = plan.labels
        cls = rng.choice(l, size=(R, total), p=plan.mix)
        right = rng.random((R, total)) < np.take_along_axis(theta, cls, axis=1)
        for t in (total, total - 1):
            n_add = np.stack([(cls[:, :t] == i).sum(1) for i in range(l)], axis=1)
            k_add = np.stack([((cls[:, :t] == i) & right[:, :t]).sum(1) for i in range(l)], axis=1)
            out.append(_score(k0 + k_add, n0 + n_add, plan))
    else:
        m, m1 = np.array(plan.per_class, dtype=int), np.array(plan.one_fewer_per_class, dtype=int)
        seqs = [rng.random((R, max(m[i], m1[i]))) < theta[:, [i]] for i in range(l)]
        for alloc in (m, m1):
            k_add = np.stack([seqs[i][:, : alloc[i]].sum(1) for i in range(l)], axis=1)
            out.append(_score(k0 + k_add, n0 + alloc, plan))
    return out


DESIGNS = {
    # two balanced classes, nothing labelled yet, a prior guess "about 0.9, worth 20 labels"
    "two classes from an empty matrix": dict(cm=None, lower=0.8, prior=(18, 2)),
    # a rare positive class: labels arrive 95 / 5
    "imbalanced 0.95 / 0.05 mix": dict(cm=[[95, 5], [2, 8]], lower=0.7, mix=[0.95, 0.05]),
    # three classes, a width goal, stratified
    "three classes, width": dict(cm=[[30, 2, 1], [3, 25, 2], [1, 1, 8]], width=0.25),
}


@pytest.mark.parametrize("name", list(DESIGNS))
def test_planned_labels_meet_the_goal_with_the_promised_assurance(name):
    kw = DESIGNS[name]
    plan = bacc.plan_labels(**kw)
    assert plan.reachable and plan.method == "exact" and plan.labels > 0
    # the plan is the smallest on its search: one label fewer falls short, and the plan itself
    # is not wastefully above the goal
    assert plan.assurance >= 0.8 > plan.assurance_one_fewer
    assert plan.assurance < 0.8 + 0.02
    (p_n, se_n), (p_less, se_less) = brute_force(plan, prior=kw.get("prior", (1.0, 1.0)))
    assert p_n >= 0.8 - 3 * se_n
    assert abs(p_n - plan.assurance) <= 3.5 * se_n
    assert abs(p_less - plan.assurance_one_fewer) <= 3.5 * se_less


def test_the_planned_numbers_of_the_three_designs():
    """The figures the README and the report quote (exact sums, deterministic)."""
    got = {name: bacc.plan_labels(**kw) for name, kw in DESIGNS.items()}
    p = got["two classes from an empty matrix"]
    assert (p.labels, p.per_class) == (321, (150.0, 171.0))
    assert p.assurance == pytest.approx(0.80003, abs=5e-5)
    assert p.assurance_one_fewer == pytest.approx(0.79934, abs=5e-5)
    p = got["imbalanced 0.95 / 0.05 mix"]
    assert p.labels == 383
    assert p.assurance == pytest.approx(0.80073, abs=5e-5)
    p = got["three classes, width"]
    assert (p.labels, p.per_class) == (106, (20.0, 30.0, 56.0))


def test_exact_sums_equal_the_enumeration_of_every_outcome_with_exact_interval():
    """Summing the beta-binomial probability of every final matrix whose ``exact_interval``
    meets the goal gives the plan's assurance (to rounding), at the plan and one label fewer."""
    from scipy import stats

    cm0 = np.array([[20, 2], [3, 5]])
    plan = bacc.plan_labels(cm0, width=0.3)
    assert plan.labels == 50
    k0, n0 = np.diag(cm0), cm0.sum(1)
    for alloc, promised in ((plan.per_class, plan.assurance),
                            (plan.one_fewer_per_class, plan.assurance_one_fewer)):
        m = [int(x) for x in alloc]
        pmf = [stats.betabinom.pmf(np.arange(mi + 1), mi, k0[i] + 1, n0[i] - k0[i] + 1)
               for i, mi in enumerate(m)]
        total = sum(pmf[0][j0] * pmf[1][j1]
                    for j0 in range(m[0] + 1) for j1 in range(m[1] + 1)
                    if _met(k0 + [j0, j1], n0 + m, plan))
        assert total == pytest.approx(promised, abs=1e-9)


def test_two_class_plans_are_the_best_split():
    """For two classes no split of one label fewer meets the goal (exhaustive check)."""
    plan = bacc.plan_labels([[42, 3], [6, 4]], lower=0.55)
    model = AssuranceModel([42, 4], [45, 10], [43, 5], [4, 7], None, [0.5, 0.5],
                           per_bound_alpha(0.95, 2, "lower", "union"), "lower", "lower", 0.55)
    n_less = plan.labels - 1
    best = max(model.exact_stratified([m0, n_less - m0]) for m0 in range(n_less + 1))
    assert best < 0.8 <= model.exact_stratified([int(x) for x in plan.per_class])


def test_exact_sums_agree_with_the_simulation():
    alpha = per_bound_alpha(0.95, 2, "lower", "union")
    model = AssuranceModel([42, 4], [45, 10], [43, 5], [4, 7], None, [0.5, 0.5], alpha,
                           "lower", "lower", 0.55)
    model.prepare_draws(100_000, np.random.default_rng(1))
    exact = model.exact_stratified([100, 200])
    sim, se = model.simulate([100, 200])
    assert abs(exact - sim) <= 4 * se
    exact = model.exact_mix(300, np.array([0.6, 0.4]))
    sim, se = model.simulate(model.mix_sizes(300, np.array([0.6, 0.4])))
    assert abs(exact - sim) <= 4 * se


@pytest.mark.slow  # a long statistical check (the full run has it)
def test_a_simulated_plan_states_its_monte_carlo_error_and_repeats():
    kw = dict(lower=0.75, mix=[0.5, 0.3, 0.2], n_simulations=4000, random_state=3)
    cm = [[30, 2, 1], [3, 25, 2], [1, 1, 8]]
    a, b = bacc.plan_labels(cm, **kw), bacc.plan_labels(cm, **kw)
    assert a.method == "simulate" and a.n_sim == 4000 and 0 < a.mc_se < 0.01
    assert a.labels == b.labels and a.assurance == b.assurance
    assert a.assurance >= 0.8 > a.assurance_one_fewer


def test_an_unreachable_goal_is_said_so():
    plan = bacc.plan_labels([[42, 3], [6, 4]], lower=0.8)
    assert not plan.reachable and plan.labels is None
    assert plan.limit_assurance < 0.8 and "Unreachable" in plan.message
    # nothing labelled and a flat prior: the plan asks for a prior guess
    plan = bacc.plan_labels(None, lower=0.8)
    assert not plan.reachable and "prior guess" in plan.message
    assert "Unreachable" in str(plan)


def test_a_budget_and_a_cap():
    plan = bacc.plan_labels([[42, 3], [6, 4]], lower=0.55, budget=100)
    assert plan.within_budget is False and plan.budget_assurance < 0.8
    assert sum(plan.budget_per_class) == 100
    plan = bacc.plan_labels([[42, 3], [6, 4]], lower=0.55, max_labels=50)
    assert plan.reachable and plan.labels is None and "Not within 50" in plan.message
    plan = bacc.plan_labels([[500, 0], [0, 500]], lower=0.9)
    assert plan.labels == 0 and plan.assurance == 1.0


def test_fixed_accuracies_give_a_frequentist_plan():
    plan = bacc.plan_labels(None, lower=0.8, accuracies=[0.9, 0.9])
    assert plan.reachable and plan.labels > 0 and "fixed" in plan.prior
    assert plan.assurance >= 0.8 > plan.assurance_one_fewer
    d = plan.to_dict()
    assert json.loads(json.dumps(d))["labels"] == plan.labels


@pytest.mark.parametrize("kwargs, match", [
    (dict(), "exactly one goal"),
    (dict(lower=0.8, width=0.1), "exactly one goal"),
    (dict(lower=1.5), "lower must lie"),
    (dict(width=0.0), "width must lie"),
    (dict(lower=0.6, assurance=1.0), "assurance"),
    (dict(lower=0.6, confidence=0.0), "confidence"),
    (dict(lower=0.6, mix=[0.5, 0.4]), "sum to 1"),
    (dict(lower=0.6, mix=[1.0, 0.0]), "shares must be > 0"),
    (dict(lower=0.6, mix=[1.0]), "one share per class"),
    (dict(lower=0.6, budget=-1), "budget"),
    (dict(lower=0.6, method="normal"), "method"),
    (dict(lower=0.6, sides="upper"), "sides"),
    (dict(width=0.2, sides="lower"), "two-sided"),
    (dict(lower=0.6, accuracies=[0.9, 1.2]), "accuracies"),
    (dict(lower=0.6, n_classes=3), "n_classes"),
])
def test_bad_plan_inputs_are_refused(kwargs, match):
    with pytest.raises(bacc.BaccError, match=match):
        bacc.plan_labels([[42, 3], [6, 4]], **kwargs)


# ----------------------------------------------------------------------------------------------
def _width(cm, confidence=0.95) -> float:
    return bacc.exact_interval(cm, confidence=confidence, empty="keep").width


def test_next_label_expected_widths_by_enumerating_both_outcomes():
    cm = np.array([[42, 3], [6, 4]])
    nl = bacc.next_label(cm)
    for i, row in enumerate(nl.classes):
        p = (cm[i, i] + 1) / (cm[i].sum() + 2)  # flat prior: posterior predictive
        right, wrong = cm.copy(), cm.copy()
        right[i, i] += 1
        wrong[i, 1 - i] += 1
        assert row.p_correct == pytest.approx(p, abs=1e-15)
        assert row.expected_width == pytest.approx(p * _width(right) + (1 - p) * _width(wrong),
                                                   abs=1e-12)
    assert nl.best == 1 and nl.best_index == 1
    assert nl.current_width == pytest.approx(_width(cm), abs=1e-12)


def test_next_label_choice_agrees_with_a_brute_force_simulation():
    """Draw each class accuracy from its posterior, then the next label's outcome; the average
    width of the interval bacc reports is the expected width, within Monte Carlo error."""
    cm = np.array([[30, 2, 1], [3, 12, 2], [1, 1, 3]])
    nl = bacc.next_label(cm)
    rng = np.random.default_rng(0)
    sims = 4000
    means = []
    for i, row in enumerate(nl.classes):
        theta = rng.beta(cm[i, i] + 1, cm[i].sum() - cm[i, i] + 1, size=sims)
        right = rng.random(sims) < theta
        up, down = cm.copy(), cm.copy()
        up[i, i] += 1
        down[i, (i + 1) % 3] += 1
        w = np.where(right, _width(up), _width(down))
        se = w.std() / math.sqrt(sims)
        assert abs(w.mean() - row.expected_width) <= 4 * se + 1e-12
        means.append(w.mean())
    assert nl.best_index == int(np.argmin([r.expected_width for r in nl.classes]))
    assert nl.best_index == int(np.argmin(means))


def test_next_label_by_predicted_class_enumerates_the_true_classes():
    """Labelling an example the classifier predicted as j: its true class i has probability
    proportional to pi_i (C_ij + 1) / (n_i + l); each outcome adds one count to cell (i, j)."""
    cm = np.array([[95, 5], [2, 8]])
    for mix in (None, [0.99, 0.01]):
        nl = bacc.next_label(cm, by="predicted", mix=mix, target=0.66, criterion="clear")
        pi = cm.sum(1) / cm.sum() if mix is None else np.array(mix)
        joint = pi[:, None] * (cm + 1) / (cm.sum(1)[:, None] + 2)
        q = joint / joint.sum(0)
        for j, row in enumerate(nl.classes):
            widths, lowers = [], []
            for i in range(2):
                after = cm.copy()
                after[i, j] += 1
                widths.append(_width(after))
                lowers.append(bacc.exact_interval(after, sides="lower").lower)
            assert row.p_correct == pytest.approx(q[j, j], abs=1e-12)
            assert row.expected_width == pytest.approx(q[:, j] @ widths, abs=1e-12)
            assert row.expected_lower == pytest.approx(q[:, j] @ lowers, abs=1e-12)
            assert row.p_clear == pytest.approx(q[:, j] @ (np.array(lowers) > 0.66), abs=1e-12)
    # a rare positive class: an example predicted positive is most likely a false positive
    assert nl.classes[1].p_correct < 0.2 and nl.by == "predicted"
    assert "predicted as" in str(nl)
    with pytest.raises(bacc.BaccError, match="mix= goes with"):
        bacc.next_label(cm, mix=[0.5, 0.5])


def test_text_output_fits_100_columns():
    texts = [str(bacc.plan_labels([[95, 5], [2, 8]], lower=0.7, confidence=0.999, budget=50,
                                  mix=[0.95, 0.05])),
             str(bacc.plan_labels(None, lower=0.8)),
             str(bacc.next_label([[95, 5], [2, 8]], by="predicted", target=0.66,
                                 criterion="clear"))]
    assert all(len(line) <= 100 for t in texts for line in t.splitlines())


def test_next_label_other_criteria_and_an_empty_matrix():
    nl = bacc.next_label([[42, 3], [6, 4]], criterion="clear", target=0.45)
    assert all(0.0 <= r.p_clear <= 1.0 for r in nl.classes)
    assert "Label next" in str(nl) and nl.to_dict()["target"] == 0.45
    nl = bacc.next_label(None, n_classes=3)
    assert nl.current_width == 1.0 and nl.best_index == 0
    nl = bacc.next_label([[0, 0], [0, 0]], criterion="lower")
    assert nl.current_lower == 0.0
    with pytest.raises(bacc.BaccError, match="needs target"):
        bacc.next_label([[42, 3], [6, 4]], criterion="clear")
    with pytest.raises(bacc.BaccError, match="criterion"):
        bacc.next_label([[42, 3], [6, 4]], criterion="entropy")


# ----------------------------------------------------------------------------------------------
def _cli(*args):
    """``python -m bacc *args`` as a new process gives it (tests/support/preloaded.py)."""
    from support.preloaded import python_m

    return python_m("bacc", args)


def test_cli_plan_and_next_label(tmp_path):
    r = _cli("plan", "--matrix", "42,3;6,4", "--width", "0.2", "--budget", "50")
    assert r.returncode == 0, r.stderr
    assert "102 more labels" in r.stdout and "budget 50" in r.stdout
    r = _cli("plan", "--lower", "0.8", "--prior", "18,2", "--format", "json")
    d = json.loads(r.stdout)
    assert d["labels"] == 321 and d["per_class"] == [150.0, 171.0]
    r = _cli("plan", "--matrix", "95,5;2,8", "--lower", "0.7", "--mix", "0.95,0.05")
    assert r.returncode == 0 and "383 more labels" in r.stdout
    path = tmp_path / "preds.csv"
    path.write_text("label,predicted\n" + "a,a\n" * 20 + "a,b\n" * 2 + "b,b\n" * 3 + "b,a\n" * 3)
    r = _cli("next-label", str(path), "--true", "label", "--pred", "predicted", "--format", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["best"] == "b"
    r = _cli("next-label", "--matrix", "42,3;6,4")
    assert r.returncode == 0 and "Label next: class 1" in r.stdout


@pytest.mark.parametrize("args", [
    ["plan", "--matrix", "42,3;6,4"],
    ["plan", "--matrix", "42,3;6,4", "--lower", "1.5"],
    ["plan", "--matrix", "42,3;6,4", "--lower", "0.6", "--mix", "0.5,0.2"],
    ["plan", "--matrix", "42,3;6", "--lower", "0.6"],
    ["plan", "--matrix", "42,3;6,4", "--matrix", "1,2;3,4", "--lower", "0.6"],
    ["next-label", "--matrix", "42,3;6,4", "--criterion", "clear"],
    ["next-label", "--matrix", "0,0;0,0", "--classes", "3"],
])
def test_cli_bad_input_is_one_line_and_exit_2(capsys, args):
    from bacc.cli import main

    assert main(args) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bacc: error:")


def test_cli_bad_input_through_a_subprocess():
    r = _cli("plan", "--matrix", "42,3;6,4", "--lower", "0.6", "--assurance", "1")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bacc: error:") and "assurance" in lines[0]


@pytest.mark.parametrize("command", ["plan", "next-label"])
def test_help_documents_every_option_with_an_example(capsys, command):
    from bacc.cli import build_parser, main

    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert "examples:" in out and f"bacc {command}" in out
    assert max(len(line) for line in out.splitlines()) <= 100
    sub = next(a for a in build_parser()._actions if a.dest == "command").choices[command]
    for action in sub._actions:
        if action.dest == "help":
            continue
        assert action.help, f"{command}: {action.option_strings or action.dest} has no help"
        assert "e.g." in action.help or not action.option_strings, action.option_strings
        for opt in action.option_strings:
            assert opt in out


def test_a_mix_too_large_for_exact_sums_is_simulated():
    """method='auto' sums exactly over a two-class mix only while that is cheap; beyond, the
    plan is simulated and says so."""
    plan = bacc.plan_labels([[42, 3], [6, 4]], width=0.05, mix=[0.8, 0.2], random_state=0)
    assert plan.method == "simulate" and plan.n_sim == 20_000 and plan.mc_se > 0
    assert plan.assurance >= 0.8 > plan.assurance_one_fewer


def test_cli_next_label_by_predicted_class(capsys):
    from bacc.cli import main

    assert main(["next-label", "--matrix", "95,5;2,8", "--by", "predicted", "--mix",
                 "0.99,0.01", "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["by"] == "predicted" and d["best"] == 0
    assert d["classes"][1]["p_correct"] < 0.2
