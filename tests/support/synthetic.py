"""Synthetic data written by the tests (seeded, no downloads)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def groups_csv(path: Path, n_groups: int = 1000, seed: int = 0) -> Path:
    """Predictions of ``n_groups`` detectors of two classes (20 to 400 examples each)."""
    rng = np.random.default_rng(seed)
    n = rng.integers(20, 400, n_groups)
    acc = rng.uniform(0.55, 0.98, n_groups)
    det = np.repeat(np.arange(n_groups), n)
    y = rng.integers(0, 2, det.size)
    p = np.where(rng.random(det.size) < acc[det], y, 1 - y)
    with path.open("w") as fh:
        fh.write("detector,label,pred\n")
        for d, a, b in zip(det, y, p, strict=True):
            fh.write(f"det{d:04d},{'pos' if a else 'neg'},{'pos' if b else 'neg'}\n")
    return path


def long_names_csv(path: Path, n: int = 300, seed: int = 3) -> tuple[Path, list[str]]:
    """Five classifiers with 71-character names over three classes with 62-character labels,
    on the same examples (one file): what stretches a page's layout."""
    rng = np.random.default_rng(seed)
    labels = ["class_" + "x" * 55 + str(i) for i in range(3)]
    y = rng.integers(0, 3, n)
    models = ["model_" + "y" * 64 + str(k) for k in range(5)]
    preds = [np.where(rng.random(n) < 0.6 + 0.07 * k, y, rng.integers(0, 3, n)) for k in range(5)]
    with path.open("w") as fh:
        fh.write(",".join(["truth", *models]) + "\n")
        for e in range(n):
            fh.write(",".join([labels[y[e]], *(labels[p[e]] for p in preds)]) + "\n")
    return path, models


def detector_csv(path: Path, n: int = 5000, seed: int = 0) -> Path:
    """One two-class detector on a test set with 2 % positives (labels neg / pos)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.02).astype(int)
    p = np.where(y == 1, (rng.random(n) < 0.85).astype(int), (rng.random(n) < 0.02).astype(int))
    lab = {0: "neg", 1: "pos"}
    with path.open("w") as fh:
        fh.write("label,pred\n")
        for a, b in zip(y, p, strict=True):
            fh.write(f"{lab[int(a)]},{lab[int(b)]}\n")
    return path
