"""The method chooser of sums of Betas: the three callers give the numbers they gave before it.

``tests/data/sum_chooser.json`` (written by ``tests/sum_chooser_cases.py``, whose notes say how)
holds the numbers of single :class:`bacc.BetaSum` distributions, of :func:`bacc.evaluate_many`
and of the probabilities of :func:`bacc.monitor`, computed on the regression matrices before the
choice of method moved to :mod:`bacc._engine.sums.chooser`; each is reproduced to 1e-12.
"""

from __future__ import annotations

import json
import math

import pytest
from sum_chooser_cases import RECORD, compute

RECORDED = json.loads(RECORD.read_text())
NOW = compute()
TOL = 1e-12


def _largest_difference(case: str) -> float:
    before, now = RECORDED[case], NOW[case]
    assert len(before) == len(now), case
    worst = 0.0
    for old, new in zip(before, now, strict=True):
        if math.isnan(old):
            assert math.isnan(new), f"{case}: {new} (was nan)"
            continue
        worst = max(worst, abs(new - old))
    return worst


def test_every_case_is_recorded():
    assert sorted(NOW) == sorted(RECORDED)


@pytest.mark.parametrize("caller", ["betasum", "evaluate_many", "p_worse"])
def test_each_caller_gives_the_recorded_numbers(caller):
    cases = [c for c in RECORDED if c.startswith(caller + "/")]
    assert cases
    worst = {c: _largest_difference(c) for c in cases}
    bad = {c: d for c, d in worst.items() if d > TOL}
    assert not bad, f"{len(bad)} cases differ by more than {TOL}: {sorted(bad.items())[:5]}"
