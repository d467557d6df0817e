"""What ``bacc`` prints is safe to look at and to open, and whole.

Labels and group names may hold terminal escape sequences, bidirectional overrides, new lines,
spreadsheet formulas or HTML: every output format (tables, CSV, JSON, the HTML report and its
pictures) shows them without running them, and CSV keeps numbers as numbers. A metric that is
undefined on one group leaves an empty cell and a note naming the metric, the group and the
reason; the rest of the output is written and the exit status is 0.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bacc.cli import main
from bacc.cli.output import safe_cell

ESC = "\x1b[31mred"
RLO = "ab\u202ecd"
NEWLINE = "two\nlines"
BELL = "title\x07\x1b]0;owned\x07"
HOSTILE = [ESC, RLO, NEWLINE, "=1+1", "+cmd|calc", "@SUM(A1)", "-1+2", "\tTAB", "\rCR",
           "<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "-0.5", "-3"]
#: The class labels read from them (the readers trim white space around a label).
LABELS = [x.strip() for x in HOSTILE]
#: The characters a safe output may hold outside printable text: new lines, tabs, and the
#: no-break spaces that keep an interval of a figure's title on one line (harmless spaces that
#: Python does not call printable).
ALLOWED = {"\n", "\t", "\u00a0", "\u202f"}


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, MPLBACKEND="Agg")
    return subprocess.run([sys.executable, "-m", "bacc", *args], capture_output=True, text=True,
                          env=env, timeout=120, check=False, cwd=cwd)


def raw_controls(text: str) -> set[str]:
    """Control and format characters of ``text`` other than new lines and tabs."""
    return {c for c in text if not c.isprintable() and c not in ALLOWED}


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """Predictions whose labels and group names are hostile strings (a CSV, quoted)."""
    path = tmp_path / "hostile.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["group", "y", "p"])
        for i, label in enumerate(HOSTILE):
            other = HOSTILE[(i + 1) % len(HOSTILE)]
            for group in ("=HYPERLINK(\"http://x\")", ESC):
                w.writerow([group, label, label])
                w.writerow([group, label, other])
    return path


# ----------------------------------------------------------------------------------------------
# CSV
@pytest.mark.parametrize(("cell", "shown"), [
    ("=1+1", "'=1+1"), ("+cmd|calc", "'+cmd|calc"), ("@SUM(A1)", "'@SUM(A1)"),
    ("-1+2", "'-1+2"), ("\tTAB", "'\tTAB"), ("\rCR", "'\\rCR"), ("-", "'-"),
    ("-0.5", "-0.5"), ("-3", "-3"), ("+4", "+4"), ("-1e-05", "-1e-05"), (".5", ".5"),
    (ESC, "\\x1b[31mred"), (RLO, "ab\\u202ecd"), (NEWLINE, "two\\nlines"),
    ("plain text", "plain text"), ("caf\u00e9", "caf\u00e9"),
])
def test_safe_cell(cell, shown):
    assert safe_cell(cell) == shown


def test_csv_output_holds_no_control_character_and_no_formula(hostile, capsys):
    assert main(["evaluate", str(hostile), "--true", "y", "--pred", "p", "--by", "group",
                 "--format", "csv"]) == 0
    text = capsys.readouterr().out
    assert raw_controls(text) == set()
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][:3] == ["name", "measure", "class"]
    classes = {r[2] for r in rows[1:] if r[1] == "class_accuracy"}
    assert classes == {"\\x1b[31mred", "ab\\u202ecd", "two\\nlines", "'=1+1", "'+cmd|calc",
                       "'@SUM(A1)", "'-1+2", "TAB", "CR", "<script>alert(1)</script>",
                       '"><img src=x onerror=alert(1)>', "-0.5", "-3"}
    names = {r[0] for r in rows[1:]}
    assert all(not n.startswith(("=", "+", "@", "\t", "\r")) for n in names), names
    assert any(n.startswith("'=HYPERLINK") for n in names)
    assert any("\\x1b[31mred" in n for n in names)
    # the numbers stay numbers: every numeric column parses
    for r in rows[1:]:
        assert 0.0 <= float(r[5]) <= 1.0 and 0.0 <= float(r[6]) <= 1.0


def test_csv_of_many_groups_is_safe(tmp_path, capsys):
    path = tmp_path / "many.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["g", "y", "p"])
        for g in range(14):  # more than 12 groups: one batch evaluation
            name = f"=cmd{g}" if g % 2 else f"{ESC}{g}"
            w.writerows([[name, "a", "a"], [name, "b", "b"], [name, "a", "b"]])
    assert main(["evaluate", str(path), "--true", "y", "--pred", "p", "--by", "g",
                 "--format", "csv"]) == 0
    text = capsys.readouterr().out
    assert raw_controls(text) == set()
    names = [r[0] for r in csv.reader(io.StringIO(text))][1:]
    assert len(names) == 14
    assert sum(n.startswith("'=cmd") for n in names) == 7
    assert sum(n.startswith("\\x1b[31mred") for n in names) == 7


# ----------------------------------------------------------------------------------------------
# tables and JSON
def test_tables_show_every_hostile_label_escaped(hostile, capsys):
    assert main(["evaluate", str(hostile), "--true", "y", "--pred", "p", "--details"]) == 0
    text = capsys.readouterr().out
    assert raw_controls(text) == set() and "\r" not in text
    assert "\\x1b[31mred" in text and "ab\\u202ecd" in text and "two\\nlines" in text
    assert "\nlines" not in text  # a label with a new line stays on its row
    for line in text.splitlines():
        if "1 / 4" in line or "2 / 4" in line:  # the class rows: their columns line up
            assert line.index(" / 4") == text.splitlines()[-1].index(" / 4"), line


def test_json_keeps_the_labels_exactly_and_escaped(hostile, capsys):
    assert main(["evaluate", str(hostile), "--true", "y", "--pred", "p", "--format",
                 "json"]) == 0
    text = capsys.readouterr().out
    assert raw_controls(text) == set()
    d = json.loads(text)
    assert sorted(d["confusion_matrix"]["labels"]) == sorted(LABELS)


# ----------------------------------------------------------------------------------------------
# HTML
def test_the_report_escapes_every_hostile_string(hostile, tmp_path, capsys):
    out = tmp_path / "r.html"
    assert main(["report", str(hostile), "--true", "y", "--pred", "p", "--no-pictures",
                 "--title", f"{BELL} <b>bold</b>", "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert raw_controls(page) == set() and "\r" not in page
    assert "<script>alert(1)" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" in page
    assert "<b>bold</b>" not in page and "&lt;b&gt;bold&lt;/b&gt;" in page
    assert "\\x1b[31mred" in page and "ab\\u202ecd" in page and "title\\x07\\x1b]0;owned" in page
    assert capsys.readouterr().out == f"wrote {out}\n"


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="needs matplotlib")
def test_the_pictures_draw_hostile_labels_escaped(tmp_path):
    path = tmp_path / "p.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["y", "p"])
        w.writerows([[ESC, ESC], [ESC, "ok"], ["ok", "ok"], [RLO, RLO], ["ok", RLO]])
    proc = run("report", str(path), "--true", "y", "--pred", "p", "-o", "-", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    page = proc.stdout
    assert "<svg" in page
    assert raw_controls(page) == set()
    assert "Glyph" not in proc.stderr  # nothing unprintable reached the fonts
    svg = page[page.index("<svg"):]
    assert "\\x1b[31mred" in svg and "ab\\u202ecd" in svg


def test_html_escape_of_any_value():
    from bacc.display.html import escape

    assert escape('<a href="x">\x1b[1m&\u202e\x00') == (
        "&lt;a href=&quot;x&quot;&gt;\\x1b[1m&amp;\\u202e\\x00")
    assert escape("two\nlines\tand tab") == "two\nlines\tand tab"
    assert escape(3.5) == "3.5"


# ----------------------------------------------------------------------------------------------
# whole-or-nothing output with --metrics
@pytest.fixture
def no_positives(tmp_path: Path) -> Path:
    """Two detectors; detector b has no true example of the second class."""
    path = tmp_path / "det.csv"
    path.write_text("det,t,p\na,x,x\na,y,y\na,x,y\na,y,x\nb,x,x\nb,x,y\nb,x,x\n")
    return path


#: Metrics undefined on detector b (no true 'y': 0/0 in nearly every posterior draw); the
#: library may find others undefined there too, and each must then be marked the same way.
UNDEFINED = {"recall (y)", "balanced_precision (y)"}
#: Metrics defined on b whatever the library's rule for degenerate draws.
DEFINED = {"accuracy", "g_mean", "specificity (y)"}


def test_evaluate_metrics_is_whole_with_a_group_lacking_positives(no_positives, capsys):
    code = main(["evaluate", str(no_positives), "--true", "t", "--pred", "p", "--by", "det",
                 "--metrics"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    text = captured.out
    a, b = text.split("== b")
    assert "== a" in a and a.count("undefined") == 0
    rows = {line.split("  ")[0].strip(): line for line in b.splitlines()
            if line.endswith("undefined")}
    assert UNDEFINED <= set(rows) and not DEFINED & set(rows)
    for line in rows.values():
        assert line.split()[-4:] == ["\u2014", "\u2014", "\u2014", "undefined"]
    for metric in rows:
        assert f"\u2014 {metric} is undefined for b: " in b
        assert f"bacc: warning: b: {metric} is left empty: " in captured.err
    assert "\u2014 recall (y) is undefined for b: the metric is undefined (0/0)" in b
    for metric in DEFINED:  # the defined metrics are all there, with numbers
        line = next(x for x in b.splitlines() if x.startswith(metric + " "))
        assert "\u2014" not in line and "[" in line
    assert "bacc: error" not in captured.err


def test_evaluate_metrics_json_marks_the_undefined_metric(no_positives, capsys):
    assert main(["evaluate", str(no_positives), "--true", "t", "--pred", "p", "--by", "det",
                 "--metrics", "--format", "json"]) == 0
    text = capsys.readouterr().out
    a, b = json.loads(text)
    json.dumps([a, b], allow_nan=False)
    assert all(m["mean"] is not None for m in a["metrics"])
    undefined = {m["metric"] + ("" if m["label"] is None else f" ({m['label']})"): m
                 for m in b["metrics"] if m["mean"] is None}
    assert UNDEFINED <= set(undefined) and not DEFINED & set(undefined)
    for m in undefined.values():
        assert m["mean"] is None and m["lower"] is None and m["sample"] is None
        assert isinstance(m["reason"], str) and m["reason"]
        assert m["undefined"]["mean"] == m["undefined"]["sample"] == m["reason"]
    assert undefined["recall (y)"]["reason"] == (
        "the metric is undefined (0/0) in nearly every posterior draw")
    defined = [m for m in b["metrics"] if m["mean"] is not None]
    assert len(defined) + len(undefined) == 11  # six of the matrix, five of class y
    assert all(m["mean"] is not None for m in defined)


def test_report_metrics_is_written_with_a_group_lacking_positives(no_positives, tmp_path):
    out = tmp_path / "r.html"
    proc = run("report", str(no_positives), "--true", "t", "--pred", "p", "--by", "det",
               "--metrics", "--no-pictures", "-o", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "bacc: error" not in proc.stderr and "Traceback" not in proc.stderr
    page = out.read_text(encoding="utf-8")
    for metric in ("recall (y)", "balanced precision (y)"):
        assert (f"<li>{metric} is undefined for b: the metric is undefined (0/0) in nearly "
                "every posterior draw</li>") in page
    assert page.count("\u2014") >= 6  # three empty cells for each undefined metric
    assert "specificity (y)" in page
