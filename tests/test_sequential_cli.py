"""``bacc plan --sequential`` and ``bacc next-label --anytime``: the library's answers, and one
line for options that do not go together."""

from __future__ import annotations

import pytest
from test_cli import assert_bad_input, run, run_json

import bacc


def test_plan_sequential_prints_the_library_plan():
    out = run_json("plan", "--matrix", "42,3;6,4", "--lower", "0.55", "--sequential",
                   "--simulations", "200", "--max-labels", "500", "--tuned-for", "50")
    ref = bacc.plan_sequential([[42, 3], [6, 4]], lower=0.55, n_simulations=200, max_labels=500,
                               tuned_for=50)
    assert out == ref.to_dict()
    text = run("plan", "--matrix", "42,3;6,4", "--lower", "0.55", "--sequential",
               "--simulations", "200", "--max-labels", "500").stdout
    assert "valid whenever it stops" in text


def test_next_label_anytime():
    out = run_json("next-label", "--matrix", "42,3;6,4", "--anytime", "--tuned-for", "200")
    ref = bacc.next_label([[42, 3], [6, 4]], interval="anytime", tuned_for=200)
    assert out["interval"] == "anytime" and out["best_index"] == ref.best_index
    assert out["current_width"] == pytest.approx(ref.current_width, abs=1e-12)


@pytest.mark.parametrize("args,needle", [
    (("plan", "--matrix", "42,3;6,4", "--lower", "0.6", "--tuned-for", "30"), "--sequential"),
    (("plan", "--matrix", "42,3;6,4", "--width", "0.2", "--sequential"), "--lower"),
    (("plan", "--matrix", "42,3;6,4", "--lower", "0.6", "--sequential", "--budget", "40"),
     "--budget"),
    (("next-label", "--matrix", "42,3;6,4", "--tuned-for", "30"), "--anytime"),
])
def test_options_that_do_not_go_together(args, needle):
    proc = run(*args, check=False)
    assert_bad_input(proc)
    assert needle in proc.stderr
