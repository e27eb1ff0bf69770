"""Sphinx configuration of symgpu's documentation site (build: see docs/building.md).

Generated at build time, never committed: the model catalog (``catalog/``, from ``equations/`` by
``_ext/symgpu_catalog.py``), the notebook (``notebooks/``, copied from ``examples/`` and executed by
myst-nb), each command's ``--help`` and example output (``_ext/symgpu_cli.py``) and the API reference
(autodoc, from the docstrings).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE / "_ext"), str(ROOT)]
# the notebook's kernel is a child process: it must import this checkout's symgpu too
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))

import symgpu  # noqa: E402

project = "symgpu"
author = "symgpu developers"
copyright = "symgpu developers"
version = release = "0.1.0"

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "symgpu_catalog",
    "symgpu_cli",
]
exclude_patterns = ["_build", "**.ipynb_checkpoints", ".gitignore"]
suppress_warnings = ["myst.header"]  # README sections included at level 2 under a page title

# Markdown (MyST): dollar math, definition lists, ``{math}`` roles in tables
myst_enable_extensions = ["dollarmath", "amsmath", "deflist", "colon_fence"]
myst_heading_anchors = 3
myst_update_mathjax = False  # MATH_CLASSES below, which adds notebook outputs to what myst-parser would set

# Notebooks: executed at every build (never a stored output); an error in a cell fails the build
nb_execution_mode = "force"
nb_execution_timeout = 180
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True
# a Markdown output (a derivation's summary and its math) is read as MyST, so its $$ math is math
nb_render_markdown_format = "myst"

# API reference from the docstrings (Google style)
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": False}
napoleon_google_docstring = True
napoleon_numpy_docstring = False

# MathJax typesets math in these classes only (MyST marks the rest of a page mathjax_ignore, so a
# dollar in prose stays a dollar): Sphinx's math, and notebook outputs (a model's HTML table holds \(...\))
MATH_CLASSES = "tex2jax_process|mathjax_process|math|output_area|cell_output"
mathjax3_config = {"options": {"processHtmlClass": MATH_CLASSES}}
# MathJax: the CDN's by default; SYMGPU_DOCS_MATHJAX names a local copy (an offline build, the browser test)
if os.environ.get("SYMGPU_DOCS_MATHJAX"):
    mathjax_path = os.environ["SYMGPU_DOCS_MATHJAX"]
    if "MathJax.js" in mathjax_path:  # MathJax 2 (Debian's): the classes MathJax 3's configuration names
        mathjax2_config = {"tex2jax": {"processClass": MATH_CLASSES,
                                       "ignoreClass": "tex2jax_ignore|mathjax_ignore|document"}}

html_theme = "pydata_sphinx_theme"
html_title = "symgpu"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 1,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_static_path = ["_static"]
html_css_files = ["symgpu.css"]
html_last_updated_fmt = None


def copy_notebooks(app) -> None:
    """The example notebooks, copied from examples/ (outputs removed: myst-nb executes them)."""
    import nbformat

    target = HERE / "notebooks"
    target.mkdir(exist_ok=True)
    for source in sorted((ROOT / "examples").glob("*.ipynb")):
        notebook = nbformat.read(source, as_version=4)
        for notebook_cell in notebook.cells:
            if notebook_cell.cell_type == "code":
                notebook_cell.outputs, notebook_cell.execution_count = [], None
        text = nbformat.writes(notebook)
        path = target / source.name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def setup(app) -> None:
    app.connect("builder-inited", copy_notebooks)
