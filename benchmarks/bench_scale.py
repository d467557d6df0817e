"""Scale benchmark: 100 million predictions of 1 000 detectors, counted and evaluated.

Generates (seeded, in chunks, never all in memory) a Parquet data set of binary predictions of
many detectors (the monitoring service of Sandler & Dirac 2024), then times two ways of getting every
detector's balanced accuracy with its posterior and exact bounds, each in a fresh Python
process whose peak resident memory is read from the kernel (``os.wait4``, the number
``/usr/bin/time -v`` prints as "Maximum resident set size"):

``bacc``
    ``bacc.counts(path, true=..., pred=..., by="detector")`` (DuckDB counts the files out of
    core; only 4 000 counts come back) then ``bacc.evaluate_many`` on the grouped counts.
``pandas``
    the usual script: ``pandas.read_parquet`` of everything, one vectorised
    ``groupby(["detector", "label", "predicted"]).size()``, and a loop over the detectors that
    builds each confusion matrix and calls ``bacc.evaluate``.

Both must give the same counts (checked) and the same posterior means (to 1e-9).

Usage::

    python benchmarks/bench_scale.py                      # 100M rows, 1000 detectors
    python benchmarks/bench_scale.py --rows 2_000_000     # a shorter run
    python benchmarks/bench_scale.py --quick              # 200 000 rows in a temporary folder
    python benchmarks/bench_scale.py --results FILE       # also write the Markdown table to FILE

The data go to ``benchmarks/data/`` (git-ignored; reused when the parameters match), or to
``--data-dir``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from _timing import Stopwatch, once

HERE = Path(__file__).resolve().parent
TRUE, PRED, BY = "label", "predicted", "detector"


# ----------------------------------------------------------------------------------------------
# data
def generate(path: Path, rows: int, detectors: int, seed: int, chunk: int) -> None:
    """Write ``rows`` predictions in Parquet files of ``chunk`` rows each (seeded)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    manifest = {"rows": rows, "detectors": detectors, "seed": seed, "chunk": chunk, "version": 1}
    mfile = path / "_manifest.json"
    if mfile.exists() and json.loads(mfile.read_text()) == manifest:
        print(f"reusing {path} ({rows:,} rows)", file=sys.stderr)
        return
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    # each detector: its own traffic share, class balance (often rare positives) and accuracies
    share = rng.dirichlet(np.full(detectors, 2.0))
    prevalence = rng.beta(0.7, 3.0, detectors)
    accuracy = rng.uniform(0.6, 0.999, (detectors, 2))
    names = pa.array([f"det-{i:04d}" for i in range(detectors)], pa.string())
    with Stopwatch() as sw:
        done = 0
        part = 0
        while done < rows:
            n = min(chunk, rows - done)
            det = rng.choice(detectors, n, p=share).astype(np.int16)
            truth = (rng.random(n) < prevalence[det]).astype(np.int8)
            right = rng.random(n) < accuracy[det, truth]
            pred = np.where(right, truth, 1 - truth).astype(np.int8)
            table = pa.table(
                {
                    BY: pa.DictionaryArray.from_arrays(pa.array(det), names),
                    TRUE: pa.array(truth),
                    PRED: pa.array(pred),
                }
            )
            pq.write_table(table, path / f"part-{part:05d}.parquet", row_group_size=1 << 20)
            done += n
            part += 1
            print(f"\rgenerating: {done:,} / {rows:,} rows", end="", file=sys.stderr)
    print(f"\rgenerated {rows:,} rows in {part} files, {sw.wall:.1f} s", file=sys.stderr)
    mfile.write_text(json.dumps(manifest))


def disk_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.glob("*.parquet"))


# ----------------------------------------------------------------------------------------------
# the two methods, each run in a child process
def _rss_now() -> int:
    """Peak resident memory of this process so far (bytes)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def child_bacc(path: str) -> dict:
    import duckdb  # noqa: F401 - imported here so that the baseline below includes it

    import bacc
    from bacc.counting import counts

    base = _rss_now()
    gc, t_count = once(lambda: counts(path, true=TRUE, pred=PRED, by=BY))
    res, t_eval = once(lambda: bacc.evaluate_many(gc))
    return {
        "import_rss_bytes": base,
        "count_seconds": t_count,
        "evaluate_seconds": t_eval,
        "groups": len(gc.groups),
        "counts": gc.counts.tolist(),
        "mean": res.mean.tolist(),
    }


def child_pandas(path: str) -> dict:
    import warnings

    import pandas as pd

    import bacc

    base = _rss_now()
    with Stopwatch() as read:
        df = pd.read_parquet(path)
    frame_bytes = int(df.memory_usage(deep=True).sum())
    matrices, means = [], []
    with Stopwatch() as group:
        # one vectorised groupby over every row, then a loop over the detectors
        sizes = df.groupby([BY, TRUE, PRED], observed=True).size()
        for _, cells in sizes.groupby(level=0, observed=True, sort=True):
            m = np.zeros((2, 2), dtype=np.int64)
            for (_, t, p), c in cells.items():
                m[int(t), int(p)] = c
            matrices.append(m.tolist())
    with Stopwatch() as evaluate, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # detectors that saw one class only
        for m in matrices:
            means.append(bacc.evaluate(m).balanced_accuracy_summary.mean)
    return {
        "import_rss_bytes": base,
        "read_seconds": read.wall,
        "count_seconds": read.wall + group.wall,
        "evaluate_seconds": evaluate.wall,
        "frame_bytes": frame_bytes,
        "groups": len(matrices),
        "counts": matrices,
        "mean": means,
    }


def run_child(method: str, path: Path) -> dict:
    """Run one method in a fresh interpreter; wall time and peak RSS from the kernel."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", method, "--data-dir", str(path)]
    with Stopwatch() as sw:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        out = proc.stdout.read() if proc.stdout else ""
        _, status, usage = os.wait4(proc.pid, 0)
    wall = sw.wall
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{method} failed with status {proc.returncode}")
    res = json.loads(out)
    res["wall_seconds"] = wall  # includes interpreter start-up and imports
    res["peak_rss_bytes"] = usage.ru_maxrss * 1024  # Linux reports KiB
    res["cpu_seconds"] = usage.ru_utime + usage.ru_stime
    return res


# ----------------------------------------------------------------------------------------------
def _versions() -> dict:
    out = {"python": platform.python_version()}
    for mod in ("numpy", "duckdb", "pyarrow", "pandas"):
        try:
            out[mod] = __import__(mod).__version__
        except ImportError:  # pragma: no cover
            out[mod] = "-"
    return out


def _gib(b: float) -> str:
    return f"{b / 2**30:.2f} GiB" if b >= 2**30 else f"{b / 2**20:.0f} MiB"


def report(args, path: Path, results: dict, command: str) -> str:
    rows, dets = args.rows, args.detectors
    size = disk_size(path)
    v = _versions()
    lines = [
        "# Scale benchmark: counting and evaluating many detectors",
        "",
        f"Command: `{command}`",
        "",
        f"Data: {rows:,} binary predictions of {dets:,} detectors (seed {args.seed}), "
        f"{len(list(path.glob('*.parquet')))} Parquet files, {_gib(size)} on disk; columns "
        f"`{BY}` (dictionary-encoded text), `{TRUE}`, `{PRED}` (int8).",
        f"Machine: {os.cpu_count()} cores, {_gib(os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES'))} "
        f"memory; Python {v['python']}, numpy {v['numpy']}, DuckDB {v['duckdb']}, "
        f"pyarrow {v['pyarrow']}, pandas {v['pandas']}.",
        "",
        "Each method runs in a fresh process; peak memory is that process's maximum resident set "
        "size (`os.wait4`, as `/usr/bin/time -v` reports it; \"of which imports\": the same after "
        "importing the libraries, before reading data); wall time includes start-up and imports; "
        "CPU is user + system time of the process. "
        f"Load average of the machine when the runs started: {args.load:.1f} "
        "(other jobs share its 2 cores, so wall times vary from run to run; CPU times less).",
        "",
        "| method | wall (s) | CPU (s) | counting (s) | evaluating (s) | peak memory | of which imports |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    label = {
        "bacc": "`bacc.counts(path, by=...)` + `bacc.evaluate_many`",
        "pandas": "pandas: `read_parquet` + `groupby(...).size()` + loop of `bacc.evaluate`",
    }
    for m, r in results.items():
        lines.append(
            f"| {label[m]} | {r['wall_seconds']:.1f} | {r['cpu_seconds']:.1f} | {r['count_seconds']:.1f} | "
            f"{r['evaluate_seconds']:.2f} | {_gib(r['peak_rss_bytes'])} | {_gib(r['import_rss_bytes'])} |"
        )
    if "bacc" in results and "pandas" in results:
        b, p = results["bacc"], results["pandas"]
        lines += [
            "",
            f"bacc / pandas: {p['wall_seconds'] / b['wall_seconds']:.1f}x faster end to end, "
            f"{p['peak_rss_bytes'] / b['peak_rss_bytes']:.1f}x less peak memory. "
            f"The pandas frame alone held {_gib(p['frame_bytes'])} "
            f"(read in {p['read_seconds']:.1f} s).",
            "Both gave identical counts for every detector and posterior means equal to 1e-9.",
        ]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=100_000_000)
    ap.add_argument("--detectors", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=20240116)
    ap.add_argument("--chunk", type=lambda s: int(s.replace("_", "")), default=5_000_000)
    ap.add_argument("--data-dir", type=Path, default=None,
                    help="where the Parquet files go (default benchmarks/data/scale_<rows>)")
    ap.add_argument("--methods", default="bacc,pandas", help="comma-separated: bacc,pandas")
    ap.add_argument("--results", type=Path, default=None, help="write a Markdown report here")
    ap.add_argument("--quick", action="store_true",
                    help="200 000 rows of 50 detectors in a temporary folder (a few seconds)")
    ap.add_argument("--child", choices=["bacc", "pandas"], help=argparse.SUPPRESS)
    ap.add_argument("--generate", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.quick and args.data_dir is None:
        args.rows, args.detectors, args.chunk = 200_000, 50, 100_000
        with tempfile.TemporaryDirectory() as tmp:
            args.data_dir = Path(tmp) / "scale"
            return _run(args, argv)
    return _run(args, argv)


def _run(args, argv) -> int:
    if args.generate:
        generate(args.data_dir, args.rows, args.detectors, args.seed, args.chunk)
        return 0
    if args.child:
        fn = child_bacc if args.child == "bacc" else child_pandas
        print(json.dumps(fn(str(args.data_dir))))
        return 0

    path = args.data_dir or HERE / "data" / f"scale_{args.rows}"
    data_root = HERE / "data"
    if path.resolve().is_relative_to(data_root.resolve()):
        data_root.mkdir(exist_ok=True)
        (data_root / ".gitignore").write_text("*\n")  # never commit generated data
    # generated in a child process: Linux carries a process's peak RSS across fork + exec
    # into ru_maxrss, so a parent grown by generating would inflate the children's figures
    # (a quick run's data are too small to matter)
    if args.quick:
        generate(path, args.rows, args.detectors, args.seed, args.chunk)
    else:
        subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--generate", "--rows", str(args.rows),
             "--detectors", str(args.detectors), "--seed", str(args.seed), "--chunk", str(args.chunk),
             "--data-dir", str(path)],
            check=True,
        )

    args.load = os.getloadavg()[0]
    results = {}
    for method in [m.strip() for m in args.methods.split(",") if m.strip()]:
        print(f"running {method} ...", file=sys.stderr)
        results[method] = r = run_child(method, path)
        print(f"  {method}: wall {r['wall_seconds']:.1f} s, counting {r['count_seconds']:.1f} s, "
              f"evaluating {r['evaluate_seconds']:.2f} s, peak RSS {_gib(r['peak_rss_bytes'])}",
              file=sys.stderr)
    if "bacc" in results and "pandas" in results:
        b, p = results["bacc"], results["pandas"]
        if b["counts"] != p["counts"]:
            raise SystemExit("the two methods counted differently")
        worst = float(np.max(np.abs(np.subtract(b["mean"], p["mean"]))))
        if worst > 1e-9:
            raise SystemExit(f"posterior means differ by {worst:.3g}")
    for r in results.values():
        if sum(sum(sum(row) for row in m) for m in r["counts"]) != args.rows:
            raise SystemExit("the counts do not add up to the number of rows")
    shown = ["python", "benchmarks/bench_scale.py", *(argv if argv is not None else sys.argv[1:])]
    text = report(args, path, results, " ".join(shown))
    print(text)
    if args.results:
        args.results.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
