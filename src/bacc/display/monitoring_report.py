"""The monitoring section of the HTML report (presentation only: no computation).

Rendered by :func:`bacc.display.report.render_report` for a
:class:`bacc.display.report.Section` with ``monitoring=`` (a :class:`bacc.Monitoring`): the
decision rule and its measured false-alarm rate, one row per detector with the detectors in
alarm first (a card per detector on a phone), then the timeline of the detectors in alarm
(:func:`bacc.display.plot.plot_timeline`) with their windows in a collapsible table.
"""

from __future__ import annotations

from collections.abc import Callable

from .html import escape as esc
from .html import table as html_table
from .monitoring_text import detector_name, detector_rows, monitoring_head, timeline_rows

__all__ = ["monitoring_html", "monitoring_table_html"]


def monitoring_html(m, figs: Callable[..., str], *, max_timelines: int = 12) -> str:
    """HTML of a :class:`bacc.Monitoring`: rule, detectors (in alarm first), timelines.

    Parameters
    ----------
    m : Monitoring
    figs : callable
        ``figs(make, caption, alt)`` renders a figure to ``<figure>`` HTML (the report's).
    max_timelines : int
        Most detectors drawn (those in alarm first; without alarms, those nearest to one).

    Returns
    -------
    str
    """
    from .plot import REPORT_WIDTH, plot_timeline

    out = [monitoring_table_html(m)]
    shown = list(m.alarms[:max_timelines])
    if not shown:
        out.append("<p>No window alarmed.</p>")
        shown = [r["detector"] for r in m.summary()[: min(max_timelines, 4)]]
    out.append("<h3>Timelines" + (" of the detectors in alarm" if m.alarms else "") + "</h3>")
    pics = []
    for d in shown:
        name = detector_name(d)
        pics.append(figs(
            lambda d=d: plot_timeline(m, d, width=REPORT_WIDTH),
            f"{name}: per {m.window} window the posterior mean (dots), credible interval (green), "
            "exact interval (pale), baseline (dashes) and alarms (red); below, P(worse than the "
            "baseline) with the alarm threshold.",
            f"timeline of {name}",
        ))  # fmt: skip
    out.append('<div class="figs">' + "".join(pics) + "</div>")
    for d in shown:
        th, tr = timeline_rows(m, d)
        out.append(f"<details><summary>{esc(detector_name(d))}: every window</summary>"
                   '<div class="scroll">' + html_table(th, tr, cls="cards", headline=(2, 6))
                   + "</div></details>")  # fmt: skip
    if len(m.alarms) > max_timelines:
        out.append(f'<p class="muted">Timelines are drawn for the first {max_timelines} of the '
                   f"{len(m.alarms)} detectors that alarmed.</p>")
    return "\n".join(out)


def monitoring_table_html(m) -> str:
    """The rule, its false-alarm rate and one row per detector (in alarm first), as HTML."""
    head = monitoring_head(m)
    out = [f"<p><b>{esc(head[0])}</b>.</p>",
           "<ul>" + "".join(f"<li>{esc(line)}</li>" for line in head[1:]) + "</ul>"]
    header, rows = detector_rows(m)
    states = [r[1] for r in rows]
    classes = [["", "bad" if s == "ALARM" else ("warn" if s == "alarmed" else "good"),
                *([""] * (len(header) - 2))] for s in states]  # fmt: skip
    tall = " tall" if len(rows) > 15 else ""
    sortable = " sortable" if len(rows) > 1 else ""
    out.append('<p class="muted">One row per detector, detectors in alarm in their latest window '
               "first, then those that alarmed before.</p>")
    out.append(f'<div class="scroll{tall}">'
               + html_table(header, rows, cls="cards" + sortable, headline=(1, 2), cell_class=classes,
                            numeric_from=2)
               + "</div>")  # fmt: skip
    return "\n".join(out)
