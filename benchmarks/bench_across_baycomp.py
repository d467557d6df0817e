"""Across data sets: bacc.compare_across beside baycomp's SignedRankTest and HierarchicalTest.

Both tools answer "is A better than B across these data sets?" with three probabilities for a
region of practical equivalence (rope 0.01 of balanced accuracy): B better, equivalent, A
better. They are not the same numbers:

* bacc (``compare_across``, paired: the label sequences with ``groups=``): the posterior
  probabilities that the population difference ``delta`` is below ``-rope``, within, above
  (``p_left, p_rope, p_right``); beside them the same for the difference on a new data set
  (``predictive_*``). Every data set enters with its exact posterior mean and covariance of
  the two balanced accuracies, so its weight grows with its examples.
* baycomp ``SignedRankTest`` (Benavoli et al. 2014) on the per-data-set balanced accuracies
  (plain numpy here): a Dirichlet process over the data sets' differences, each data set one
  observation whatever its size; ``HierarchicalTest`` (Corani et al. 2017, Stan) on the
  fold-level balanced accuracies. Both return the share of their posterior samples in which
  each region is the most probable one (``Posterior.probs``: argmax of the three), and
  HierarchicalTest's regions are of the difference on the next data set.
* baycomp's ``probs(x, y)`` puts first "x better" (it takes ``y - x``): it is called with
  ``x`` = B's scores and ``y`` = A's, so that every column reads (B better, rope, A better)
  for both tools. bacc's ``probs`` is ``(p_left, p_rope, p_right)`` = (B better, rope,
  A better).

Cases: (a) the shipped ``across_cv_predictions.csv`` (12 data sets, 40-3 000 examples, four
classifiers, 5-fold cross-validated predictions): every pair; (b) 10 data sets of 1 000
examples, one of 20 and one of 20 000 (two classes, exact counts, random order, 5 stratified
folds; B right on 80 % of each class, A on 80 % plus the data set's difference), the small and
the big data set at difference 0; then the small one's difference moved to -0.30, and instead
the big one's (the same differences in both: the signed-rank test's answer is the same); (c)
30 data sets of 5 000 examples each, differences drawn about +0.03 (sd 0.015) and about
+0.015 (sd 0.01): equal sizes, many data sets.

baycomp runs in its own virtual environment (``--envs``, default ``benchmarks/.peer-envs``,
not in git), made on the first run from PyPI: baycomp 1.0.3 with pystan 3 (httpstan ships
prebuilt wheels; Stan compiles the model with the machine's g++ on first use, about a minute).
If pystan does not install, the environment is made with baycomp alone and HierarchicalTest is
reported missing. This file is also the runner in that environment (``--runner``: only numpy
and baycomp are imported there). HierarchicalTest writes ``last-sample.pickle`` into the
working directory and takes no seed for Stan: it runs in a fresh temporary directory, and its
probabilities vary from run to run by their Monte Carlo error (``--chains`` x ``--samples``
draws). SignedRankTest: 50 000 samples, ``random_state=0``.

Run:  python benchmarks/bench_across_baycomp.py [--quick]

``--quick``: only the first pair of case (a), no HierarchicalTest, and no environment made
(baycomp's side is left out when it is not there yet).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROPE = 0.01
FOLDS = 5
PEER = {
    "full": {"steps": [["baycomp==1.0.3", "pystan>=3.4,<4"]], "check": "import baycomp, stan"},
    "no-stan": {"steps": [["baycomp==1.0.3"]], "check": "import baycomp"},
}


# ----------------------------------------------------------------------- the environment
def ensure_env(envs: Path, make: bool = True) -> tuple[str | None, bool, str]:
    """The python of baycomp's environment, whether Stan is there, and a note: baycomp with
    pystan, else baycomp alone (each made if missing and ``make``)."""
    from _peer_env import env_python, is_ready, make_env

    notes = []
    version = sys.version.split()[0]
    for kind in ("full", "no-stan"):
        spec = PEER[kind]
        env = envs / ("baycomp" if kind == "full" else "baycomp-no-stan")
        py = env_python(env)
        if is_ready(env, version, spec["steps"]):
            return str(py), kind == "full", "; ".join([*notes, f"{env.name}: reused"])
        if not make:
            notes.append(f"no environment yet in {env}")
            continue
        failed = make_env(env, sys.executable, version, spec["steps"], spec["check"])
        if failed is None:
            return str(py), kind == "full", "; ".join([*notes, f"{env.name}: made"])
        notes.append(f"{env.name} {failed}")
    return None, False, "; ".join(notes)


# ------------------------------------------------------------------- runner (baycomp's env)
def runner(inp: str, out: str) -> None:
    """Run in baycomp's environment: SignedRankTest and HierarchicalTest on every case."""
    import baycomp
    from _timing import Stopwatch

    spec = json.loads(Path(inp).read_text())
    try:
        import stan  # noqa: F401

        has_stan = True
    except ImportError:
        has_stan = False
    results = {"baycomp": baycomp.__version__ if hasattr(baycomp, "__version__") else "1.0.3",
               "stan": has_stan, "cases": []}
    try:
        import importlib.metadata as md

        results["baycomp"] = md.version("baycomp")
        results["pystan"] = md.version("pystan") if has_stan else None
    except Exception:  # noqa: BLE001 - versions are informative only
        pass
    for case in spec["cases"]:
        x, y = np.asarray(case["x"]), np.asarray(case["y"])
        with Stopwatch() as sw:
            srt = baycomp.SignedRankTest.probs(x, y, rope=ROPE, nsamples=50000, random_state=0)
        row = {"srt": [float(v) for v in srt], "srt_s": sw.wall}
        if has_stan and spec["hierarchical"]:
            fx, fy = np.asarray(case["fx"], dtype=float), np.asarray(case["fy"], dtype=float)
            cwd = os.getcwd()
            tmp = tempfile.mkdtemp()
            try:
                os.chdir(tmp)
                with Stopwatch() as sw:
                    ht = baycomp.HierarchicalTest.probs(fx, fy, rope=ROPE, runs=1,
                                                        chains=spec["chains"],
                                                        nsamples=spec["samples"], random_state=0)
                row["ht"] = [float(v) for v in ht]
                row["ht_s"] = sw.wall
            except Exception as exc:  # noqa: BLE001 - reported, the other cases go on
                row["ht_error"] = f"{type(exc).__name__}: {exc}"[:300]
            finally:
                os.chdir(cwd)
                shutil.rmtree(tmp, ignore_errors=True)
        results["cases"].append(row)
    Path(out).write_text(json.dumps(results))


# ---------------------------------------------------------------------------- the inputs
def balanced_accuracy(y: np.ndarray, pred: np.ndarray) -> float:
    """Mean over the classes present in ``y`` of the share predicted right."""
    classes = np.unique(y)
    return float(np.mean([np.mean(pred[y == c] == c) for c in classes]))


def scores(y, pred, groups, folds, sets):
    """Per-data-set balanced accuracies (m,) and per-fold ones (m, FOLDS)."""
    per = np.array([balanced_accuracy(y[groups == d], pred[groups == d]) for d in sets])
    fold = np.array([[balanced_accuracy(y[(groups == d) & (folds == f)],
                                        pred[(groups == d) & (folds == f)])
                      for f in range(FOLDS)] for d in sets])
    return per, fold


def shipped():
    """The shipped predictions as columns of strings (fold as int)."""
    import csv

    path = Path(__file__).resolve().parents[1] / "src" / "bacc" / "data" / "across_cv_predictions.csv"
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    cols = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    cols["fold"] = cols["fold"].astype(int)
    names = [c for c in rows[0] if c not in ("dataset", "example", "fold", "true")]
    return cols, names


def exact_set(name, n_per_class, acc_a, acc_b, rng):
    """Two classes of ``n_per_class`` examples; A and B right on exactly round(acc * n) of
    each class, in random order; stratified folds."""
    ys, pa, pb, fo = [], [], [], []
    for c in (0, 1):
        y = np.full(n_per_class, c)
        ra = np.zeros(n_per_class, bool)
        ra[: int(round(acc_a * n_per_class))] = True
        rb = np.zeros(n_per_class, bool)
        rb[: int(round(acc_b * n_per_class))] = True
        ra, rb = rng.permutation(ra), rng.permutation(rb)
        ys.append(y)
        pa.append(np.where(ra, c, 1 - c))
        pb.append(np.where(rb, c, 1 - c))
        fo.append(rng.permutation(np.arange(n_per_class) % FOLDS))
    n = 2 * n_per_class
    return (np.concatenate(ys), np.concatenate(pa), np.concatenate(pb), np.concatenate(fo),
            np.full(n, name))


def constructed(sets_spec, seed):
    """Label sequences of data sets ``[(name, n_per_class, acc_A, acc_B)]``."""
    rng = np.random.default_rng(seed)
    parts = [exact_set(nm, n, a, b, rng) for nm, n, a, b in sets_spec]
    y, pa, pb, fo, g = (np.concatenate([p[i] for p in parts]) for i in range(5))
    return y, {"A": pa, "B": pb}, g, fo, [s[0] for s in sets_spec]


OTHERS = (0.04, 0.03, 0.025, 0.02, 0.015, 0.01, 0.005, 0.0, -0.01, -0.02)
B_ACC = 0.80


SHIFT = -0.30


def case_b(small_d: float, big_d: float):
    spec = [(f"o{j}", 500, B_ACC + d, B_ACC) for j, d in enumerate(OTHERS)]
    spec += [("small_n20", 10, B_ACC + small_d, B_ACC), ("big_n20000", 10000, B_ACC + big_d, B_ACC)]
    return constructed(spec, seed=7)


def case_c(mean: float, sd: float):
    rng = np.random.default_rng(11)
    d = rng.normal(mean, sd, 30)
    spec = [(f"e{j:02d}", 2500, B_ACC + float(v), B_ACC) for j, v in enumerate(d)]
    return constructed(spec, seed=12)


# ------------------------------------------------------------------------------ the runs
def bacc_three(y, preds, groups):
    import bacc

    r = bacc.compare_across(y, preds, groups=groups, rope=ROPE)
    return r, (r.p_left, r.p_rope, r.p_right), (r.predictive_left, r.predictive_rope,
                                                r.predictive_right)


def fmt3(p) -> str:
    return " ".join(f"{v:5.3f}" for v in p) if p is not None else "   (not run)    "


def weight_ratio(r, small: str, other: str) -> float:
    """How much ``small`` weighs against ``other`` in the population mean at the posterior
    mean spread: (sd_other^2 + spread^2) / (sd_small^2 + spread^2)."""
    sd = {x.data_set: x.sd for x in r.data_set_differences}
    s2 = r.spread**2
    return (sd[other] ** 2 + s2) / (sd[small] ** 2 + s2)


def explain(label: str, r, pop, srt) -> str:
    """One sentence per case from the numbers (the mechanisms are in the module docstring)."""
    gap = max(abs(a - b) for a, b in zip(pop, srt, strict=True))
    if label.startswith("(b) base"):
        return (f"bacc and the signed-rank test agree within {gap:.3f}: the base case, every "
                "difference small and the small and the big data set at 0")
    if label.startswith("(b) small moved"):
        sd = {x.data_set: x.sd for x in r.data_set_differences}
        return (f"the 20-example data set moved from 0 to {SHIFT:+.2f}: bacc barely moves (its "
                f"difference has posterior sd {sd['small_n20']:.3f}, so it weighs "
                f"{weight_ratio(r, 'small_n20', 'o0'):.2f} of a 1 000-example data set), the "
                "signed-rank test moves as it would for any data set")
    if label.startswith("(b) big moved"):
        return (f"the 20 000-example data set moved by the same {SHIFT:+.2f}: bacc moves a lot "
                "(the big data set is sure of its difference, so the spread between data sets "
                f"grows to {r.spread:.3f} and the mean moves to {r.mean:+.3f}), the signed-rank "
                "test gives exactly its answer for the small one (the same differences, one "
                "observation each)")
    if label.startswith("(c)"):
        return (f"agree within {gap:.3f}: equal sizes give every data set the same weight in "
                "both, and with 30 data sets both posteriors are narrow")
    d = {x.data_set: x for x in r.data_set_differences}
    far = max(d.values(), key=lambda x: abs(x.sample_difference))
    below = sum(x.sample_difference < -ROPE for x in d.values())
    above = sum(x.sample_difference > ROPE for x in d.values())
    if gap <= 0.1:
        return (f"agree within {gap:.3f}: {max(below, above)} of {len(d)} data sets lean the same "
                "way by more than the rope, so weighing them by their examples or counting each "
                "once gives the same verdict")
    return (f"differ by up to {gap:.3f}: the data sets are split ({below} below -rope, {above} "
            f"above +rope) and {far.data_set} ({far.n_examples} examples) is far out at "
            f"{far.sample_difference:+.3f}; bacc's population mean is wide (spread between data "
            f"sets {r.spread:.3f}) and it puts {pop[1]:.2f} on the rope, while the signed-rank "
            "test reports the share of its posterior in which each region is the most probable "
            "(the rope is rarely the most probable of the three)")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true",
                    help="one pair of (a), no HierarchicalTest, no environment made")
    ap.add_argument("--envs", type=Path, default=HERE / ".peer-envs")
    ap.add_argument("--chains", type=int, default=None)
    ap.add_argument("--samples", type=int, default=None)
    ap.add_argument("--runner", nargs=2, metavar=("IN", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.runner:
        runner(*args.runner)
        return
    from _timing import Stopwatch, machine

    chains = args.chains or 4
    samples = args.samples or 10000
    print(machine("numpy", "scipy", "bacc"))
    py, has_stan, note = ensure_env(args.envs, make=not args.quick)
    print(f"baycomp environment: {note}")

    cases = []  # (label, y, preds {A, B}, groups, folds, sets)
    df, names = shipped()
    sets = sorted(np.unique(df["dataset"]).tolist())
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    for a, b in pairs[:1] if args.quick else pairs:
        cases.append((f"(a) {a} vs {b}", df["true"], {"A": df[a], "B": df[b]},
                      df["dataset"], df["fold"], sets))
    for label, (sd, bd) in (("(b) base", (0.0, 0.0)), ("(b) small moved", (SHIFT, 0.0)),
                            ("(b) big moved", (0.0, SHIFT))):
        y, preds, g, fo, st = case_b(sd, bd)
        cases.append((label, y, preds, g, fo, st))
    for mean, sd in ((0.03, 0.015), (0.015, 0.01)):
        y, preds, g, fo, st = case_c(mean, sd)
        cases.append((f"(c) 30 x 5000, diff ~N({mean:g}, {sd:g})", y, preds, g, fo, st))

    spec = {"chains": chains, "samples": samples, "hierarchical": not args.quick, "cases": []}
    ours = []
    for _label, y, preds, g, fo, st in cases:
        with Stopwatch() as sw:
            r, pop, pred = bacc_three(y, preds, g)
        secs = sw.wall
        pa, fa = scores(y, preds["A"], g, fo, st)
        pb, fb = scores(y, preds["B"], g, fo, st)
        ours.append((r, pop, pred, secs, pa - pb))
        # baycomp: x = B, y = A, so that its first probability is "B better", as bacc's p_left;
        # the data sets sorted by difference (the signed-rank posterior does not depend on their
        # order; sorted, equal differences give the same draws whatever data set they come from)
        o = np.argsort(pa - pb, kind="stable")
        spec["cases"].append({"x": pb[o].tolist(), "y": pa[o].tolist(), "fx": fb.tolist(),
                              "fy": fa.tolist()})
    if py is None:
        print("baycomp is not there: bacc's side only")
        theirs = {"cases": [{"srt": None, "srt_s": float("nan")} for _ in cases]}
    else:
        with tempfile.TemporaryDirectory() as tmp:
            inp, out = Path(tmp) / "in.json", Path(tmp) / "out.json"
            inp.write_text(json.dumps(spec))
            with Stopwatch() as sw:
                proc = subprocess.run([py, str(Path(__file__).resolve()), "--runner", str(inp),
                                       str(out)], capture_output=True, text=True, cwd=tmp)
            if proc.returncode != 0:
                print("baycomp's runner failed:\n" + proc.stderr[-3000:])
                return
            theirs = json.loads(out.read_text())
        ht = ("available" if theirs["stan"] else "NOT available (pystan did not install)")
        if args.quick:
            ht += ", not run (--quick)"
        else:
            ht += f", {chains} chains x {samples} draws (Stan's own seed: varies between runs)"
        print(f"baycomp {theirs.get('baycomp')}, pystan {theirs.get('pystan')}: SignedRankTest "
              f"50 000 samples, random_state=0; HierarchicalTest {ht}; baycomp's process "
              f"{sw.wall:.1f} s (with Stan's model compilation when not cached)")
    print(f"rope {ROPE}; every triple is (B better, rope, A better); bacc's time is of one call "
          "(the first includes imports)")
    print()
    head = (f"{'case':<40}{'bacc population':>18}{'bacc new data set':>20}"
            f"{'baycomp signed-rank':>22}{'baycomp hierarchical':>22}")
    print(head)
    for (label, *_), (_, pop, pred, _, _), th in zip(cases, ours, theirs["cases"], strict=True):
        ht = th.get("ht")
        print(f"{label:<40}{fmt3(pop):>18}{fmt3(pred):>20}{fmt3(th['srt']):>22}{fmt3(ht):>22}")
    print()
    for (label, *_), (r, pop, _, secs, d), th in zip(cases, ours, theirs["cases"], strict=True):
        extra = f"; HierarchicalTest: {th['ht_error']}" if "ht_error" in th else ""
        if th["srt"] is not None:
            print(f"{label}: {explain(label, r, pop, th['srt'])}{extra}")
        else:
            print(f"{label}:")
        print(f"    differences A - B per data set: min {d.min():+.3f}, median {np.median(d):+.3f},"
              f" max {d.max():+.3f}; bacc mean {r.mean:+.4f} [{r.lower:+.4f}, {r.upper:+.4f}], "
              f"spread {r.spread:.4f}; times: bacc {secs * 1000:.0f} ms, signed-rank "
              f"{th['srt_s']:.2f} s" + (f", hierarchical {th['ht_s']:.1f} s" if "ht_s" in th else ""))
    srt_total = sum(th["srt_s"] for th in theirs["cases"])
    bacc_total = sum(o[3] for o in ours)
    print(f"time over the {len(cases)} cases: bacc {bacc_total:.2f} s, signed-rank "
          f"{srt_total:.2f} s, ratio signed-rank / bacc {srt_total / bacc_total:.2f}" + (
              f"; hierarchical {sum(th['ht_s'] for th in theirs['cases']):.1f} s, ratio "
              f"{sum(th['ht_s'] for th in theirs['cases']) / bacc_total:.1f}"
              if all("ht_s" in th for th in theirs["cases"]) else ""))


if __name__ == "__main__":
    main()
