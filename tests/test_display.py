"""The display layer: one number formatter, one table layout, and every result rendered by it."""

from __future__ import annotations

import html
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest

import bacc
from bacc.display import numbers as fmt
from bacc.display.html import escape, table
from bacc.display.text import align


# ----------------------------------------------------------------------------------------------
# the formatter
@pytest.mark.parametrize(
    "x, digits, expected",
    [(0.66578, 4, "0.6658"), (0.5, 2, "0.50"), (1.0, 4, "1.0000"), (0.00004, 4, "0.0000")],
)
def test_number_rounds_to_the_digits_asked(x, digits, expected):
    assert fmt.number(x, digits) == expected


def test_missing_numbers_show_as_a_dash_or_as_asked():
    assert fmt.number(math.nan) == "-" and fmt.number(None) == "-"
    assert fmt.number(math.nan, missing="nan") == "nan"
    assert fmt.interval(math.nan, 0.5) == "[-, 0.5000]"


@pytest.mark.parametrize(
    "p, text",
    [(0.99995, "> 0.9999"), (1.0, "> 0.9999"), (0.9999, "> 0.9999"), (1e-4, "< 0.0001"),
     (0.0, "< 0.0001"), (0.25, "0.2500"), (0.99984, "0.9998"), (math.nan, "-")],
)
def test_probabilities_never_print_as_exactly_zero_or_one(p, text):
    assert fmt.probability(p) == text


def test_p_phrase_carries_its_relation():
    assert fmt.p_phrase(0.5) == "= 0.5000"
    assert fmt.p_phrase(1.0) == "> 0.9999"
    assert fmt.p_phrase(0.0) == "< 0.0001"


def test_digits_tell_close_interval_ends_apart():
    assert fmt.digits_for((0.2, 0.8)) == 4
    lo, hi = 0.999_999_0, 0.999_999_6
    d = fmt.digits_for((lo, hi))
    assert fmt.number(lo, d) != fmt.number(hi, d)
    assert fmt.digits_for((0.5, 0.5 + 1e-15)) == 12  # capped
    assert fmt.digits_for((0.5, math.nan)) == 4


def test_percent():
    assert fmt.percent(0.95) == "95%"
    assert fmt.percent(0.9875, precise=True) == "98.75%"


def test_one_table_layout():
    lines = align(["name", "value"], [["a", "1.0"], ["longer", "22.5"]])
    assert lines == ["name    value", "a         1.0", "longer   22.5"]


def test_html_table_escapes_every_cell():
    out = table(["<h>"], [["<script>", "a&b"]])
    assert "<script>" not in out and "&lt;script&gt;" in out and "a&amp;b" in out
    assert escape('"') == "&quot;"


# ----------------------------------------------------------------------------------------------
# every result type renders through the display layer
CM_A = [[42, 3], [6, 4]]
CM_B = [[40, 5], [3, 7]]


def _results():
    ev = bacc.evaluate(CM_A)
    y = np.array([0] * 30 + [1] * 20)
    pa = y.copy()
    pa[:4] = 1
    pb = y.copy()
    pb[-6:] = 0
    return {
        "evaluation": (ev, [f"{ev.sample_balanced_accuracy:.4f}", "P(balanced accuracy > chance"]),
        "comparison": (bacc.compare(CM_A, CM_B, rope=0.01), ["P(A > B)", "difference A - B"]),
        "paired": (bacc.compare_paired(y, pa, pb), ["exact McNemar test"]),
        "ranking": (
            bacc.rank({"A": CM_A, "B": CM_B}, n_draws=2000),
            ["P(row > column)", "classifier"],
        ),
        "exact": (bacc.exact_interval(CM_A), ["Exact 95% two-sided", "0.4493"]),
        "approx": (bacc.approx_interval(CM_A, method="wilson"), ["APPROXIMATE", "Wilson"]),
        "binomial": (bacc.binomial_test(CM_A), ["Exact binomial test", "threshold"]),
        "mcnemar": (bacc.mcnemar_exact(12, 3), ["McNemar", "0.03516"]),
        "coverage": (
            bacc.coverage(["union", "wald"], [10, 10], [0.9, 0.9], n_simulations=500, random_state=0),
            ["union", "wald", "verdict"],
        ),
        "batch": (bacc.evaluate_many(np.array([CM_A, CM_B])), ["2 groups", "P(> chance)"]),
    }


@pytest.mark.parametrize("kind", sorted(_results()))
def test_each_result_prints_its_key_numbers(kind):
    result, expected = _results()[kind]
    text = str(result)
    for e in expected:
        assert e in text, f"{kind}: {e!r} not in\n{text}"


@pytest.mark.parametrize("kind", sorted(_results()))
def test_notebook_html_of_results(kind):
    result, expected = _results()[kind]
    out = result._repr_html_()
    assert out.startswith("<div>") and "<table>" in out and out.endswith("</div>")
    for e in expected:
        assert html.escape(e) in out, f"{kind}: {e!r} not in\n{out}"


def test_interval_text_and_html_show_the_same_bounds():
    iv = bacc.exact_interval(CM_A)
    d = fmt.digits_for((iv.lower, iv.upper), *[(c.lower, c.upper) for c in iv.per_class])
    for x in (iv.estimate, iv.lower, iv.upper, *(c.upper for c in iv.per_class)):
        assert fmt.number(x, d) in str(iv) and fmt.number(x, d) in iv._repr_html_()


def test_close_interval_ends_get_enough_decimals_when_printed():
    n = 10**9
    iv = bacc.exact_interval([[n - 10, 10], [10, n - 10]])
    lo_s, hi_s = str(iv).splitlines()[1].split("[")[1].rstrip("]").split(", ")
    assert lo_s != hi_s and len(lo_s.split(".")[1]) > 4
    assert float(lo_s) <= iv.estimate <= float(hi_s)


def test_undefined_numbers_print_as_nan_not_as_an_error():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bacc.BaccWarning)
        iv = bacc.approx_interval([[4, 1, 0], [2, 6, 0], [0, 0, 0]], method="wald", empty="keep")
    assert math.isnan(iv.estimate)
    text = str(iv)
    assert "estimate nan" in text and "interval [nan, nan]" in text
    assert "nan" in iv._repr_html_()


def test_batch_of_many_groups_shows_first_and_last():
    res = bacc.evaluate_many(np.array([CM_A] * 50), groups=[f"g{i}" for i in range(50)])
    text = str(res)
    assert "g0" in text and "g49" in text and "g25" not in text and "..." in text
    assert "g49" in res._repr_html_() and "g25" not in res._repr_html_()


def test_coverage_verdicts_are_printed():
    r = bacc.coverage(["wald"], [10, 10], [0.95, 0.95], n_simulations=500, random_state=0)
    assert "FALLS SHORT" in str(r) and "FALLS SHORT" in r._repr_html_()


def test_comparison_html_shows_the_same_numbers_as_its_text():
    c = bacc.compare(CM_A, CM_B)
    assert fmt.number(c.mean) in str(c)
    assert fmt.number(c.mean) in c._repr_html_()


NUMERICS = [
    "bacc",
    "bacc.batch",
    "bacc.comparison",
    "bacc.confusion",
    "bacc.distributions",
    "bacc.errors",
    "bacc.evaluation",
    "bacc.intervals",
    "bacc.metrics",
    "bacc.posterior",
    "bacc.progress",
    "bacc.significance",
    "bacc.simulation",
    "bacc.sklearn",
]


def test_importing_the_numerics_does_not_import_the_display_layer():
    code = (
        "import importlib, pkgutil, sys\n"
        f"for name in {NUMERICS!r}:\n"
        "    importlib.import_module(name)\n"
        "import bacc._engine as engine\n"
        "for m in pkgutil.iter_modules(engine.__path__):\n"
        "    importlib.import_module('bacc._engine.' + m.name)\n"
        "print(sorted(m for m in sys.modules if m.startswith('bacc.display')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_using_the_numerics_does_not_import_the_display_layer():
    code = (
        "import sys, numpy as np, bacc\n"
        "ev = bacc.evaluate([[42, 3], [6, 4]])\n"
        "bacc.exact_interval([[42, 3], [6, 4]]); bacc.approx_interval([[42, 3], [6, 4]])\n"
        "bacc.compare(ev, ev); bacc.rank([ev, ev], n_draws=100); bacc.binomial_test(ev.confusion)\n"
        "bacc.evaluate_many(np.array([[[5, 1], [2, 7]]]))\n"
        "print(sorted(m for m in sys.modules if m.startswith('bacc.display')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ----------------------------------------------------------------------------------------------
# words a reader meets
def test_coverage_title_names_the_true_value_as_such():
    r = bacc.coverage(["union", "wald"], [20, 20], [0.99, 0.9], n_simulations=400, random_state=0)
    first = str(r).splitlines()[0]
    # 0.945 is the true balanced accuracy (0.99 + 0.9) / 2, not a coverage
    assert first == ("Coverage of 95% two-sided intervals for the balanced accuracy when its true "
                     "value is 0.945")
    assert "+- MC error" in str(r) and "keeps 95%" in str(r)
    # the key under the table says what coverage, keeps and FALLS SHORT mean
    assert "share of the simulated test sets whose interval contains the true value" in str(r)
    assert "else FALLS SHORT" in str(r)


@pytest.mark.parametrize("x, text", [(0.001, "0.0010"), (0.00047, "0.0005"), (0.0123, "0.0123"),
                                     (2e-6, "< 0.0001"), (math.nan, "-")])
def test_monte_carlo_errors_have_four_decimals_like_the_numbers(x, text):
    assert fmt.mc_error(x) == text


def test_every_metric_row_has_four_decimals():
    import re

    from bacc.display.text import metric_table

    res = [bacc.posterior_metric(CM_A, m, n_draws=4000, random_state=0)
           for m in ("accuracy", "macro_f1", "cohen_kappa", "matthews")]
    table = metric_table(res, 0.95)
    rows = table.splitlines()[1:]
    assert len(rows) == 4
    for row in rows:
        numbers = re.findall(r"\d+\.\d+", row)
        assert numbers and all(len(n.split(".")[1]) == 4 for n in numbers), row
    mc = [r for r in res if not r.exact]
    assert mc and all(f"MC +- {max(r.mc_se.values()):.4f}" in table for r in mc)


def test_population_rows_say_whose_balanced_accuracy():
    from bacc.display.text import population_table, population_text_rows

    pop = bacc.population([[[40, 5], [7, 48]], [[44, 7], [8, 41]], [[18, 2], [15, 65]]])
    _, rows = population_text_rows(pop)
    assert [r[0] for r in rows] == ["population balanced accuracy",
                                    "a new subject's balanced accuracy",
                                    "all examples pooled (fixed effects)"]
    assert rows[1][1] == fmt.number(pop.predictive.mean)
    assert "a new subject's: where the balanced accuracy of one more subject is expected" in \
        " ".join(line.strip() for line in population_table(pop).splitlines())


def test_a_weighted_balanced_accuracy_is_called_so_with_its_weights():
    cm = bacc.ConfusionMatrix([[42, 3], [6, 4]], labels=["neg", "pos"])
    text = str(bacc.evaluate(cm, weights={"pos": 0.3, "neg": 0.7}))
    assert "weighted balanced accuracy: class weights neg 0.7, pos 0.3" in text
    plain = str(bacc.evaluate(cm))
    assert "weighted" not in plain and str(bacc.evaluate(cm, weights=[0.5, 0.5])) == plain
