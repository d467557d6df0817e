"""Text tables of the comparisons and rankings across data sets (:mod:`bacc.across`).

Presentation only: every number is an attribute of the result (or a method of its
distribution objects). The tables fit 80 columns: the classifiers are named once, as ``A`` and
``B`` (a comparison) or ``#1``, ``#2``, ... (the grid of a ranking), so long names never widen
a column; a data set or classifier name too long for its row goes on a line of its own
(:func:`bacc.display.text.align`). The rows are shared with the HTML report
(:mod:`bacc.display.across_report`).
"""

from __future__ import annotations

from . import numbers as fmt
from .text import align, wrap

__all__ = [
    "TEXT_WIDTH",
    "across_comparison_table",
    "across_ranking_table",
    "comparison_head",
    "comparison_rows",
    "data_set_rows",
    "ranking_head",
    "ranking_rows",
    "ranking_grid_rows",
    "ranking_classical",
    "comparison_classical",
]

#: Width of the across tables: an 80-column terminal.
TEXT_WIDTH = 80


def _signed(x: float) -> str:
    return f"{float(x):+.4f}"


def _signed_interval(lo: float, hi: float) -> str:
    return f"[{float(lo):+.4f}, {float(hi):+.4f}]"


# ----------------------------------------------------------------------------------- compare
def comparison_head(c) -> list[str]:
    """The title line, the names of A and B, and what was assumed."""
    a, b = c.names
    how = "paired: the same examples" if c.paired else "independent test sets"
    return [f"A vs B across {len(c.data_sets)} data sets ({how}; rope ±{c.rope:g})",
            f"A = {a}", f"B = {b}"]


def comparison_rows(c) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the population, new-data-set and common-effect answers."""
    lvl = fmt.percent(c.confidence)
    header = ["A - B", "mean", f"{lvl} interval", "P(B better)", "P(rope)", "P(A better)"]
    plo, phi = c.predictive.interval(c.confidence)
    f = c.fixed_effects
    rows = [
        ["population", _signed(c.mean), _signed_interval(c.lower, c.upper),
         fmt.number(c.p_left, 3), fmt.number(c.p_rope, 3), fmt.number(c.p_right, 3)],
        ["new data set", _signed(c.predictive.mean()), _signed_interval(plo, phi),
         fmt.number(c.predictive_left, 3), fmt.number(c.predictive_rope, 3),
         fmt.number(c.predictive_right, 3)],
        ["common effect", _signed(f["mean"]), f"sd {f['sd']:.4f}", fmt.number(f["p_left"], 3),
         fmt.number(f["p_rope"], 3), fmt.number(f["p_right"], 3)],
    ]  # fmt: skip
    return header, rows


def data_set_rows(c, *, sd: bool = True) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the data sets: own difference (this data set alone, with its
    posterior sd unless ``sd`` is false) and shrunken (under the model), with P(A better on
    this data set)."""
    header = ["data set", "n", "own", *(["own sd"] if sd else []), "shrunken",
              f"{fmt.percent(c.confidence)} interval", "P(A>B)"]
    rows = [[str(d.data_set), str(d.n_examples), _signed(d.mean),
             *([f"{d.sd:.4f}"] if sd else []), _signed(d.shrunken_mean),
             _signed_interval(d.shrunken_lower, d.shrunken_upper), fmt.number(d.p_better, 3)]
            for d in c.data_set_differences]
    return header, rows


def comparison_classical(c) -> str:
    """The classical line (Demšar 2006): Wilcoxon's signed-rank test and the wins."""
    t = c.classical
    return (f"classical (Demšar 2006, on sample balanced accuracies): Wilcoxon signed-rank "
            f"p = {fmt.significant(t.p_value)}; A wins on {t.wins[0][1]} data sets, B on "
            f"{t.wins[1][0]}")


def across_comparison_table(c) -> str:
    """The population comparison, the new data set, the common effect and each data set, in
    80 columns."""
    w = TEXT_WIDTH
    lines = [*(x for line in comparison_head(c) for x in wrap(line, w)), ""]
    lines += align(*comparison_rows(c), width=w)
    lines += wrap("population: the difference in the population of data sets; new data set: "
                  "the difference on one more data set like these; common effect: every data "
                  "set assumed to have the same difference (tau = 0)", w)
    lines += wrap(f"spread of the difference between data sets: {c.spread:.4f} "
                  f"{fmt.interval(c.spread_lower, c.spread_upper)}", w)
    lines += ["", *wrap("per data set (own: this data set alone; shrunken: under the model):", w)]
    lines += align(*data_set_rows(c, sd=False), width=w)
    lines += ["", *wrap(comparison_classical(c), w), "", *wrap(c.verdict, w)]
    lines += [x for n in c.notes for x in wrap(f"note: {n}", w)]
    return "\n".join(lines)


# ----------------------------------------------------------------------------------- ranking
def ranking_head(r) -> str:
    """The title line of a ranking."""
    how = "paired" if r.paired else "independent test sets"
    return (f"{len(r.names)} classifiers ranked across {len(r.data_sets)} data sets ({how}; "
            f"rope ±{r.rope:g})")


def ranking_rows(r, *, mean: bool = True) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the ranking, best expected rank first (``mean``: with the mean of
    the sample balanced accuracies)."""
    t = r.classical
    header = ["classifier", "E[rank]", "P(best)", "effect", f"{fmt.percent(r.confidence)} interval",
              *(["mean BA"] if mean else []), "avg rank"]
    rows = [[str(r.names[i]), f"{r.expected_rank[i]:.2f}", fmt.number(r.p_best[i], 3),
             _signed(r.effect[i]), _signed_interval(r.effect_lower[i], r.effect_upper[i]),
             *([fmt.number(r.mean_sample_balanced_accuracy[i])] if mean else []),
             f"{t.average_ranks[i]:.2f}"]
            for i in r.order]
    return header, rows


def ranking_grid_rows(r) -> tuple[list[str], list[list[str]]]:
    """Header and rows of P(row better than column by more than the rope), the classifiers
    numbered as in the ranking (``#1`` best)."""
    order = [int(i) for i in r.order]
    header = ["P(row > column + rope)", *(f"#{k + 1}" for k in range(len(order)))]
    rows = [[f"#{k + 1} {r.names[i]}",
             *("-" if i == j else fmt.number(r.p_greater[i, j], 3) for j in order)]
            for k, i in enumerate(order)]
    return header, rows


def ranking_classical(r) -> str:
    """The classical line (Demšar 2006): Friedman's test and Nemenyi's critical difference."""
    t = r.classical
    if t.critical_difference is None:  # two classifiers: Wilcoxon's signed-rank test
        return (f"classical (Demšar 2006, on sample balanced accuracies): Wilcoxon signed-rank "
                f"p = {fmt.significant(t.p_value)}")
    return (f"classical (Demšar 2006, on sample balanced accuracies): Friedman chi2 = "
            f"{t.statistic:.3f}, p = {fmt.significant(t.p_value)}; Nemenyi critical difference "
            f"of average ranks {t.critical_difference:.3f} at alpha {t.alpha:g}")


def across_ranking_table(r) -> str:
    """The population ranking, with the classical Friedman/Nemenyi output beside it, in 80
    columns."""
    w = TEXT_WIDTH
    lines = [*wrap(ranking_head(r), w), ""]
    lines += align(*ranking_rows(r, mean=False), width=w)
    lines += wrap("E[rank]: expected rank in the population (1 = best); effect: balanced "
                  "accuracy relative to the classifiers' average; avg rank: the average rank "
                  "of the sample balanced accuracies (classical)", w)
    lines += ["", *align(*ranking_grid_rows(r), width=w)]
    if r.groups:
        lines += ["", *wrap("cannot be told apart: " + "; ".join(
            "{" + ", ".join(g) + "}" for g in r.groups), w)]
    lines += ["", *wrap(f"spread (tau): {r.spread:.4f} "
                        f"{fmt.interval(r.spread_lower, r.spread_upper)}", w),
              *wrap(ranking_classical(r), w),
              *wrap(f"P(best) from {r.n_draws} draws (Monte Carlo error ≤ "
                    f"{fmt.mc_error(r.mc_error)})", w),
              "", *wrap(r.verdict, w)]
    lines += [x for n in r.notes for x in wrap(f"note: {n}", w)]
    return "\n".join(lines)
