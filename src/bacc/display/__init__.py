"""Presentation of bacc's results: the one place where numbers become text, HTML and pictures.

Nothing here computes a statistic; the result types import these modules only when they are
printed or shown. The modules:

* :mod:`.numbers`: the one number formatter of every text, HTML page, figure and report.
* :mod:`.terminal`: the terminal's width and text made safe to show on it (no numpy: the
  command line's parser uses it).
* :mod:`.text`: plain-text tables of each result type for a terminal
  (:func:`bacc.display.text.align` lays out every terminal table).
* :mod:`.html`: HTML fragments of each result type for notebooks and the report
  (:func:`bacc.display.html.table` lays out every HTML table, every string escaped).
* :mod:`.plot`: pictures of the results (matplotlib, an optional extra).
* :mod:`.report`: the self-contained HTML report (tables, intervals, pictures).
* :mod:`.planning_text`: terminal text of label plans and of the next class to label.
* :mod:`.monitoring_text`: terminal text of a monitoring result.
* :mod:`.monitoring_report`: the monitoring section of the HTML report.
* :mod:`.across_text`, :mod:`.across_plot`, :mod:`.across_report`: the comparisons and rankings
  across data sets as terminal tables, figures and the report's section.
* :mod:`.scores_text`, :mod:`.scores_html`, :mod:`.scores_plot`, :mod:`.scores_report`: scores
  and thresholds (threshold curves, best and guaranteed thresholds, ROC, AUC) as terminal
  tables, HTML for notebooks, figures and the report's section.
* :mod:`.files`: where a file is written: a regular file replaced atomically, a pipe or
  terminal written directly, or standard output (``-``).
"""
