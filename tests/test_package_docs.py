"""Every package of bacc names each of its modules in its docstring.

The tree is read when the test runs: a module (a ``.py`` file or a subpackage) added, renamed
or moved must be named in its package's docstring, as ``:mod:`.name``` (or a dotted path ending
in the name, or ``name.py``) in the docstring of the package's ``__init__.py``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import bacc

SRC = Path(bacc.__file__).resolve().parent
PACKAGES = sorted(p.parent for p in SRC.rglob("__init__.py") if "__pycache__" not in p.parts)


def modules_of(package: Path) -> list[str]:
    """The modules of one package: its ``.py`` files (``__init__`` aside) and subpackages."""
    files = [p.stem for p in package.glob("*.py") if p.name != "__init__.py"]
    subpackages = [p.name for p in package.iterdir() if (p / "__init__.py").is_file()]
    return sorted(files + subpackages)


def docstring_of(package: Path) -> str:
    tree = ast.parse((package / "__init__.py").read_text(encoding="utf-8"))
    return ast.get_docstring(tree) or ""


def named(name: str, doc: str) -> bool:
    """Is the module named as code: ``:mod:`.name```, ``bacc.x.name``, ``name.py`` or
    ``name/`` between backquotes?"""
    return re.search(rf"`(?:[\w.]*\.)?{re.escape(name)}(?:\.py|/)?`", doc) is not None


def test_the_packages_are_found():
    names = {p.relative_to(SRC.parent).as_posix() for p in PACKAGES}
    assert {"bacc", "bacc/_engine", "bacc/counting", "bacc/display", "bacc/cli"} <= names


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.relative_to(SRC.parent).as_posix())
def test_package_docstring_names_every_module(package):
    doc = docstring_of(package)
    assert doc, f"{package.relative_to(SRC.parent)}/__init__.py has no docstring"
    missing = [m for m in modules_of(package) if not named(m, doc)]
    assert not missing, (
        f"the docstring of {package.relative_to(SRC.parent)}/__init__.py does not name "
        f"{', '.join(missing)}: add a line on what each computes"
    )


def test_named_reads_code_not_prose():
    doc = "Counts files (:mod:`.files`) and ``bacc.display.plot``; the batch of rows."
    assert named("files", doc) and named("plot", doc)
    assert not named("batch", doc) and not named("rows", doc)
