"""``--exact-method anytime`` on the command line: the library's numbers, every exact column
anytime-valid, and clear errors for ``--tuned-for``."""

from __future__ import annotations

import pytest
from test_cli import assert_bad_input, run, run_json

import bacc
from bacc.anytime import anytime_bounds


def test_evaluate_prints_the_anytime_intervals():
    out = run_json("evaluate", "--matrix", "42,3;6,4", "--exact-method", "anytime",
                   "--tuned-for", "300")
    iv = bacc.anytime_interval([[42, 3], [6, 4]], tuned_for=300)
    got = out["exact"]["balanced_accuracy"]
    assert got["method"] == "anytime" and got["guaranteed"]
    assert (got["lower"], got["upper"]) == pytest.approx((iv.lower, iv.upper), abs=1e-15)
    acc = out["exact"]["accuracy"]
    lo, hi = anytime_bounds(46, 55, tuned_for=600)  # tuned for the classes' total
    assert acc["method"] == "anytime" and (acc["lower"], acc["upper"]) == pytest.approx((lo, hi))
    for row, (k, n) in zip(out["exact"]["classes"], [(42, 45), (4, 10)], strict=True):
        assert row["method"] == "anytime"
        assert (row["lower"], row["upper"]) == pytest.approx(anytime_bounds(k, n, tuned_for=300))
    text = run("evaluate", "--matrix", "42,3;6,4", "--exact-method", "anytime").stdout
    assert "anytime-valid" in text and "every look" in text


@pytest.mark.parametrize("args,needle", [
    (("--tuned-for", "50"), "--exact-method anytime"),
    (("--exact-method", "anytime", "--tuned-for", "0"), "--tuned-for"),
    (("--exact-method", "anytime", "--tuned-for", "nan"), "--tuned-for"),
    (("--exact-method", "anytime", "--tuned-for", "inf"), "--tuned-for"),
])
def test_bad_tuned_for_is_one_line(args, needle):
    proc = run("evaluate", "--matrix", "42,3;6,4", *args, check=False)
    assert_bad_input(proc, needle)
    assert needle in proc.stderr


def test_report_labels_the_intervals_anytime_valid(tmp_path):
    out = tmp_path / "r.html"
    run("report", "--matrix", "42,3;6,4", "--exact-method", "anytime", "-o", str(out))
    assert "anytime-valid" in out.read_text(encoding="utf-8")


def test_summary_tables_name_the_anytime_column():
    text = run("rank", "--matrix", "42,3;6,4", "--matrix", "40,5;3,7", "--exact-method",
               "anytime").stdout
    assert "anytime-valid confidence interval" in " ".join(text.split())
    plain = run("rank", "--matrix", "42,3;6,4", "--matrix", "40,5;3,7").stdout
    assert "anytime" not in plain
