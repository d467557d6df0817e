"""Terminal text of the label-planning results (:class:`bacc.planning.LabelPlan`,
:class:`bacc.planning.NextLabel`)."""

from __future__ import annotations

from . import numbers as fmt
from .text import WIDTH, align, wrap

__all__ = ["next_label_text", "plan_text", "sequential_plan_text"]


def _goal(plan) -> str:
    pct = fmt.percent(plan.confidence)
    if plan.goal == "lower":
        which = "one-sided lower bound" if plan.sides == "lower" else "interval's lower end"
        return f"exact {pct} {which} of the balanced accuracy > {plan.target:g}"
    return f"exact {pct} interval of the balanced accuracy at most {plan.target:g} wide"


def _assurance(p: float, se: float) -> str:
    if p != p:  # nan
        return "-"
    return f"{p:.4f}" + (f" +- {se:.4f}" if se > 0 else "")


def plan_text(plan) -> str:
    """Terminal text of a :class:`bacc.planning.LabelPlan`.

    Parameters
    ----------
    plan : LabelPlan

    Returns
    -------
    str
        The goal, the labels so far, the plan per class with its assurance (and one label
        fewer), the budget's assurance, and the one-sentence verdict.
    """
    design = ("stratified (the class of each label is chosen)" if plan.design == "stratified"
              else "labels arrive in the mix " + ", ".join(f"{x:g}" for x in plan.mix))
    how = ("exact sums over the outcomes" if plan.method == "exact"
           else f"simulation of {plan.n_sim:,} labelling outcomes (+- Monte Carlo error)")
    lines = [
        *wrap(f"Label plan: {_goal(plan)}, with probability >= {plan.required_assurance:g}"),
        *wrap(f"  design: {design}; design prior: {plan.prior}; {how}"),
        f"  now: {plan.current_value:.4f}; with unlimited labels the goal is met with "
        f"probability {plan.limit_assurance:.4f}",
        "",
    ]
    head = ["class", "correct", "labels", "more labels", "one fewer"]
    if plan.budget is not None:
        head.append(f"budget {plan.budget:,}")
    rows = []
    for i, lab in enumerate(plan.class_labels):
        row = [str(lab), str(plan.correct[i]), str(plan.support[i])]
        row.append(_alloc(plan.per_class, i, plan.design))
        row.append(_alloc(plan.one_fewer_per_class, i, plan.design))
        if plan.budget is not None:
            row.append(_alloc(plan.budget_per_class, i, plan.design))
        rows.append(row)
    total = ["total", str(sum(plan.correct)), str(sum(plan.support)),
             "-" if plan.labels is None else f"{plan.labels:,}",
             "-" if plan.labels in (None, 0) else f"{plan.labels - 1:,}"]
    p_row = ["P(goal met)", "", "", _assurance(plan.assurance, plan.mc_se),
             _assurance(plan.assurance_one_fewer, plan.mc_se)]
    if plan.budget is not None:
        total.append(f"{plan.budget:,}")
        p_row.append(_assurance(plan.budget_assurance, plan.mc_se))
    rows += [total, p_row]
    lines += ["  " + x for x in align(head, rows, width=WIDTH - 2)]
    if plan.design == "mix":
        lines.append("  (per class: expected numbers; class sizes vary with the mix)")
    lines.append("")
    lines += wrap(plan.message, indent="")
    if plan.budget is not None and plan.labels is not None and plan.labels > plan.budget:
        lines += wrap(f"The budget of {plan.budget:,} labels falls short: it meets the goal with "
                      f"probability {plan.budget_assurance:.4f}.", indent="")
    return "\n".join(lines)


def _alloc(values, i: int, design: str) -> str:
    if not values:
        return "-"
    v = values[i]
    return f"{v:,.0f}" if design == "stratified" else f"{v:,.1f}"


def next_label_text(nl) -> str:
    """Terminal text of a :class:`bacc.planning.NextLabel`.

    Parameters
    ----------
    nl : NextLabel

    Returns
    -------
    str
        The class to label next, then per class the predictive probability of a correct
        answer and the expected exact width and lower bound after one more example of it.
    """
    pct = fmt.percent(nl.confidence)
    kind = "anytime-valid" if getattr(nl, "interval", "exact") == "anytime" else "exact"
    which = {"width": f"smallest expected width of the {kind} interval",
             "lower": f"largest expected {kind} lower bound",
             "clear": f"largest probability that the {kind} lower bound clears {nl.target}"}
    what = (f"class {nl.best}" if nl.by == "true"
            else f"an example predicted as class {nl.best}")
    lines = [*wrap(f"Label next: {what} ({which[nl.criterion]})"),
             f"  now: {kind} {pct} interval width {nl.current_width:.4f}, lower bound "
             f"{nl.current_lower:.4f} ({'one-sided' if nl.sides == 'lower' else 'two-sided'})",
             *wrap(f"  design prior: {nl.prior}"), ""]
    if nl.by == "true":
        head = ["class", "correct", "labels", "P(correct)", "E[width] after", "E[lower] after"]
    else:
        head = ["predicted as", "P(truly it)", "E[width] after", "E[lower] after"]
    if nl.target is not None:
        head.append(f"P(lower > {nl.target:g})")
    rows = []
    for c in nl.classes:
        row = ([str(c.label), str(c.correct), str(c.support)] if nl.by == "true"
               else [str(c.label)])
        row += [f"{c.p_correct:.4f}", f"{c.expected_width:.4f}", f"{c.expected_lower:.4f}"]
        if nl.target is not None:
            row.append(f"{c.p_clear:.4f}")
        rows.append(row)
    lines += ["  " + x for x in align(head, rows, width=WIDTH - 2)]
    return "\n".join(lines)


def sequential_plan_text(plan) -> str:
    """Terminal text of a :class:`bacc.sequential.SequentialPlan`.

    Parameters
    ----------
    plan : SequentialPlan

    Returns
    -------
    str
    """
    pct = fmt.percent(plan.confidence)
    which = "one-sided lower bound" if plan.sides == "lower" else "two-sided sequence's lower end"
    design = ("stratified: each label to the class with the fewest" if plan.design == "stratified"
              else "labels arrive in the mix " + ", ".join(f"{m:g}" for m in plan.mix))
    lines = [
        *wrap(f"Sequential plan: label until the anytime-valid {pct} {which} of the balanced "
              f"accuracy > {plan.target:g} (valid whenever it stops)"),
        *wrap(f"design: {plan.prior}; {design}; tuned for "
              + ", ".join(f"{t:g}" for t in plan.tuned_for) + " examples per class"),
        f"simulated streams: {plan.n_simulations}, at most {plan.max_labels} further labels",
        "",
    ]

    def count(v):
        return f"> {plan.max_labels} (beyond the cap)" if v is None else str(v)

    rows = [
        ["P(clears within the cap)", _assurance(plan.p_clear, plan.mc_se)],
        ["median labels", count(plan.median_labels)],
        ["90th percentile", count(plan.p90_labels)],
        ["mean labels when it clears",
         "-" if plan.mean_labels is None else fmt.number(plan.mean_labels, 1)],
        ["mean labels spent (with the cap)", fmt.number(plan.expected_labels_capped, 1)],
    ]
    if plan.fixed_labels is not None:
        rows.append([f"fixed-size plan (assurance {plan.fixed_assurance:.2f})",
                     str(plan.fixed_labels)])
        rows.append(["P(sequential done within that)", _assurance(plan.p_within_fixed, 0.0)])
    else:
        rows.append(["fixed-size plan", "cannot reach the goal within the cap"])
    if plan.p_false_clear is not None:
        rows.append(["P(clears | balanced accuracy <= goal)", f"{plan.p_false_clear:.4f}"])
    lines += align(["", "value"], rows)
    lines += ["", *wrap(plan.message, WIDTH)]
    return "\n".join(lines)
