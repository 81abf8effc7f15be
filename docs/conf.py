"""Sphinx configuration of the pybai documentation site (``make docs``).

The site is the user guide (the markdown pages of this folder, read by myst-parser), an API
reference generated from the numpydoc docstrings (autodoc + autosummary + numpydoc) and a gallery
of examples executed at build time (sphinx-gallery), so every output shown is generated.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
os.environ.setdefault("MPLBACKEND", "Agg")

import pybai  # noqa: E402

project = "pybai"
author = "the pybai authors"
copyright = "the pybai authors (MIT licence)"
version = release = pybai.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # serves MathJax from the site's _static/mathjax (no CDN: readable offline)
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "gallery/README.rst", "examples/*.md", "**/*.ipynb"]
templates_path = ["_templates"]

# markdown pages: GitHub-style anchors so the pages' own "#section" links resolve
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]
suppress_warnings = [
    "myst.header",                # pages written for GitHub start at different heading levels
    "misc.highlighting_failure",  # console transcripts with prompts and quotes: shown unhighlighted
]

# API reference
autosummary_generate = True
autosummary_imported_members = True
# no "inherited-members" key here: a default option overrides the directive's own, and the
# strategies' pages (template autosummary/strategy.rst) list the inherited ask/tell methods
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_typehints = "none"            # the numpydoc "Parameters" sections carry the types
numpydoc_show_class_members = False   # autosummary lists the members
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# gallery: every example runs at build time; its printed output and figures are what the page shows
sphinx_gallery_conf = {
    "examples_dirs": "gallery",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r".*\.py$",
    "download_all_examples": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "within_subsection_order": "FileNameSortKey",
    "reset_modules": ("matplotlib",),
}

html_theme = "furo"
html_title = f"pybai {release}"
html_static_path: list[str] = []
html_show_sourcelink = False


# README.md and CONTRIBUTING.md are written for the repository root; inside the site their links
# to the other root files point to the site's pages or to the files themselves (a download).
ROOT_LINKS = {
    "](CHANGELOG.md)": "](changelog.md)",
    "](CONTRIBUTING.md)": "](contributing.md)",
    "](LICENSE)": "](../LICENSE)",
    "](CITATION.cff)": "](../CITATION.cff)",
}


def _root_links(app, relative_path, parent_docname, content):
    if relative_path.name in ("README.md", "CONTRIBUTING.md"):
        for old, new in ROOT_LINKS.items():
            content[0] = content[0].replace(old, new)


def setup(app):
    app.connect("include-read", _root_links)
