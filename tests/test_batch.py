"""evaluate_many: the same numbers as one evaluate per group, computed across groups at once."""

import io
import sys

import numpy as np
import pytest

import bacc
from bacc import BaccError


def _binary_stack(G, seed):
    rng = np.random.default_rng(seed)
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
