"""Sphinx configuration of the bacc documentation site.

Built by ``bash scripts/docs.sh`` (warnings are errors; every gallery example and every code
block of the user guide runs during the build). Nothing is fetched from the network: the theme,
MathJax and the search index are all served from the built site.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import bacc  # noqa: E402

project = "bacc"
author = "the bacc authors"
copyright = "the bacc authors"  # noqa: A001
release = version = getattr(bacc, "__version__", "0.1.0")

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "IPython.sphinxext.ipython_console_highlighting",
    "IPython.sphinxext.ipython_directive",
    "bacc_docs",
]

# -- sources ------------------------------------------------------------------------------------
root_doc = "index"
exclude_patterns = ["_build", "_generated", "**.ipynb_checkpoints", "examples",
                    "sg_execution_times.rst", "**/sg_execution_times.rst"]
templates_path = ["_templates"]
default_role = "py:obj"
nitpicky = False
# numpydoc's References sections list the works a function implements; they are not cited
# inline with [1]_, which Sphinx would otherwise report as unreferenced citations.
suppress_warnings = ["ref.citation"]
# Private modules (a part starting with "_") are not documented, and there are no inventories
# of other projects to link to without a network: such targets stay plain code text.
nitpick_ignore_regex = [
    (r"py:.*", r"(.*\.)?_[A-Za-z].*"),
    (r"py:.*", r"(numpy|np|scipy|pandas|pd|polars|pl|matplotlib|sklearn|duckdb|narwhals|pyarrow|dask|pyspark)(\..*)?"),
    (r"py:.*", r"(warnings|shutil|datetime|collections|os|io|pathlib|typing|__main__)(\..*)?"),
    (r"py:.*", r"(int|float|str|bool|None|object|dict|list|tuple|callable|Path|Any|Mapping|Sequence|Iterable)"),
]

# -- API reference ------------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_typehints = "none"  # the numpydoc Parameters sections carry the types
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_attributes_as_param_list = False

# No network at build time: intersphinx has no inventories to fetch.
intersphinx_mapping: dict = {}

# -- code that runs during the build ------------------------------------------------------------
os.environ.setdefault("MPLBACKEND", "Agg")
ipython_warning_is_error = True
ipython_execlines = ["import numpy as np", "import bacc"]
ipython_savefig_dir = str(HERE / "_build" / "ipython_figures")

sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",
    "download_all_examples": False,
    "within_subsection_order": "FileNameSortKey",
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "remove_config_comments": True,
    "show_memory": False,
    "min_reported_time": 10_000,
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib",),
    "capture_repr": ("_repr_html_", "__repr__"),
    # the computation-times page loads jQuery and DataTables from a CDN: the site stays local
    "write_computation_times": False,
}

# -- HTML ---------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "bacc"
html_static_path = ["_static"]
# a favicon of the site's own: without one, a browser asks a server for /favicon.ico on every site
html_favicon = "_static/favicon.svg"
html_css_files = ["bacc.css"]
html_show_sourcelink = False
html_copy_source = False
html_theme_options = {
    "navigation_with_keys": False,
    "show_prev_next": True,
    "navbar_align": "left",
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
    "icon_links": [],
    "check_switcher": False,
}
html_sidebars = {"index": [], "getting_started": []}
html_context = {"default_mode": "light"}
# Equations are MathML written at build time (see _ext/bacc_docs.py): no script, no network.
html_math_renderer = "mathml"
# The report of ``bacc demo``, written during the build by _ext/bacc_docs.py.
(HERE / "_generated").mkdir(exist_ok=True)
html_extra_path = ["_generated"]

# -- the build's memory ---------------------------------------------------------------------------
# What is loaded by now (Sphinx, its extensions, bacc, numpy, matplotlib) lives to the end of
# the build: frozen, the cyclic garbage collector never scans it again. sphinx-gallery collects
# after every example, and each of those full collections would otherwise walk it all: measured
# on the 2-core machine, the build took 55.0-55.4 s against 57.5-58.0 s (benchmarks/RESULTS.md).
import gc as _gc  # noqa: E402

_gc.freeze()
