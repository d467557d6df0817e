"""Draws the picture of the README (docs/_static/readme-posterior.png) from its quick start.

    python scripts/readme_picture.py
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import bacc  # noqa: E402

ev = bacc.evaluate([[42, 3], [6, 4]])
fig = ev.plot()
out = Path(__file__).resolve().parents[1] / "docs" / "_static" / "readme-posterior.png"
fig.savefig(out, dpi=110)
print(out)
