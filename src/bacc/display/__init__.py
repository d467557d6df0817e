"""Presentation of bacc's results: the one place where numbers become text, HTML and pictures.

:mod:`bacc.display.numbers` formats every number, :func:`bacc.display.text.align` lays out every
terminal table and :func:`bacc.display.html.table` every HTML table; :mod:`bacc.display.text` and
:mod:`bacc.display.html` render each result type, :mod:`bacc.display.plot` draws them (matplotlib)
and :mod:`bacc.display.report` writes the HTML report. Nothing here computes a statistic; the
result types import these modules only when they are printed or shown.
"""
