"""Text tables of the comparisons and rankings across data sets (:mod:`bacc.across`)."""

from __future__ import annotations

__all__ = ["across_comparison_table", "across_ranking_table"]


def _p(x: float) -> str:
    return f"{x:.3f}"


def across_comparison_table(c) -> str:
    """The population comparison, the new data set, the common effect and each data set."""
    a, b = c.names
    lvl = f"{c.confidence:.0%}"
    lines = [
        f"{a} vs {b} across {len(c.data_sets)} data sets"
        f" ({'paired: the same examples' if c.paired else 'independent test sets'}; rope ±{c.rope:g})",
        "",
        f"{'':28}{'mean':>9}  {lvl + ' interval':>20}  {'P(' + b + ')':>10} {'P(rope)':>8} {'P(' + a + ')':>10}",
        f"{'population difference':28}{c.mean:+9.4f}  [{c.lower:+.4f}, {c.upper:+.4f}]  "
        f"{_p(c.p_left):>10} {_p(c.p_rope):>8} {_p(c.p_right):>10}",
        f"{'on a new data set':28}{c.predictive.mean():+9.4f}  "
        f"[{c.predictive.ppf((1 - c.confidence) / 2):+.4f}, {c.predictive.ppf((1 + c.confidence) / 2):+.4f}]  "
        f"{_p(c.predictive_left):>10} {_p(c.predictive_rope):>8} {_p(c.predictive_right):>10}",
        f"{'common effect (tau = 0)':28}{c.fixed_effects['mean']:+9.4f}  {'sd ' + format(c.fixed_effects['sd'], '.4f'):>20}  "
        f"{_p(c.fixed_effects['p_left']):>10} {_p(c.fixed_effects['p_rope']):>8} {_p(c.fixed_effects['p_right']):>10}",
        f"spread of the difference between data sets: {c.spread:.4f} [{c.spread_lower:.4f}, {c.spread_upper:.4f}]",
        "",
        f"{'data set':24}{'examples':>9}{'sample':>9}{'own':>9}{'sd':>8}{'shrunken':>10}  {'interval':>20}{'P(' + a + ')':>10}",
    ]
    for d in c.data_set_differences:
        lines.append(f"{str(d.data_set)[:23]:24}{d.n_examples:>9}{d.sample_difference:+9.4f}{d.mean:+9.4f}"
                     f"{d.sd:8.4f}{d.shrunken_mean:+10.4f}  [{d.shrunken_lower:+.4f}, {d.shrunken_upper:+.4f}]"
                     f"{d.p_better:10.3f}")
    t = c.classical
    lines += ["", f"classical (Demšar 2006, on sample balanced accuracies): Wilcoxon signed-rank "
                  f"p = {t.p_value:.4g}; {a} wins {t.wins[0][1]}, {b} wins {t.wins[1][0]}",
              "", c.verdict]
    lines += [f"note: {n}" for n in c.notes]
    return "\n".join(lines)


def across_ranking_table(r) -> str:
    """The population ranking, with the classical Friedman/Nemenyi output beside it."""
    t = r.classical
    w = max(12, max(len(n) for n in r.names) + 2)
    lines = [
        f"{len(r.names)} classifiers ranked across {len(r.data_sets)} data sets"
        f" ({'paired' if r.paired else 'independent test sets'}; rope ±{r.rope:g})",
        "",
        f"{'classifier':{w}}{'E[rank]':>8}{'P(best)':>9}{'effect':>9}  {f'{r.confidence:.0%} interval':>20}"
        f"{'mean BA':>9}{'avg rank':>9}",
    ]
    for i in r.order:
        lines.append(f"{r.names[i]:{w}}{r.expected_rank[i]:8.2f}{r.p_best[i]:9.3f}{r.effect[i]:+9.4f}  "
                     f"[{r.effect_lower[i]:+.4f}, {r.effect_upper[i]:+.4f}]"
                     f"{r.mean_sample_balanced_accuracy[i]:9.4f}{t.average_ranks[i]:9.2f}")
    lines += ["", "P(row better than column by more than the rope):"]
    order = list(r.order)
    lines.append(" " * w + "".join(f"{r.names[j][:9]:>10}" for j in order))
    for i in order:
        lines.append(f"{r.names[i]:{w}}" + "".join(
            f"{'':>10}" if i == j else f"{r.p_greater[i, j]:10.3f}" for j in order))
    if r.groups:
        lines += ["", "cannot be told apart: " + "; ".join("{" + ", ".join(g) + "}" for g in r.groups)]
    lines += ["", f"spread (tau): {r.spread:.4f} [{r.spread_lower:.4f}, {r.spread_upper:.4f}]",
              f"classical (Demšar 2006, on sample balanced accuracies): Friedman chi2 = "
              f"{t.statistic:.3f}, p = {t.p_value:.4g}; Nemenyi critical difference "
              f"{t.critical_difference:.3f} at alpha {t.alpha:g}",
              f"P(best) from {r.n_draws} draws (Monte Carlo error ≤ {r.mc_error:.4f})", "", r.verdict]
    lines += [f"note: {n}" for n in r.notes]
    return "\n".join(lines)
