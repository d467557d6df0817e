"""The package's layers, read from its source: data flow one way, no circles, no shadowing.

Layers, lowest first: ``_engine`` (private kernels) and the utilities ``errors`` and
``progress``; the numerics (``confusion``, ``distributions``, ``posterior``, ``intervals``,
``significance``, ``comparison``, ``ranking``, ``evaluation``, ``batch``, ``simulation``, ``metrics``); the
inputs (``readers``, ``counting``, ``sklearn``, and ``monitoring``, which counts windows of a data
source and evaluates them); the presentation (``display``); the command
line (``cli``). A module may import from its own layer or below, never above.
"""

from __future__ import annotations

import ast
import pkgutil
from pathlib import Path

import pytest

import bacc

SRC = Path(bacc.__file__).parent

NUMERICS = {
    "confusion",
    "distributions",
    "posterior",
    "intervals",
    "anytime",
    "sequential",
    "significance",
    "comparison",
    "ranking",
    "metric_posterior",
    "prevalence",
    "mixed_effects",
    "across",
    "planning",
    "evaluation",
    "batch",
    "simulation",
    "metrics",
    "score_inputs",
    "score_curve",
    "threshold_curve",
    "guaranteed_threshold",
    "roc",
    "score_coverage",
}
LOW = {"_engine", "errors", "labels", "progress"}
INPUTS = {"readers", "counting", "sklearn", "monitoring"}
DISPLAY = {"display"}
CLI = {"cli", "__main__"}
LAYER = {
    **{m: 0 for m in LOW},
    **{m: 1 for m in NUMERICS},
    **{m: 2 for m in INPUTS},
    **{m: 3 for m in DISPLAY},
    **{m: 4 for m in CLI},
}


def _modules():
    """(dotted name, path) of every module of the package."""
    out = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.append((".".join(["bacc", *parts]), path))
    return out


def _imports(name: str, path: Path, *, top_level_only: bool = False):
    """(imported module, imported names, line) for each import in the module's source."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    nodes = tree.body if top_level_only else _walk(tree)
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if not mod.startswith("bacc"):
                continue
            names = [a.name for a in node.names]
            # "from . import x" imports the submodule x when it is one
            base_dir = SRC.joinpath(*mod.split(".")[1:])
            subs = [
                f"{mod}.{n}"
                for n in names
                if base_dir.is_dir() and ((base_dir / f"{n}.py").exists() or (base_dir / n).is_dir())
            ]
            yield mod, names, node.lineno
            for s in subs:
                yield s, [], node.lineno
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("bacc"):
                    yield a.name, [], node.lineno


# The one sanctioned upward call: a result renders itself by handing itself to the display
# layer, imported inside these methods only (the display layer never computes).
DELEGATES = {"__str__", "__repr__", "_repr_html_", "plot"}


def _walk(tree):
    """Every node, except the bodies of the delegating methods of results."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef) and child.name in DELEGATES:
                continue
            todo.append(child)


def _unit(dotted: str) -> str:
    """The layer unit of a module: its top-level module or subpackage under bacc."""
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


MODULES = _modules()


def test_every_module_has_a_layer():
    units = {_unit(n) for n, _ in MODULES} - {"__init__"}
    assert units <= set(LAYER), f"modules with no layer: {sorted(units - set(LAYER))}"


@pytest.mark.parametrize("name,path", MODULES, ids=[n for n, _ in MODULES])
def test_imports_go_down_the_layers(name, path):
    me = _unit(name)
    if me == "__init__":
        return
    for mod, _, line in _imports(name, path):
        other = _unit(mod)
        if other == "__init__":
            # "from .. import __version__" (metadata) is fine; anything else is a layer breach
            assert mod == "bacc", f"{path.name}:{line} imports {mod}"
            continue
        assert LAYER[other] <= LAYER[me], f"{path.name}:{line} {name} ({me}) imports {mod} ({other})"


@pytest.mark.parametrize("name,path", MODULES, ids=[n for n, _ in MODULES])
def test_no_private_name_crosses_a_subpackage_boundary(name, path):
    me = _unit(name)
    for mod, names, line in _imports(name, path):
        other = _unit(mod)
        if other in (me, "_engine"):
            continue
        private_module = any(p.startswith("_") for p in mod.split(".")[1:])
        private_names = [n for n in names if n.startswith("_") and n != "__version__"]
        assert not private_module and not private_names, (
            f"{path.name}:{line} imports {private_names or mod} from {mod}"
        )


def test_no_import_circles_at_import_time():
    graph: dict[str, set[str]] = {}
    for name, path in MODULES:
        graph[name] = {m for m, _, _ in _imports(name, path, top_level_only=True) if m != name}
    known = set(graph)
    seen: set[str] = set()
    stack: list[str] = []

    def visit(n):
        if n in stack:
            cycle = stack[stack.index(n):] + [n]
            # a package importing its own submodules is not a circle
            if not all(c.startswith(cycle[0]) for c in cycle) or len(set(cycle)) > 1:
                inner = [c for c in cycle if c != "bacc"]
                if len(set(inner)) > 1:
                    raise AssertionError(" -> ".join(cycle))
            return
        if n in seen:
            return
        seen.add(n)
        stack.append(n)
        for m in graph.get(n, ()):
            if m in known and m != "bacc":
                visit(m)
        stack.pop()

    for n in graph:
        visit(n)


def test_no_circles_between_layer_units_at_all():
    """Lazy imports inside functions count too: unit A -> B and B -> A is a circle."""
    edges = set()
    for name, path in MODULES:
        me = _unit(name)
        for mod, _, _ in _imports(name, path):
            other = _unit(mod)
            if other not in (me, "__init__"):
                edges.add((me, other))
    circles = sorted((a, b) for a, b in edges if (b, a) in edges and a < b)
    assert not circles, f"import circles between modules: {circles}"


def test_no_public_function_shares_a_name_with_a_module():
    modules = {m.name for m in pkgutil.iter_modules(bacc.__path__)}
    clash = sorted(
        n for n in bacc.__all__ if n in modules and getattr(bacc, n) is not getattr(bacc, n, None).__class__
        and not isinstance(getattr(bacc, n), type(bacc))
    )
    assert not clash, f"bacc.{clash[0]} is both a module and a public name"


def test_every_public_name_is_importable_and_documented():
    for n in bacc.__all__:
        obj = getattr(bacc, n)
        assert obj.__doc__ and obj.__doc__.strip(), f"bacc.{n} has no docstring"


def test_numerics_do_not_import_display_or_cli_when_used():
    import subprocess
    import sys

    code = (
        "import sys, bacc\n"
        "ev = bacc.evaluate([[42, 3], [6, 4]])\n"
        "bacc.exact_interval([[42, 3], [6, 4]]); bacc.compare(ev, ev)\n"
        "bacc.coverage('union', [5, 5], [0.9, 0.9], n_simulations=100, random_state=0)\n"
        "print(sorted(m for m in sys.modules if m.startswith(('bacc.display', 'bacc.cli'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _test_topics() -> set:
    """What a test file may be named after: every module and package of bacc (``_engine`` as
    ``engine``, dots as underscores), and the whole-package topics."""
    topics = {"api", "package", "references"}
    for name, _ in MODULES:
        parts = [p.lstrip("_") for p in name.split(".")[1:]]
        for i in range(1, len(parts) + 1):
            topics.add("_".join(parts[:i]))
    return topics


def test_test_files_mirror_the_source_tree():
    """The tests of ``bacc/x.py`` are ``tests/test_x.py`` or ``tests/test_x_<aspect>.py``; tests
    of the whole API or package are ``test_api_*`` and ``test_package_*``."""
    topics = _test_topics()
    tests = Path(__file__).parent
    stray = []
    for path in sorted(tests.glob("test_*.py")):
        stem = path.stem[len("test_"):]
        if not any(stem == t or stem.startswith(t + "_") for t in topics):
            stray.append(path.name)
    assert not stray, f"test files named after no module of bacc: {stray}"
