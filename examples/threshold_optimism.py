"""How optimistic is the balanced accuracy at a threshold chosen on the test set?

Simulates many test sets of 40 positives and 160 negatives with binormal scores (negatives
N(0, 1), positives N(mu, 1), true AUC 0.8). On each, the threshold that maximises the sample
balanced accuracy is chosen, as one would read it off the curve, and three numbers are kept:

* the balanced accuracy of that threshold on the same test set (what is usually reported);
* its true balanced accuracy, exact from the binormal model;
* the honest, cross-fitted estimate of ``best_threshold(criterion="sample")``.

Run it with ``python examples/threshold_optimism.py`` (about 15 seconds).
"""

import math

import numpy as np
from scipy import stats

import bacc

N_SETS = 2_000
N_POS, N_NEG = 40, 160
AUC = 0.8
MU = math.sqrt(2.0) * stats.norm.ppf(AUC)  # binormal shift giving the AUC


def true_balanced_accuracy(t: float) -> float:
    """Balanced accuracy of ``score >= t`` in the binormal population."""
    sensitivity = stats.norm.sf(t - MU)
    specificity = stats.norm.cdf(t)
    return 0.5 * (sensitivity + specificity)


def main() -> None:
    rng = np.random.default_rng(2024)
    y = np.repeat([0, 1], [N_NEG, N_POS])
    in_sample, truth, honest = np.empty(N_SETS), np.empty(N_SETS), np.empty(N_SETS)
    for i in range(N_SETS):
        s = np.concatenate([rng.normal(0.0, 1.0, N_NEG), rng.normal(MU, 1.0, N_POS)])
        best = bacc.scores(y, s).best_threshold(criterion="sample", random_state=i)
        in_sample[i] = best.in_sample_balanced_accuracy
        truth[i] = true_balanced_accuracy(best.threshold)
        honest[i] = best.honest_balanced_accuracy

    def line(name: str, x: np.ndarray) -> str:
        se = x.std(ddof=1) / math.sqrt(x.size)
        return f"{name:<38} {x.mean():.4f} (+- {se:.4f})"

    print(f"{N_SETS} test sets of {N_POS} positives and {N_NEG} negatives, "
          f"binormal scores, true AUC {AUC}")
    print(f"best possible balanced accuracy        {stats.norm.cdf(MU / 2):.4f}")
    print(line("in-sample, at the chosen threshold", in_sample))
    print(line("true, at the chosen threshold", truth))
    print(line("honest (cross-fitted) estimate", honest))
    print(f"optimism of the in-sample number       {(in_sample - truth).mean():+.4f}")


if __name__ == "__main__":
    main()
