"""Anytime-valid intervals for one proportion: bacc against the peer libraries.

Data: ``--streams`` seeded streams of Bernoulli outcomes (1 = correct) for each true accuracy
p in {0.5, 0.9, 0.995}, 10,000 labels long, looked at after n in {10, 30, 100, 300, 1000, 3000,
10000} labels. Every method gets the same streams. Two-sided, 95 %.

* bacc: ``bacc.anytime.anytime_bounds`` on the running counts (``tuned_for=1000``), and the
  running intersection over every label, ``bacc.confidence_sequence(..., metric="accuracy")``
  with every true label in one class; and its betting sequence (hedged capital, no tuning),
  ``bacc.confidence_sequence(..., metric="accuracy", method="betting")``.
* confseq (PyPI): its conjugate (beta-binomial) mixture ``boundaries.bernoulli_confidence_
  interval`` with ``t_opt=1000``, the same construction as bacc's except that bacc floors the
  prior's parameters at 1/2; and its hedged-capital betting CS ``betting.hedged_cs`` (defaults:
  a grid of 1000 breaks, running intersection).
* expectation (PyPI): ``modules.boundaries.bernoulli_confidence_interval`` (a port of
  confseq's, the Bernoulli CS its sequential test of a proportion reports) with ``t_opt=1000``,
  and its ``EmpiricalBernsteinConfidenceSequence`` on [0, 1] (gamma-exponential boundary, c = 1,
  v_opt = 1000 p (1 - p) at the true p: an oracle tuning, in its favour).
* Clopper-Pearson at each n (fixed n, not anytime-valid; scipy): the reference of the ratios.

Ratios pair like with like: bacc's pointwise sequence against the pointwise peers, bacc's
running intersection against the hedged CS (which intersects), and bacc's betting sequence
against the hedged CS (the same bets; bacc rejects where the hedged capital
``theta K+ + (1 - theta) K-`` reaches 1/alpha, confseq where ``max(theta K+, (1 - theta) K-)``
does, which is smaller, and pads its grid of 1000 points by one step; bacc's ends contain the
set exactly). "bacc kind" is, at each n, the narrower on average of bacc's two kinds with the
running intersection (the mixture tuned for 1000, or betting): the kind a user picks, before
the data, for the size at which the result is read. A peer that raises at a look
(expectation does where every label so far is correct) gives no width there: its mean width and
the ratio are then taken over the streams where it answered (marked ``*``). "missed" is the share
of streams whose interval excluded the true p at one of the looks (NaN counts as no miss).

Times: seconds per stream (the fastest of 3 calls, median over ``--time-streams`` streams of
each p), for the bounds at the 7 looks and, where a method offers it, at every one of the
10,000 labels; ratio = peer / bacc of the same kind (pointwise, or every label with the
running intersection).

The peers run in their own virtual environments under ``--envs`` (default
``benchmarks/.peer-envs``, not in git), made on the first run from PyPI:

* confseq 0.0.11 is an sdist with a C++ extension that needs the Boost headers (Debian
  ``libboost-dev``; ``--apt`` installs it when missing) and pins pybind11 2.6, which does not
  build for Python 3.11: it is built without build isolation against a newer pybind11, with
  numpy < 2 (its Python code uses ``np.float_``);
* expectation 0.6.x needs Python >= 3.12 (found on PATH or under ~/.pyenv/versions, or given).

A peer that does not install is reported and left out; the others go on. The peers' widths
are deterministic and slow to get (the betting CS: seconds per stream), so they are kept under
``--envs``/widths, keyed by the streams, the runner, the environment and the tuning, and reused
by a later run of the same (``--fresh`` recomputes them); the times are measured in every run.

Run:  python benchmarks/bench_anytime_peers.py [--streams 200] [--jobs 2]
      python benchmarks/bench_anytime_peers.py --quick   (2 streams of 1 000 labels; makes no
                                                          environment)
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
from _peer_env import env_python, is_ready, make_env
from _timing import fastest, machine
from scipy import stats

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "_anytime_peers_run.py"
PS = (0.5, 0.9, 0.995)
LOOKS = np.array([10, 30, 100, 300, 1000, 3000, 10000])
CONFIDENCE = 0.95
RTOL = 1e-9
BOOST_HEADER = Path("/usr/include/boost/math/tools/roots.hpp")

PEER_ENVS = {
    "confseq": {
        "python": "3.11 (this interpreter)",
        # confseq's pyproject pins pybind11~=2.6.0 (no Python 3.11); build it against a newer one
        "steps": [
            ["setuptools<70", "wheel", "pybind11>=2.11", "scikit-build", "cmake", "ninja",
             "numpy<2", "pandas<3"],
            ["--no-build-isolation", "confseq==0.0.11", "numpy<2", "pandas<3"],
        ],
        "check": "import confseq.betting, confseq.boundaries",
    },
    "expectation": {
        "python": ">= 3.12",
        "steps": [["expectation==0.6.1"]],
        "check": "import expectation.confseq.confidencesequence, expectation.modules.boundaries",
    },
}


# ----------------------------------------------------------------------- environments
def python_312(given: str | None) -> str | None:
    """A Python >= 3.12: ``given``, else one on PATH, else one under ~/.pyenv/versions."""
    candidates = [given] if given else []
    candidates += [shutil.which(f"python3.{m}") for m in (12, 13, 14)]
    candidates += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[2-9]*/bin/python")))
    for c in candidates:
        if not c:
            continue
        try:
            ok = subprocess.run([c, "-c", "import sys; sys.exit(sys.version_info < (3, 12))"],
                                capture_output=True, timeout=60).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            ok = False
        if ok:
            return c
    return None


def ensure_env(envs: Path, peer: str, python: str, apt: bool,
               make: bool = True) -> tuple[str | None, str]:
    """The python of ``peer``'s virtual environment (made if missing and ``make``) and a note on
    how; None and the reason if it is not there or does not install."""
    spec = PEER_ENVS[peer]
    env = envs / peer
    py = env_python(env)
    if is_ready(env, python, spec["steps"]):
        return str(py), "reused"
    if not make:
        return None, f"no environment yet in {env} (a run without --quick makes it)"
    if peer == "confseq" and not BOOST_HEADER.exists():
        if apt and os.geteuid() == 0:
            subprocess.run(["apt-get", "install", "-y", "-qq", "libboost-dev"],
                           capture_output=True, timeout=600)
        if not BOOST_HEADER.exists():
            return None, ("the Boost headers are missing (Debian: apt-get install libboost-dev,"
                          " or run with --apt)")
    failed = make_env(env, python, python, spec["steps"], spec["check"])
    return (None, failed) if failed is not None else (str(py), "made")


def run_peer(py: str, peer: str, data: Path, out: Path, streams: int, jobs: int,
             time_streams: int, t_opt: float, repeat: int, cache: Path | None,
             key: str) -> dict | None:
    """Widths of the peer's methods (``jobs`` processes, each on a share of the streams; taken
    from ``cache`` when the same streams, runner, environment and tuning were run before: they
    are deterministic), then the times (always measured, one process alone). Returns
    {"versions", "cached", "methods": {method: {"lower", "upper", meta...}}} or None."""
    bounds = np.linspace(0, streams, jobs + 1).astype(int)
    procs, parts, cached = [], [], 0
    for j in range(jobs):
        part = out.with_name(f"{out.stem}-{j}.npz")
        kept = cache / f"{peer}-{key}-{bounds[j]}-{bounds[j + 1]}.npz" if cache else None
        if kept is not None and kept.exists():
            parts.append(kept)
            cached += 1
            continue
        parts.append(part)
        procs.append((kept, part, subprocess.Popen(
            [py, str(RUNNER), "--peer", peer, "--data", str(data), "--out", str(part),
             "--first", str(bounds[j]), "--last", str(bounds[j + 1]), "--t-opt", str(t_opt)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
    for kept, part, p in procs:
        _, err = p.communicate()
        if p.returncode != 0:
            print(f"  {peer}: the runner failed:\n{err[-2000:]}")
            return None
        if kept is not None:
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(part, kept)
    timing = out.with_name(f"{out.stem}-time.npz")
    r = subprocess.run(
        [py, str(RUNNER), "--peer", peer, "--data", str(data), "--out", str(timing),
         "--first", "0", "--last", str(time_streams), "--time-streams", str(time_streams),
         "--t-opt", str(t_opt), "--repeat", str(repeat)], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"  {peer}: the timing run failed:\n{r.stderr[-2000:]}")
        return None
    loaded = [np.load(part) for part in parts]
    meta_t = json.loads(str(np.load(timing)["meta"]))
    metas = [json.loads(str(d["meta"])) for d in loaded]
    result = {"versions": metas[0]["versions"], "cached": cached == jobs, "methods": {}}
    for name, m in meta_t["methods"].items():
        result["methods"][name] = {
            "lower": np.concatenate([d[f"{name}|lower"] for d in loaded], axis=1),
            "upper": np.concatenate([d[f"{name}|upper"] for d in loaded], axis=1),
            "failures": sum(mt["methods"][name]["failures"] for mt in metas),
            "first_failure": next((mt["methods"][name]["first_failure"] for mt in metas
                                   if mt["methods"][name]["first_failure"]), None),
            **{k: m[k] for k in ("call", "running_intersection", "seconds_at_looks",
                                 "seconds_every_label")},
        }
    return result


# -------------------------------------------------------------------------- bacc side
def bacc_side(x: np.ndarray, t_opt: float, time_streams: int, repeat: int) -> dict | None:
    """bacc's pointwise sequence at the looks and its running intersection over every label,
    with their times per stream; None while bacc has no anytime functions."""
    try:
        import bacc
        from bacc.anytime import anytime_bounds
    except ImportError as exc:
        print(f"bacc: no anytime-valid functions yet ({exc})")
        return None
    k = np.cumsum(x, axis=-1, dtype=np.int64)
    lo, up = anytime_bounds(k[..., LOOKS - 1], LOOKS, confidence=CONFIDENCE, sides="two",
                            tuned_for=t_opt)
    n_all = np.arange(1, x.shape[-1] + 1)

    def running(xs: np.ndarray):
        cs = bacc.confidence_sequence(np.ones(xs.size, dtype=np.int64), xs.astype(np.int64),
                                      confidence=CONFIDENCE, metric="accuracy", sides="two",
                                      tuned_for=t_opt, running_intersection=True)
        return np.asarray(cs.lower), np.asarray(cs.upper)

    def betting(xs: np.ndarray):
        cs = bacc.confidence_sequence(np.ones(xs.size, dtype=np.int64), xs.astype(np.int64),
                                      confidence=CONFIDENCE, metric="accuracy", sides="two",
                                      method="betting", running_intersection=True)
        return np.asarray(cs.lower), np.asarray(cs.upper)

    ri_lo, ri_up = np.empty_like(lo), np.empty_like(up)
    bet_lo, bet_up = np.empty_like(lo), np.empty_like(up)
    for i in range(x.shape[0]):
        for s in range(x.shape[1]):
            a, b = running(x[i, s])
            ri_lo[i, s], ri_up[i, s] = a[LOOKS - 1], b[LOOKS - 1]
            a, b = betting(x[i, s])
            bet_lo[i, s], bet_up[i, s] = a[LOOKS - 1], b[LOOKS - 1]
    t_looks, t_every, t_running, t_betting = [], [], [], []
    for i in range(x.shape[0]):
        for s in range(min(time_streams, x.shape[1])):
            ks = k[i, s]
            t_looks.append(fastest(lambda ks=ks: anytime_bounds(
                ks[LOOKS - 1], LOOKS, confidence=CONFIDENCE, tuned_for=t_opt), repeat)[0])
            t_every.append(fastest(lambda ks=ks: anytime_bounds(
                ks, n_all, confidence=CONFIDENCE, tuned_for=t_opt), repeat)[0])
            t_running.append(fastest(lambda xs=x[i, s]: running(xs), repeat)[0])
            t_betting.append(fastest(lambda xs=x[i, s]: betting(xs), repeat)[0])
    from importlib.metadata import version

    return {
        "version": version("bacc"),
        "bacc": {"lower": lo, "upper": up, "running_intersection": False,
                 "seconds_at_looks": t_looks, "seconds_every_label": t_every},
        "bacc running ∩": {"lower": ri_lo, "upper": ri_up, "running_intersection": True,
                           "seconds_at_looks": [], "seconds_every_label": t_running},
        "bacc betting": {"lower": bet_lo, "upper": bet_up, "running_intersection": True,
                         "seconds_at_looks": [], "seconds_every_label": t_betting},
    }


def clopper_pearson(k: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = (1 - CONFIDENCE) / 2
    with np.errstate(invalid="ignore"):
        lo = np.where(k > 0, stats.beta.ppf(a, k, n - k + 1), 0.0)
        up = np.where(k < n, stats.beta.ppf(1 - a, k + 1, n - k), 1.0)
    return lo, up


# ---------------------------------------------------------------------------- display
def median(v: list) -> float:
    return float(np.median(v)) if v else float("nan")


def fmt_s(v: float) -> str:
    return "-" if not np.isfinite(v) else (f"{v * 1e3:.3g} ms" if v < 1 else f"{v:.3g} s")


def report(methods: dict, x: np.ndarray, cp_width: np.ndarray, repeat: int) -> None:
    names = list(methods)
    peers = [m for m in names if not m.startswith("bacc")]
    width = {m: methods[m]["upper"] - methods[m]["lower"] for m in names}
    short = {"bacc": "bacc", "bacc running ∩": "bacc ∩", "bacc betting": "bacc bet",
             "confseq conjmix": "cs conjmix",
             "confseq hedged": "cs hedged", "expectation beta-binomial": "ex beta-bin",
             "expectation emp. Bernstein": "ex emp-Bern",
             "expectation emp-Bern t/4": "ex eB t/4"}
    short = {m: short.get(m, m[:12]) for m in names}

    def ours(m: str) -> str:
        return "bacc running ∩" if methods[m]["running_intersection"] else "bacc"

    # like with like: the pointwise sequences, the running intersections, and bacc's betting
    # sequence against the peer's betting sequence
    pairs = [(ours(m), m) for m in peers]
    if "bacc betting" in names:
        pairs += [("bacc betting", m) for m in peers if "hedged" in m]
    # and at each n, the narrower (on average) of bacc's two kinds, the mixture and betting,
    # both with the running intersection: which kind to use is chosen before the data by the
    # size at which the result will be read (see the guide)
    if "bacc betting" in names and "bacc running ∩" in names:
        a, b = width["bacc running ∩"], width["bacc betting"]
        pick = a.mean(axis=1, keepdims=True) <= b.mean(axis=1, keepdims=True)
        width["bacc kind"] = np.where(pick, a, b)
        short["bacc kind"] = "bacc kind"
        pairs += [("bacc kind", m) for m in peers]

    col = 13
    print("\n(* mean over the streams where the peer answered at that look; the ratio is then "
          "over the same streams)")
    for i, p in enumerate(PS):
        print(f"\np = {p}: mean width (two-sided 95 %) over {x.shape[1]} streams")
        print(f"{'n':>6}{'Clopper-P.':>{col}}" + "".join(f"{short[m]:>{col}} " for m in names))
        for j, n in enumerate(LOOKS):
            cells = []
            for m in names:
                w = width[m][i, :, j]
                mean = np.nanmean(w) if (~np.isnan(w)).any() else np.nan
                cells.append(f"{mean:>{col}.4g}{'*' if np.isnan(w).any() else ' '}")
            print(f"{n:>6}{cp_width[i, :, j].mean():>{col}.4g}" + "".join(cells))
        print(f"{'ratio':>6}{'bacc/CP':>{col}}{'bacc ∩/CP':>{col}} "
              + "".join(f"{short[o].replace(' ', '') + '/' + short[m]:>{col + 5}} "
                        for o, m in pairs))
        for j, n in enumerate(LOOKS):
            row = f"{n:>6}{width['bacc'][i, :, j].mean() / cp_width[i, :, j].mean():>{col}.4f}"
            row += f"{width['bacc running ∩'][i, :, j].mean() / cp_width[i, :, j].mean():>{col}.4f} "
            for o, m in pairs:
                w, b = width[m][i, :, j], width[o][i, :, j]
                ok = ~np.isnan(w)
                r = b[ok].mean() / w[ok].mean() if ok.any() else np.nan
                row += f"{r:>{col + 5}.4f}{'*' if not ok.all() else ' '}"
            print(row)

    print("\nbacc against each peer (like with like), over every p and n checked:"
          + ("" if peers else " no peer ran"))
    for b_name, m in pairs:
        wider, worst_stream, n_wider, n_pairs = [], 0.0, 0, 0
        for i, p in enumerate(PS):
            for j, n in enumerate(LOOKS):
                w, b = width[m][i, :, j], width[b_name][i, :, j]
                ok = ~np.isnan(w)
                if not ok.any():
                    continue
                r = b[ok].mean() / w[ok].mean()
                if r > 1 + RTOL:
                    wider.append(f"p={p} n={n} ({(r - 1) * 100:+.1f} %)")
                excess = b[ok] / w[ok] - 1
                n_wider += int((excess > RTOL).sum())
                n_pairs += int(ok.sum())
                worst_stream = max(worst_stream, float(excess.max()))
        label = f"  {b_name} vs {m}:"
        if not wider:
            print(f"{label} no wider at every n checked (mean widths, within {RTOL:g} relative)")
        else:
            print(f"{label} WIDER (mean width) at {len(wider)} of {len(PS) * len(LOOKS)}: "
                  + ", ".join(wider))
        print(f"{'':>4}single streams: wider in {n_wider} of {n_pairs} (stream, n) pairs, "
              f"by at most {worst_stream * 100:.2f} %")

    print("\nmissed: share of streams whose interval excluded the true p at one of the looks;"
          " peer failures (no answer at a look)")
    for m in names:
        lo, up = methods[m]["lower"], methods[m]["upper"]
        p = np.array(PS)[:, None, None]
        miss = ((lo > p) | (up < p)).any(axis=-1).mean(axis=1)
        fail = methods[m].get("failures", 0)
        note = f"; {fail} looks raised, e.g. {methods[m]['first_failure']}" if fail else ""
        print(f"  {m:<28}" + "  ".join(f"p={p}: {v:.3f}" for p, v in zip(PS, miss, strict=True))
              + note)

    print(f"\ntime per stream (fastest of {repeat}, median over the timed streams); ratio "
          "peer / bacc of the same kind")
    print(f"  {'method':<28}{f'at the {len(LOOKS)} looks':>16}{'ratio':>9}{'every label':>16}{'ratio':>9}")
    b_looks = median(methods["bacc"]["seconds_at_looks"])
    for m in names:
        t_l, t_e = median(methods[m]["seconds_at_looks"]), median(methods[m]["seconds_every_label"])
        if methods[m]["running_intersection"] and not m.startswith("bacc"):
            t_l, t_e = float("nan"), t_l  # the hedged CS computes every label in one call
        mine = "bacc betting" if "hedged" in m and "bacc betting" in methods else ours(m)
        b_every = median(methods[mine]["seconds_every_label"])
        r_l = t_l / b_looks if np.isfinite(t_l) else float("nan")
        r_e = t_e / b_every if np.isfinite(t_e) else float("nan")
        print(f"  {m:<28}{fmt_s(t_l):>16}{'' if np.isnan(r_l) else f'{r_l:.3g}':>9}"
              f"{fmt_s(t_e):>16}{'' if np.isnan(r_e) else f'{r_e:.3g}':>9}")


# ------------------------------------------------------------------------------- main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streams", type=int, default=200)
    ap.add_argument("--quick", action="store_true",
                    help="2 streams of 1 000 labels, 1 timed, 1 call; peers only if their "
                         "environments exist")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--t-opt", type=float, default=1000.0)
    ap.add_argument("--jobs", type=int, default=2, help="processes per peer for the widths")
    ap.add_argument("--time-streams", type=int, default=3, help="streams of each p timed")
    ap.add_argument("--envs", default=str(HERE / ".peer-envs"))
    ap.add_argument("--peers", default="confseq,expectation")
    ap.add_argument("--confseq-python", default=sys.executable)
    ap.add_argument("--expectation-python", default=None)
    ap.add_argument("--apt", action="store_true", help="apt-get install libboost-dev if missing")
    ap.add_argument("--fresh", action="store_true",
                    help="recompute the peers' widths even if kept from a run on the same streams")
    args = ap.parse_args()
    streams = 2 if args.quick else args.streams
    time_streams, repeat = (1, 1) if args.quick else (args.time_streams, 3)
    if args.quick:
        # a smoke test of every path: streams up to 1 000 labels
        global LOOKS
        LOOKS = LOOKS[LOOKS <= 1000]

    rng = np.random.default_rng(args.seed)
    x = (rng.random((len(PS), streams, int(LOOKS[-1]))) < np.array(PS)[:, None, None])
    x = x.astype(np.uint8)
    k = np.cumsum(x, axis=-1, dtype=np.int64)[..., LOOKS - 1]
    cp_lo, cp_up = clopper_pearson(k, np.broadcast_to(LOOKS, k.shape))

    print(machine("numpy", "scipy"))
    print(f"{streams} streams of each p in {PS}, seed {args.seed}, looks at n = "
          f"{', '.join(map(str, LOOKS))}; tuned for {args.t_opt:g} labels")
    methods: dict = {}
    ours = bacc_side(x, args.t_opt, time_streams, repeat)
    if ours is not None:
        print(f"bacc {ours.pop('version')}: anytime_bounds(k, n, confidence=0.95, sides='two', "
              f"tuned_for={args.t_opt:g}); confidence_sequence(..., metric='accuracy', "
              "running_intersection=True); bacc betting: confidence_sequence(..., "
              "metric='accuracy', method='betting')")
        methods.update(ours)

    envs = Path(args.envs)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "streams.npz"
        np.savez(data, x=x, ps=np.array(PS), looks=LOOKS)
        for peer in [p for p in args.peers.split(",") if p]:
            python = args.confseq_python if peer == "confseq" else python_312(
                args.expectation_python)
            if python is None:
                print(f"{peer}: not installed (no Python >= 3.12 found; give "
                      "--expectation-python)")
                continue
            py, how = ensure_env(envs, peer, python, args.apt, make=not args.quick)
            if py is None:
                print(f"{peer}: not installed: {how}")
                continue
            key = hashlib.sha256(x.tobytes() + LOOKS.tobytes() + RUNNER.read_bytes() + (
                envs / peer / ".ready").read_bytes() + f"{PS}|{args.t_opt!r}".encode()).hexdigest()
            res = run_peer(py, peer, data, Path(tmp) / f"{peer}.npz", streams,
                           max(1, min(args.jobs, streams)), time_streams, args.t_opt, repeat,
                           None if args.fresh or args.quick else envs / "widths", key[:16])
            if res is None:
                continue
            v = res["versions"]
            print(f"{peer} {v[peer]} (environment {how}: python {v['python']}, numpy "
                  f"{v['numpy']}, scipy {v['scipy']}"
                  + ("; widths kept from an earlier run on the same streams, times measured now)"
                     if res["cached"] else ")"))
            for name, m in res["methods"].items():
                print(f"  {name}: {m['call']}")
                methods[name] = m

    if "bacc" not in methods:
        print("\nwithout bacc: the peers' mean widths")
        for i, p in enumerate(PS):
            print(f"p = {p}  n: {' '.join(f'{n:>8}' for n in LOOKS)}")
            print(f"  {'Clopper-Pearson':<27}"
                  + " ".join(f"{w:>8.4f}" for w in (cp_up - cp_lo)[i].mean(axis=0)))
            for name, m in methods.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)  # a look where all raised
                    w = np.nanmean(m["upper"][i] - m["lower"][i], axis=0)
                print(f"  {name:<27}" + " ".join(f"{v:>8.4f}" for v in w))
        return
    report(methods, x, cp_up - cp_lo, repeat)


if __name__ == "__main__":
    main()
