"""Plain-text and HTML tables of results (presentation only: no computation)."""

from __future__ import annotations

import html

import numpy as np


def _f(x, digits=4) -> str:
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return "-"
    return f"{x:.{digits}f}"


def _p(x) -> str:
    if x >= 0.9999:
        return "> 0.9999"
    if x <= 1e-4:
        return "< 0.0001"
    return f"{x:.4f}"


def evaluation_rows(ev):
    """Header and rows of the summary table (shared by the text and HTML forms)."""
    pct = f"{ev.confidence * 100:g}% interval"
    header = ["", "sample", "mean", "median", "mode", pct]
    rows = []
    for name, sample, s in (
        ("balanced accuracy", ev.sample_balanced_accuracy, ev.balanced_accuracy_summary),
        ("accuracy", ev.sample_accuracy, ev.accuracy_summary),
    ):
        rows.append([name, _f(sample), _f(s.mean), _f(s.median), _f(s.mode), f"[{_f(s.lower)}, {_f(s.upper)}]"])
    class_header = ["class", "correct / n", "sample", "mean", pct]
    class_rows = []
    for c in ev.classes:
        mark = "" if c.included else " (not in balanced accuracy)"
        class_rows.append(
            [
                f"{c.label}{mark}",
                f"{c.correct} / {c.support}",
                _f(c.sample_accuracy),
                _f(c.summary.mean),
                f"[{_f(c.summary.lower)}, {_f(c.summary.upper)}]",
            ]
        )
    return header, rows, class_header, class_rows


def _align(header, rows) -> list[str]:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    out = []
    for r in [header, *rows]:
        cells = [str(r[0]).ljust(widths[0])] + [str(v).rjust(widths[i]) for i, v in enumerate(r) if i]
        out.append("  ".join(cells).rstrip())
    return out


def evaluation_table(ev) -> str:
    """Readable terminal table of an :class:`~bacc.evaluation.Evaluation`."""
    cm = ev.confusion
    header, rows, ch, crows = evaluation_rows(ev)
    lines = [
        f"{cm.n_classes} classes, {cm.total} examples (posterior under a Beta prior; "
        f"{ev.confidence * 100:g}% central credible intervals)",
        "",
        *_align(header, rows),
        "",
        f"P(balanced accuracy > chance {ev.chance:.4g}) = {_p(ev.p_above_chance)}",
        "",
        "per class (accuracy = recall):",
        *("  " + line for line in _align(ch, crows)),
    ]
    return "\n".join(lines)


def _html_table(header, rows) -> str:
    th = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in r) + "</tr>" for r in rows
    )
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def evaluation_html(ev) -> str:
    """HTML fragment for notebooks (every string escaped)."""
    header, rows, ch, crows = evaluation_rows(ev)
    cm = ev.confusion
    return (
        f"<div><p>{cm.n_classes} classes, {cm.total} examples</p>"
        + _html_table(header, rows)
        + f"<p>P(balanced accuracy &gt; chance {ev.chance:.4g}) = {html.escape(_p(ev.p_above_chance))}</p>"
        + _html_table(ch, crows)
        + "</div>"
    )
