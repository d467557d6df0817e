"""Draws the anytime picture of the README (docs/_static/readme-anytime.png): one simulated
stream of labels with true accuracy 0.9, read after every label, the 95 % confidence sequence
beside the 95 % Clopper-Pearson interval recomputed at each label.

    python scripts/readme_anytime_picture.py
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

import bacc  # noqa: E402
from bacc.anytime import fixed_n_bounds  # noqa: E402
from bacc.display.plot import plot_sequence  # noqa: E402

true_accuracy, n_labels = 0.9, 10_000
rng = np.random.default_rng(1)  # a stream where the fixed-n interval strays from the truth
y_true = rng.integers(0, 2, n_labels)
y_pred = np.where(rng.random(n_labels) < true_accuracy, y_true, 1 - y_true)

seq = bacc.confidence_sequence(y_true, y_pred, metric="accuracy")
fixed = fixed_n_bounds(seq)
fig = plot_sequence(seq, fixed=fixed, truth=true_accuracy,
                    title="one stream, true accuracy 0.9, read after every label")
fig.axes[0].set_ylim(0.7, 1.0)  # zoom in on the truth, from the 10th label on
fig.axes[0].set_xlim(10, n_labels)
out = Path(__file__).resolve().parents[1] / "docs" / "_static" / "readme-anytime.png"
fig.savefig(out, dpi=110)
print(out)
