"""``bacc.monitor`` on small daily windows: every P(worse) equals :func:`bacc.compare`.

Daily windows of a few examples (the exact small-count path), perfect days, all-wrong days,
days with one example per class and days without a class (no P(worse)), against each
detector's first 8 days: each finite ``p_worse`` within 1e-9 of ``bacc.compare`` of the
window's matrix and its baseline's, with and without repeated windows (each distinct window
computed once).
"""

from __future__ import annotations

import datetime as dt
import math
import warnings

import numpy as np
import pytest

import bacc


def _log():
    rng = np.random.default_rng(11)
    rows = {"ts": [], "det": [], "y": [], "yhat": []}
    start = dt.datetime(2026, 3, 2)
    for det, acc in (("good", (0.92, 0.88)), ("perfect", (1.0, 1.0)), ("poor", (0.7, 0.6))):
        for day in range(24):
            n = rng.poisson([8, 4])
            if day == 12:
                n = np.array([1, 1])  # one example per class
            if day == 15:
                n = np.array([5, 0])  # a class missing
            right = acc if not (det == "poor" and day in (18, 19)) else (0.0, 0.0)  # all wrong
            for c in (0, 1):
                for i in range(int(n[c])):
                    rows["ts"].append(start + dt.timedelta(days=day, hours=i % 24))
                    rows["det"].append(det)
                    rows["y"].append(c)
                    ok = rng.random() < right[c]
                    rows["yhat"].append(c if ok else 1 - c)
    return rows


def _matrix(k, n):
    return np.array([[k[0], n[0] - k[0]], [n[1] - k[1], k[1]]])


@pytest.fixture(scope="module")
def monitored():
    return bacc.monitor(_log(), true="y", pred="yhat", time="ts", by="det", window="1D",
                        n_simulations=0)


def test_every_p_worse_equals_the_exact_comparison(monitored):
    m = monitored
    checked = 0
    for d, name in enumerate(m.detectors):
        rows = np.flatnonzero(m.detector == d)
        first = rows[:8]  # the first 8 days (every day holds examples)
        base_k, base_n = m.correct[first].sum(axis=0), m.support[first].sum(axis=0)
        for i in rows:
            if (m.support[i] == 0).any():
                assert math.isnan(m.p_worse[i])
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exact = bacc.compare(_matrix(base_k, base_n), _matrix(m.correct[i], m.support[i]))
            assert m.p_worse[i] == pytest.approx(exact.p_better, abs=1e-9), (name, i)
            checked += 1
    assert checked > 60
    # perfect and all-wrong windows were among them
    perfect = (m.correct == m.support).all(axis=1) & (m.support > 0).all(axis=1)
    wrong = (m.correct == 0).all(axis=1) & (m.support > 0).all(axis=1)
    assert perfect.any() and wrong.any()
    assert (m.p_worse[wrong] > 0.99).all()


def test_repeated_windows_give_the_same_numbers(monitored):
    m = monitored
    key = np.concatenate([m.detector[:, None], m.correct, m.support], axis=1)
    _, inverse = np.unique(key, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    for g in np.unique(inverse):
        same = m.p_worse[inverse == g]
        assert np.isnan(same).all() or np.ptp(same) == 0
    assert np.bincount(inverse).max() > 1  # some windows repeat
