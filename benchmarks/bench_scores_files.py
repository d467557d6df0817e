"""Scores of a large Parquet file counted in bounded memory: time and peak memory.

Writes (seeded, in chunks, never all in memory) one Parquet file of ``--rows`` examples, a
float64 score and an int8 label (30 % positives, every score distinct), into a temporary
directory, then measures, in this process, one after the other:

``bacc``
    ``score_tallies(path, true="label", score="score", max_thresholds=100_000)``: DuckDB
    counts the file out of core; only the 100 000 bins with their counts come back.
``baseline``
    the usual script: ``pyarrow.parquet.read_table`` of the file into memory, then
    scikit-learn's ``roc_curve(drop_intermediate=False)`` (every distinct score). Skipped with
    a message when scikit-learn is missing; when the file's columns would not fit in the
    machine's available memory about eleven times over (what ``roc_curve`` needs),
    it runs on the largest number of first rows that does, and says so.

Peak memory is the resident set size sampled every 5 ms by a thread while each call runs
(``/proc/self/statm``), reported as the peak and as the growth over the size before the
call. The counts of ``bacc`` at each of its thresholds are checked against the baseline's
curve at the same thresholds (when the baseline saw every row).

Usage::

    python benchmarks/bench_scores_files.py                 # 10^8 rows (about 0.85 GB on disk)
    python benchmarks/bench_scores_files.py --quick         # 10^6 rows (a smoke test)
    python benchmarks/bench_scores_files.py --rows 1e7      # 10^7 rows
    python benchmarks/bench_scores_files.py --rows 2e7 --max-thresholds 10000
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np
from _timing import Stopwatch, machine

TRUE, SCORE = "label", "score"
CHUNK = 5_000_000
#: resident bytes of the baseline per row: the table (9 B) and numpy copies, the argsort
#: (8 B), the sorted scores and labels, the cumulative sums and the curve (float64) of
#: roc_curve; measured about 91 B per row with scikit-learn 1.9 at 10^7 rows
BASELINE_BYTES_PER_ROW = 100


class PeakRSS:
    """Peak resident set size of this process while a ``with`` block runs (bytes), sampled
    by a thread, and the size when the block began."""

    def __init__(self, every: float = 0.005) -> None:
        self.every = every
        self.start = self.peak = 0
        self._stop = threading.Event()

    @staticmethod
    def now() -> int:
        try:
            with open("/proc/self/statm") as fh:
                return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except OSError:  # not Linux: the process's peak so far
            import resource

            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.peak = max(self.peak, self.now())

    def __enter__(self) -> PeakRSS:
        self.start = self.peak = self.now()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.now())

    @property
    def growth(self) -> int:
        return self.peak - self.start


def available_memory() -> int:
    """Bytes the kernel says are available (``MemAvailable``), or the physical memory."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def generate(path: Path, rows: int, seed: int) -> None:
    """``rows`` examples in one Parquet file, written ``CHUNK`` rows at a time."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    schema = pa.schema([(SCORE, pa.float64()), (TRUE, pa.int8())])
    with pq.ParquetWriter(path, schema) as writer:
        done = 0
        while done < rows:
            n = min(CHUNK, rows - done)
            y = (rng.random(n) < 0.3).astype(np.int8)
            s = rng.normal(1.2 * y, 1.0)
            writer.write_table(pa.table({SCORE: s, TRUE: y}, schema=schema),
                               row_group_size=1 << 20)
            done += n
            print(f"\rgenerating: {done:,} / {rows:,} rows", end="", file=sys.stderr)
    print(file=sys.stderr)


def run_bacc(path: Path, max_thresholds: int):
    from bacc.counting.scores import score_tallies

    return score_tallies(str(path), true=TRUE, score=SCORE, max_thresholds=max_thresholds)


def run_baseline(path: Path, rows: int | None):
    """Read the file (its first ``rows`` rows) with pyarrow, then sklearn's ROC curve."""
    import pyarrow.parquet as pq
    from sklearn.metrics import roc_curve

    if rows is None:
        table = pq.read_table(path, columns=[SCORE, TRUE])
    else:
        import pyarrow as pa

        batches, got = [], 0
        for batch in pq.ParquetFile(path).iter_batches(batch_size=1 << 20, columns=[SCORE, TRUE]):
            batches.append(batch.slice(0, rows - got))
            got += batches[-1].num_rows
            if got >= rows:
                break
        table = pa.Table.from_batches(batches)
    s = table.column(SCORE).to_numpy()
    y = table.column(TRUE).to_numpy()
    del table
    fpr, tpr, thresholds = roc_curve(y, s, drop_intermediate=False)
    return fpr, tpr, thresholds, int(y.sum()), int(y.size - y.sum())


def check(tally, curve) -> None:
    """The counts of ``tally`` at each of its values equal the baseline's curve there."""
    fpr, tpr, thresholds, n_pos, n_neg = curve
    idx = np.searchsorted(-thresholds, -tally.values)
    if not np.array_equal(thresholds[idx], tally.values):
        raise SystemExit("a threshold of bacc is not a score of the file")
    tps = np.rint(tpr[idx] * n_pos).astype(np.int64)
    fps = np.rint(fpr[idx] * n_neg).astype(np.int64)
    if not (np.array_equal(np.cumsum(tally.positives), tps)
            and np.array_equal(np.cumsum(tally.negatives), fps)):
        raise SystemExit("bacc's counts differ from scikit-learn's curve at its thresholds")


def _size(b: float) -> str:
    return f"{b / 2**30:.2f} GiB" if b >= 2**30 else f"{b / 2**20:.0f} MiB"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=lambda s: int(float(s.replace("_", ""))), default=100_000_000)
    ap.add_argument("--max-thresholds", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=20240116)
    ap.add_argument("--quick", action="store_true", help="10^6 rows instead of 10^8 (a smoke test)")
    ap.add_argument("--no-baseline", action="store_true", help="measure bacc alone")
    args = ap.parse_args(argv)
    if args.quick:
        args.rows = 1_000_000
    print(machine("numpy", "duckdb", "pyarrow", "sklearn"))
    with tempfile.TemporaryDirectory(prefix="bench-scores-") as tmp:
        path = Path(tmp) / "scores.parquet"
        with Stopwatch() as gen:
            generate(path, args.rows, args.seed)
        disk = path.stat().st_size
        print(f"data: {args.rows:,} rows (float64 score, int8 label), one Parquet file of "
              f"{_size(disk)}, written in {gen.wall:.1f} s")

        with Stopwatch() as sw, PeakRSS() as mem:
            tally = run_bacc(path, args.max_thresholds)
        ours = (sw.wall, sw.cpu, mem.peak, mem.growth)
        print(f"bacc score_tallies(max_thresholds={args.max_thresholds:,}): {sw.wall:.1f} s "
              f"(CPU {sw.cpu:.1f} s), peak RSS {_size(mem.peak)} (+{_size(mem.growth)}); "
              f"{tally.values.size:,} bins, binned={tally.binned}, "
              f"{tally.n_positive + tally.n_negative:,} examples")
        if tally.n_positive + tally.n_negative != args.rows:
            raise SystemExit("the tallies do not add up to the number of rows")

        if args.no_baseline:
            return 0
        try:
            import sklearn  # noqa: F401
        except ImportError:
            print("baseline skipped: scikit-learn is not installed (pip install scikit-learn)")
            return 0
        fits = int(available_memory() * 0.8 / BASELINE_BYTES_PER_ROW)
        rows = None if fits >= args.rows else fits
        if rows is not None:
            print(f"the baseline needs about {_size(args.rows * BASELINE_BYTES_PER_ROW)} for "
                  f"{args.rows:,} rows, more than this machine has available: it runs on the "
                  f"first {rows:,} rows")
        with Stopwatch() as sw, PeakRSS() as mem:
            curve = run_baseline(path, rows)
        base = (sw.wall, sw.cpu, mem.peak, mem.growth)
        n_base = args.rows if rows is None else rows
        print(f"baseline pyarrow read_table + sklearn roc_curve on {n_base:,} rows: "
              f"{sw.wall:.1f} s (CPU {sw.cpu:.1f} s), peak RSS {_size(mem.peak)} "
              f"(+{_size(mem.growth)}); {curve[2].size - 1:,} thresholds")
        if rows is None:
            check(tally, curve)
            print("bacc's counts equal scikit-learn's curve at each of bacc's thresholds")
        del curve
        scale = args.rows / n_base  # a baseline on fewer rows: its time per row, scaled
        print(f"ratio baseline / bacc: time {base[0] * scale / ours[0]:.2f}x"
              f"{' (baseline time scaled to all rows)' if rows is not None else ''}, "
              f"peak memory growth {base[3] / max(ours[3], 1):.1f}x "
              f"({_size(base[3])} vs {_size(ours[3])})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
