"""Sphinx extension of the bacc site: mathematics as MathML, and the demo report built live.

* **MathML.** Every ``:math:`` role and ``.. math::`` block is turned into MathML by docutils'
  LaTeX-to-MathML converter at build time. Browsers draw MathML Core natively, so the site needs
  no JavaScript and no network for its equations; a formula the converter cannot read is a build
  warning (an error with ``-W``), never a page that shows raw LaTeX.
* **The command line.** ``.. bacc-cli::`` writes, for ``bacc`` and each of its subcommands, the
  help text its own argparse parser prints (at 88 columns), so the reference cannot drift.
* **The API reference of the modules.** One page per public module (``api/modules/``), written
  at the start of each build from the package itself: its docstring, then every name of its
  ``__all__`` (a name exported by ``bacc`` itself links to its page in the top-level reference).
  A new module or name therefore appears without anyone editing the site.
* **The report.** ``bacc demo -o ...`` runs once per build and its HTML report is copied into the
  site as ``report/bacc-demo.html``, so the report page always shows what the current code writes.
  ``BACC_DOCS_DEMO_REPORT=<file>`` gives a report the current code has already written instead
  (the test suite passes the one of its own ``bacc demo`` run, which it checks on every screen,
  rather than running the demo twice).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from docutils.utils.math import latex2mathml
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import make_refnode, nested_parse_with_titles

logger = logging.getLogger(__name__)


def _mathml(self, node: nodes.Element, block: bool) -> str:
    latex = node.astext()
    try:
        return latex2mathml.tex2mathml(latex, as_block=block)
    except Exception as exc:  # the converter raises SyntaxError or ValueError subclasses
        logger.warning("cannot convert the formula %r to MathML: %s", latex, exc, location=node)
        return f"<code>{self.encode(latex)}</code>"


def _visit_math(self, node: nodes.Element) -> None:
    self.body.append(_mathml(self, node, block=False))
    raise nodes.SkipNode


def _visit_displaymath(self, node: nodes.Element) -> None:
    if node.get("label"):
        self.body.append(f'<div class="math-label" id="{node["ids"][0] if node["ids"] else ""}">'
                         f'<span class="eqno">({node["number"]})</span>')
    else:
        self.body.append('<div class="math-block">')
    text = node.astext()
    if node.get("nowrap"):
        parts = [text]
    else:
        parts = [p for p in text.split("\n\n") if p.strip()]
    for part in parts:
        probe = nodes.math_block(part, part)
        probe.source, probe.line = node.source, node.line
        self.body.append(_mathml(self, probe, block=True))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def _demo_report(app: Sphinx) -> None:
    """Write the report of ``bacc demo`` into the site's extra files."""
    if app.builder.format != "html":
        return
    target = Path(app.srcdir) / "_generated" / "report" / "bacc-demo.html"
    target.parent.mkdir(parents=True, exist_ok=True)
    given = os.environ.get("BACC_DOCS_DEMO_REPORT")
    if given:
        if not Path(given).is_file():
            logger.warning("BACC_DOCS_DEMO_REPORT=%s: no such file", given)
            return
        shutil.copyfile(given, target)
        return
    done = subprocess.run(
        [sys.executable, "-m", "bacc", "demo", "-o", str(target)],
        capture_output=True, text=True, env={**os.environ, "MPLBACKEND": "Agg"},
    )
    if done.returncode != 0:
        logger.warning("bacc demo failed: %s", (done.stderr or done.stdout).strip()[-400:])


class CommandLine(SphinxDirective):
    """``.. bacc-cli::``: one section per subcommand, with the parser's own help text."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        import argparse

        os.environ["COLUMNS"] = "88"
        from bacc.cli.parser import build_parser

        parser = build_parser()
        subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        helps = {c.dest: c.help for c in subs._choices_actions}
        lines = [".. code-block:: text", ""]
        lines += ["   " + ln for ln in parser.format_help().rstrip().splitlines()]
        lines.append("")
        for name, sub in subs.choices.items():
            title = f"bacc {name}"
            lines += [f".. _cli-{name}:", "", title, "-" * len(title), ""]
            if helps.get(name):
                lines += [helps[name].strip().rstrip(".") + ".", ""]
            lines += [".. code-block:: text", ""]
            lines += ["   " + ln if ln.strip() else "" for ln in sub.format_help().rstrip().splitlines()]
            lines.append("")
        container = nodes.section()
        container.document = self.state.document
        nested_parse_with_titles(self.state, StringList(lines, source="bacc-cli"), container)
        return container.children


def public_modules() -> list[str]:
    """Every module of bacc whose dotted name has no part starting with an underscore."""
    import pkgutil

    import bacc

    names = [m.name for m in pkgutil.walk_packages(bacc.__path__, "bacc.")]
    return sorted(n for n in names if not any(p.startswith("_") for p in n.split(".")[1:]))


def _directive(obj: object) -> str:
    import inspect

    if inspect.isclass(obj):
        return "autoexception" if issubclass(obj, BaseException) else "autoclass"
    if inspect.isfunction(obj) or inspect.isbuiltin(obj):
        return "autofunction"
    return "autodata"


def _module_page(name: str) -> str:
    import importlib

    import bacc

    module = importlib.import_module(name)
    title = f"``{name}``"
    lines = [f".. _api-{name}:", "", title, "=" * len(title), "",
             f".. automodule:: {name}", "   :no-members:", ""]
    top, here = [], []
    for member in getattr(module, "__all__", []):
        obj = getattr(module, member)
        if member in bacc.__all__ and getattr(bacc, member, None) is obj:
            top.append(member)
        else:
            here.append((member, obj))
    if top:
        lines += ["Documented with the top-level names: " + ", ".join(
            f":obj:`bacc.{m}`" for m in top) + ".", ""]
    for member, obj in here:
        kind = _directive(obj)
        lines += [f".. {kind}:: {name}.{member}"]
        if kind == "autodata":
            lines += ["   :no-value:"]
        elif kind == "autoclass":
            lines += ["   :members:"]
        lines.append("")
    return "\n".join(lines)


def _write_module_pages(app: Sphinx) -> None:
    folder = Path(app.srcdir) / "api" / "modules"
    folder.mkdir(parents=True, exist_ok=True)
    wanted = {f"{n}.rst": _module_page(n) for n in public_modules()}
    for old in folder.glob("*.rst"):
        if old.name not in wanted:
            old.unlink()
    for fname, text in wanted.items():
        path = folder / fname
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def _bases(module: str, cls: str) -> list[type]:
    """The classes ``module.cls`` inherits from (its own class first), or none if not found."""
    import importlib

    try:
        obj = importlib.import_module(module)
        for part in cls.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        return []
    return list(getattr(obj, "__mro__", []))


def _resolve_short(app: Sphinx, env, node: nodes.Element, contnode: nodes.Node):
    """Resolve ``:func:`evaluate``` and ``bacc.simulation.coverage`` to the documented name.

    Docstrings name things as their module sees them (``coverage`` inside ``bacc.simulation``,
    ``ConfusionMatrix.to_dict``); the site documents a re-exported name once, as
    ``bacc.<name>``. A reference is tried as written under ``bacc.``, by its last one or two parts
    under ``bacc.``, and within the class or module it was written in.
    """
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip("~.")
    parts = target.split(".")
    module = node.get("py:module") or ""
    cls = node.get("py:class") or ""
    candidates = [f"bacc.{target}", f"bacc.{parts[-1]}"]
    if len(parts) >= 2:
        candidates.append("bacc." + ".".join(parts[-2:]))
    if cls:
        candidates += [f"{module}.{cls}.{target}", f"bacc.{cls}.{target}"]
        candidates += [f"{base.__module__}.{base.__qualname__}.{target}"
                       for base in _bases(module, cls)]
    if module:
        candidates.append(f"{module}.{target}")
    domain = env.get_domain("py")
    found = [name for name in candidates if name in domain.objects]
    if not found:  # a name unique in the package, wherever it is documented
        found = [name for name in domain.objects if name.endswith("." + target)]
        found = found if len(found) == 1 else []
    if not found:
        return None
    obj = domain.objects[found[0]]
    return make_refnode(app.builder, node["refdoc"], obj.docname, obj.node_id, contnode, found[0])


def setup(app: Sphinx) -> dict:
    app.connect("missing-reference", _resolve_short)
    app.connect("builder-inited", _write_module_pages)
    app.add_directive("bacc-cli", CommandLine)
    app.add_html_math_renderer("mathml", (_visit_math, None), (_visit_displaymath, None))
    app.config.html_math_renderer = "mathml"
    app.connect("builder-inited", _demo_report)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
