"""Counting a prediction file larger than the memory the engine may use.

A CSV file of about 270 MB is counted by ``bacc.counts`` with DuckDB limited to 100 MB, in a
separate process whose peak resident memory is measured: the counts must equal an independent
numpy count, and the process must grow by well under the size of the file (the count streams).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytest.importorskip("duckdb")
pa = pytest.importorskip("pyarrow")
pacsv = pytest.importorskip("pyarrow.csv")

N_ROWS = 15_000_000
N_DETECTORS = 40
LIMIT = "100MB"

CHILD = textwrap.dedent(
    """
    import json, sys
    import duckdb
    import bacc

    def peak():
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM"):
                return int(line.split()[1]) * 1024
        return 0

    duckdb.connect().execute("SELECT 1").fetchall()  # engine loaded before the baseline
    before = peak()
    res = bacc.counts(sys.argv[1], true="label", pred="pred", by="detector",
                      memory_limit=sys.argv[2], progress=False)
    out = {str(g): res[g].counts.tolist() for g in res}
    print(json.dumps({"growth": peak() - before, "labels": [str(v) for v in res.labels],
                      "counts": out}))
    """
)


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    rng = np.random.default_rng(0)
    det = rng.integers(0, N_DETECTORS, N_ROWS)
    label = rng.integers(0, 2, N_ROWS)
    wrong = rng.random(N_ROWS) < 0.1 + 0.01 * (det % 10)
    pred = np.where(wrong, 1 - label, label)
    names = [f"detector_{i:03d}" for i in range(N_DETECTORS)]
    # the names column taken by pyarrow (a numpy array of 15 million strings costs seconds)
    table = pa.table({"detector": pa.array(names).take(pa.array(det)), "label": label,
                      "pred": pred})
    path = tmp_path_factory.mktemp("ooc") / "predictions.csv"
    pacsv.write_csv(table, path)
    # the independent count: each (detector, label, prediction) cell by numpy's bincount
    expected = np.bincount((det * 2 + label) * 2 + pred, minlength=N_DETECTORS * 4)
    expected = expected.reshape(N_DETECTORS, 2, 2)
    return path, {names[i]: expected[i] for i in range(N_DETECTORS)}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
@pytest.mark.slow
def test_file_larger_than_the_memory_limit_is_counted_exactly(big_file):
    path, expected = big_file
    size = path.stat().st_size
    limit = 100 * 2**20
    assert size > 1.5 * limit  # the file does not fit in what DuckDB may use
    run = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), LIMIT],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert got["labels"] == ["0", "1"]
    assert set(got["counts"]) == set(expected)
    for name, m in expected.items():
        assert got["counts"][name] == m.tolist(), name
    # streaming: the process grows by far less than the file it reads
    print(f"file {size / 2**20:.0f} MiB, growth {got['growth'] / 2**20:.0f} MiB")
    assert got["growth"] < 0.6 * size, (got["growth"], size)


def test_bad_memory_limit_is_a_clear_error(tmp_path):
    import bacc

    p = tmp_path / "p.csv"
    p.write_text("label,pred\na,a\nb,a\n")
    with pytest.raises(bacc.BaccError, match="memory_limit"):
        bacc.counts(str(p), true="label", pred="pred", memory_limit="lots")
