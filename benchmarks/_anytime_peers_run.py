"""Runs inside a peer's own virtual environment (``bench_anytime_peers.py`` makes them): the
two-sided 95 % confidence sequences of one peer library on the streams the benchmark wrote.

Nothing from bacc is imported here (the peer environments do not have it); only the shared
timer ``_timing`` (standard library only) beside this file, found because the directory of a
script run as ``python path/to/script.py`` is on its import path.

Usage (the benchmark calls it):

    PEER_PYTHON _anytime_peers_run.py --peer confseq --data streams.npz --out widths.npz \
        [--first 0 --last 200] [--time-streams 3] [--repeat 3] [--t-opt 1000]

``streams.npz`` holds ``x`` (uint8, shape (len(ps), streams, length): 1 = correct), ``ps`` and
``looks`` (sample sizes, 1-based). The output holds, for every method of the peer, ``lower`` and
``upper`` of shape (len(ps), last - first, len(looks)), and a JSON ``meta`` string with the
versions, the calls made and the times (seconds per stream).
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings

import numpy as np
from _timing import fastest  # beside this script, which is on the path when run as a script

ALPHA = 0.05
FAILURES: dict[str, list] = {}


def each_look(name: str, fn, k: np.ndarray, looks: np.ndarray):
    """``fn(k, n)`` at every look; a look where it raises gives NaN, and the error is recorded
    under ``name`` (the count and the first message are reported)."""
    lo, up = np.full(looks.size, np.nan), np.full(looks.size, np.nan)
    for i, (kk, n) in enumerate(zip(k, looks, strict=True)):
        try:
            lo[i], up[i] = fn(int(kk), int(n))
        except Exception as exc:  # noqa: BLE001 - the benchmark reports what a peer raises
            FAILURES.setdefault(name, []).append(f"k={kk}, n={n}: {type(exc).__name__}: {exc}")
    return lo, up


# --------------------------------------------------------------------------------- confseq
def confseq_methods(t_opt: float) -> dict:
    """confseq's conjugate (beta-binomial) mixture for a Bernoulli mean, evaluated at the looks,
    and its hedged-capital betting CS (Waudby-Smith & Ramdas), which the library and the paper
    recommend for bounded means: defaults kept (grid of 1000 breaks, running intersection)."""
    from confseq.betting import hedged_cs
    from confseq.boundaries import bernoulli_confidence_interval

    def conjmix(x: np.ndarray, looks: np.ndarray, p: float):
        k = np.cumsum(x, dtype=np.int64)[looks - 1]
        return each_look("confseq conjmix", lambda kk, n: bernoulli_confidence_interval(
            float(kk), n, ALPHA, t_opt, ALPHA), k, looks)

    def conjmix_every(x: np.ndarray):
        k = np.cumsum(x, dtype=np.int64)
        for n in range(1, x.size + 1):
            bernoulli_confidence_interval(float(k[n - 1]), n, ALPHA, t_opt, ALPHA)

    def hedged(x: np.ndarray, looks: np.ndarray, p: float):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # overflow of a capital process
            lo, up = hedged_cs(x.astype(float), alpha=ALPHA)
        return lo[looks - 1], up[looks - 1]

    return {
        "confseq conjmix": dict(
            at_looks=conjmix, every=conjmix_every,
            call=f"confseq.boundaries.bernoulli_confidence_interval(k, n, alpha=0.05, "
                 f"t_opt={t_opt:g}, alpha_opt=0.05)",
            running_intersection=False),
        "confseq hedged": dict(
            at_looks=hedged, every=None,  # computes every label anyway
            call="confseq.betting.hedged_cs(x, alpha=0.05) (defaults: breaks=1000, "
                 "running_intersection=True)",
            running_intersection=True),
    }


# ----------------------------------------------------------------------------- expectation
def expectation_methods(t_opt: float) -> dict:
    """expectation's Bernoulli CS (``modules.boundaries.bernoulli_confidence_interval``, a port
    of confseq's; what its sequential test of a proportion reports with the beta-binomial
    boundary), and its empirical-Bernstein confidence sequence class on [0, 1] (gamma-
    exponential boundary, intrinsic time n times the sample variance) in two tunings: at the
    intrinsic time of ``t_opt`` examples under the true p (an oracle choice no user can make,
    in its favour), and at ``t_opt / 4``, the intrinsic time of ``t_opt`` examples at the
    largest variance, 1/4 (the tuning the beta-binomial mixtures use, knowing nothing of p)."""
    from expectation.confseq.confidenceconfig import EmpiricalBernsteinConfig
    from expectation.confseq.confidencesequence import EmpiricalBernsteinConfidenceSequence
    from expectation.modules.boundaries import bernoulli_confidence_interval

    def beta_binomial(x: np.ndarray, looks: np.ndarray, p: float):
        k = np.cumsum(x, dtype=np.int64)[looks - 1]
        return each_look("expectation beta-binomial", lambda kk, n: bernoulli_confidence_interval(
            kk, n, ALPHA, t_opt, ALPHA), k, looks)

    def bernstein(x: np.ndarray, looks: np.ndarray, p: float, oracle: bool = True,
                  name: str = "expectation emp. Bernstein"):
        # the state is sums and a Welford sum of squares whose batch update is exact, so feeding
        # the labels between two looks at once gives the state of feeding them one by one
        v_opt = max(t_opt * p * (1 - p), 1e-3) if oracle else t_opt / 4.0
        config = EmpiricalBernsteinConfig(alpha=ALPHA, alpha_opt=ALPHA, lower_bound=0.0,
                                          upper_bound=1.0, c=1.0, v_opt=v_opt)
        cs = EmpiricalBernsteinConfidenceSequence(config=config)
        lo, up = np.full(looks.size, np.nan), np.full(looks.size, np.nan)
        start, xf = 0, x.astype(float)
        for i, n in enumerate(looks):
            try:
                r = cs.update(xf[start:n])
            except Exception as exc:  # noqa: BLE001 - its state is left as it was: the labels
                # not taken are fed again with the next look's
                FAILURES.setdefault(name, []).append(
                    f"k={int(xf[:n].sum())}, n={n}: {type(exc).__name__}: {exc}")
                continue
            start = n
            lo[i], up[i] = r.lower, r.upper
        return lo, up

    return {
        "expectation beta-binomial": dict(
            at_looks=beta_binomial, every=None,
            call=f"expectation.modules.boundaries.bernoulli_confidence_interval(k, n, 0.05, "
                 f"t_opt={t_opt:g})",
            running_intersection=False),
        "expectation emp. Bernstein": dict(
            at_looks=bernstein, every=None,
            call="expectation.confseq.EmpiricalBernsteinConfidenceSequence(EmpiricalBernstein"
                 f"Config(alpha=0.05, lower_bound=0, upper_bound=1, c=1, v_opt={t_opt:g}"
                 "*p*(1-p))).update(labels since the last look)",
            running_intersection=False),
        "expectation emp-Bern t/4": dict(
            at_looks=lambda x, looks, p: bernstein(x, looks, p, oracle=False,
                                                   name="expectation emp-Bern t/4"),
            every=None,
            call=f"the same with v_opt={t_opt / 4.0:g} (= {t_opt:g} / 4: the mixtures' "
                 "tuning, no knowledge of p)",
            running_intersection=False),
    }


PEERS = {"confseq": confseq_methods, "expectation": expectation_methods}


def versions(peer: str) -> dict:
    from importlib.metadata import version

    out = {"python": sys.version.split()[0]}
    for name in (peer, "numpy", "scipy"):
        try:
            out[name] = version(name)
        except Exception:  # noqa: BLE001 - a missing version is shown as "-"
            out[name] = "-"
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--peer", choices=sorted(PEERS), required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--last", type=int, default=None)
    ap.add_argument("--time-streams", type=int, default=0,
                    help="streams per p (from --first on) to time each method on")
    ap.add_argument("--t-opt", type=float, default=1000.0)
    ap.add_argument("--repeat", type=int, default=3, help="calls timed (the fastest is kept)")
    args = ap.parse_args()

    data = np.load(args.data)
    x, ps, looks = data["x"], data["ps"], data["looks"].astype(np.int64)
    last = x.shape[1] if args.last is None else args.last
    methods = PEERS[args.peer](args.t_opt)
    out: dict[str, np.ndarray] = {}
    meta: dict = {"versions": versions(args.peer), "methods": {}}
    for name, m in methods.items():
        lo = np.empty((len(ps), last - args.first, len(looks)))
        up = np.empty_like(lo)
        for i, p in enumerate(ps):
            for j, s in enumerate(range(args.first, last)):
                lo[i, j], up[i, j] = m["at_looks"](x[i, s], looks, float(p))
        out[f"{name}|lower"], out[f"{name}|upper"] = lo, up
        failures = list(FAILURES.get(name, []))
        times_looks, times_every = [], []
        for i, p in enumerate(ps):
            for s in range(args.first, min(last, args.first + args.time_streams)):
                xs = x[i, s]
                wall, _ = fastest(lambda xs=xs, p=p, f=m["at_looks"]: f(xs, looks, float(p)),
                                  repeat=args.repeat)
                times_looks.append(wall)
                if m["every"] is not None:
                    wall, _ = fastest(lambda xs=xs, f=m["every"]: f(xs), repeat=1)
                    times_every.append(wall)
        meta["methods"][name] = {
            "call": m["call"], "running_intersection": m["running_intersection"],
            "seconds_at_looks": times_looks, "seconds_every_label": times_every,
            "failures": len(failures), "first_failure": failures[0] if failures else None,
        }
    np.savez(args.out, meta=np.array(json.dumps(meta)), **out)


if __name__ == "__main__":
    main()
