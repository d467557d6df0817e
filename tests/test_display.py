"""The display layer: one number formatter, one table layout, and every result rendered by it."""

from __future__ import annotations

import math
import subprocess
import sys

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
            bacc.coverage(["union", "wald"], [10, 10], [0.9, 0.9], n_sim=500, random_state=0),
            ["union", "wald", "verdict"],
        ),
        "batch": (bacc.evaluate_many(np.array([CM_A, CM_B])), ["2 groups", "P(>chance)"]),
    }


@pytest.mark.parametrize("kind", sorted(_results()))
def test_each_result_prints_its_key_numbers(kind):
    result, expected = _results()[kind]
    text = str(result)
    for e in expected:
        assert e in text, f"{kind}: {e!r} not in\n{text}"


@pytest.mark.parametrize("kind", ["evaluation", "comparison", "paired", "ranking"])
def test_notebook_html_of_results(kind):
    result, _ = _results()[kind]
    out = result._repr_html_()
    assert out.startswith("<div>") and "<table>" in out and out.endswith("</div>")


def test_comparison_html_shows_the_same_numbers_as_its_text():
    c = bacc.compare(CM_A, CM_B)
    assert fmt.number(c.mean) in str(c)
    assert fmt.number(c.mean) in c._repr_html_()


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
