"""The method chooser of sums of Betas: the three callers give the numbers they gave before it.

``tests/data/sum_chooser.json`` (written by ``tests/support/sum_chooser_cases.py``, whose notes say how)
holds the numbers of single :class:`bacc.BetaSum` distributions, of :func:`bacc.evaluate_many`
and of the probabilities of :func:`bacc.monitor`, computed on the regression matrices before the
choice of method moved to :mod:`bacc._engine.sums.chooser`; each is reproduced to 1e-12.
"""

from __future__ import annotations

import functools
import json
import math

import pytest
from support.sum_chooser_cases import RECORD, compute

RECORDED = json.loads(RECORD.read_text())
TOL = 1e-12

#: The numbers are computed once, when the first test needs them (not while the tests are
#: collected), and the file runs in one worker under pytest-xdist (conftest.py: --dist loadgroup).
pytestmark = pytest.mark.xdist_group("test_engine_sums_chooser")


@functools.cache
def _now() -> dict[str, list[float]]:
    return compute()


def _largest_difference(case: str) -> float:
    before, now = RECORDED[case], _now()[case]
    assert len(before) == len(now), case
    worst = 0.0
    for old, new in zip(before, now, strict=True):
        if math.isnan(old):
            assert math.isnan(new), f"{case}: {new} (was nan)"
            continue
        worst = max(worst, abs(new - old))
    return worst


def test_every_case_is_recorded():
    assert sorted(_now()) == sorted(RECORDED)


@pytest.mark.parametrize("caller", ["betasum", "evaluate_many", "p_worse"])
def test_each_caller_gives_the_recorded_numbers(caller):
    cases = [c for c in RECORDED if c.startswith(caller + "/")]
    assert cases
    worst = {c: _largest_difference(c) for c in cases}
    bad = {c: d for c, d in worst.items() if d > TOL}
    assert not bad, f"{len(bad)} cases differ by more than {TOL}: {sorted(bad.items())[:5]}"


def test_the_engine_packages_list_their_modules():
    """The docstrings of ``bacc._engine`` and its subpackages name every module in them."""
    import pkgutil

    import bacc._engine
    import bacc._engine.bounds
    import bacc._engine.sums

    for package in (bacc._engine, bacc._engine.bounds, bacc._engine.sums):
        doc = package.__doc__
        missing = [m.name for m in pkgutil.iter_modules(package.__path__)
                   if f":mod:`.{m.name}`" not in doc]  # fmt: skip
        assert not missing, f"{package.__name__} does not list {missing}"


def test_every_caller_asks_the_chooser():
    """``distributions``, ``batch`` and ``monitoring`` import no method of a sum of Betas nor
    the partition of its components: they reach them through the engines the chooser builds
    (``bacc._engine.sums.single``, ``bacc._engine.sums.rows``)."""
    import ast
    from pathlib import Path

    import bacc

    methods = {"PairSums", "checked_table", "GridTable", "many_sums", "partition", "BetaNarrow",
               "MomentNarrow", "TwoPoint", "PairedTable", "p_below", "p_worse_lattice",
               "p_worse_pairs", "wider_first", "choose_single", "choose_rows"}  # fmt: skip
    for name in ("distributions", "batch", "monitoring"):
        tree = ast.parse((Path(bacc.__file__).parent / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                used = methods & {a.name for a in node.names}
                assert not used, f"{name} imports {sorted(used)} from {node.module}"


@pytest.mark.parametrize("key", ["p_worse/two/2/counted/0.03", "p_worse/flat/2/counted/0.03"])
def test_re_recorded_p_worse_agree_with_the_reference(key):
    """The values that changed when these cases were re-recorded (see
    tests/support/sum_chooser_cases.py: a perfect window against a perfect or a large baseline)
    are the 30-digit reference's: P(lambda_now - lambda_base < -margin) as the CDF of one
    weighted sum of Betas with the baseline's weights negated."""
    import warnings

    from references.reference import ref_cdf
    from support import sum_chooser_cases as cases

    _, pname, size, _, margin = key.split("/")
    prior, margin = cases.PRIORS[pname], float(margin)
    mats = cases.matrices()
    names = [n for n, m in mats.items() if m.shape[0] == int(size)]
    post = [cases._posterior(mats[n], prior) for n in names]
    pairs = [(i, j) for i in range(len(names)) for j in range(len(names))]
    changed = {("perfectx1", "perfectx1000"), ("perfectx1", "binary_largex1000")}
    worst, checked = 0.0, 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k, (i, j) in enumerate(pairs):
            if (names[i], names[j]) not in changed:
                continue
            checked += 1
            inc = post[i][2] & post[j][2]
            w = 1.0 / inc.sum()
            a = [*post[i][0][inc], *post[j][0][inc]]
            b = [*post[i][1][inc], *post[j][1][inc]]
            ref = float(ref_cdf(-margin, a, b, [w] * int(inc.sum()) + [-w] * int(inc.sum())))
            worst = max(worst, abs(RECORDED[key][k] - ref))
    assert checked == 2 and worst < 1e-12
