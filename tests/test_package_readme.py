"""The README's Python examples run as written (with example data for the names they assume)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import bacc

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def _namespace() -> dict:
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 2, 200)
    pred_a = np.where(rng.random(200) < 0.85, y_true, 1 - y_true)
    pred_b = np.where(rng.random(200) < 0.75, y_true, 1 - y_true)
    pred_c = np.where(rng.random(200) < 0.70, y_true, 1 - y_true)
    cm = [[42, 3], [6, 4]]
    return {
        "bacc": bacc,
        "cm": cm,
        "cm_a": cm,
        "cm_b": [[40, 5], [3, 7]],
        "ev": bacc.evaluate(cm),
        "ev_a": bacc.evaluate(cm),
        "ev_b": bacc.evaluate([[40, 5], [3, 7]]),
        "ev_c": bacc.evaluate([[30, 15], [2, 8]]),
        "y_true": y_true,
        "pred_a": pred_a,
        "pred_b": pred_b,
        "pred_c": pred_c,
        "stack": np.array([cm, [[40, 5], [3, 7]]]),
    }


def test_the_readme_has_python_examples():
    assert len(BLOCKS) >= 2


def test_every_link_of_the_readme_is_a_file_of_the_project():
    """The README links into the documentation's sources and its picture; none may dangle."""
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert len(links) >= 15
    missing = [link for link in links if not (README.parent / link.split("#")[0]).exists()]
    assert missing == []


def test_the_readme_gives_the_two_set_up_commands_first():
    first = re.search(r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S).group(1)
    lines = [line.split("#")[0].strip() for line in first.strip().splitlines()]
    assert lines == ['pip install -e ".[all]" && bacc demo', "bash scripts/test.sh"]
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash scripts/test.sh" in ci


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_readme_example_runs(i):
    if "to_pandas" in BLOCKS[i]:
        pytest.importorskip("pandas")
    exec(compile(BLOCKS[i], f"README.md block {i + 1}", "exec"), _namespace())


def _readme_commands() -> list[str]:
    """The ``bacc ...`` command lines of the README's shell blocks (comments removed)."""
    blocks = re.findall(r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    lines = [line.split("  #")[0].strip() for block in blocks for line in block.splitlines()]
    return [line for line in lines if line.startswith("bacc ") and line != "bacc demo"]


def test_the_readme_shows_commands():
    assert len(_readme_commands()) >= 5


@pytest.mark.parametrize("command", _readme_commands())
def test_readme_command_runs(command, tmp_path):
    """Each command of the README runs as written, on files with the names and columns it uses.

    The README's set-up line installs the ``all`` extra, so Parquet files and the data engine
    are there, as they are here.
    """
    import shlex

    from support.preloaded import python_m

    pd = pytest.importorskip("pandas")
    pytest.importorskip("duckdb")
    rng = np.random.default_rng(1)
    n = 600
    label = rng.integers(0, 2, n)

    def noisy(p):
        return np.where(rng.random(n) < p, label, 1 - label)

    frame = pd.DataFrame({
        "label": label, "predicted": noisy(0.9), "model_a": noisy(0.88), "model_b": noisy(0.8),
        "detector": rng.choice(["cam1", "cam2", "cam3"], n),
        "probability": np.round(1 / (1 + np.exp(-rng.normal(2.0 * label - 1.0, 1.0))), 3),
        "ts": pd.Timestamp("2026-01-05") + pd.to_timedelta(rng.uniform(0, 120, n), unit="D"),
    })
    for name in ("predictions.csv", "preds.csv"):
        frame.to_csv(tmp_path / name, index=False)
    frame.to_parquet(tmp_path / "log.parquet")
    args = shlex.split(command)[1:]
    # as a new process gives it, from a process with numpy and scipy imported (support/preloaded.py)
    done = python_m("bacc", args, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip()
    if "-o" in args:
        assert (tmp_path / args[args.index("-o") + 1]).stat().st_size > 10_000
