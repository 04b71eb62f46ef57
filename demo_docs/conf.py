"""Sphinx configuration of demo_docs: the showcase of sphinx-jaxcheck.

Every ``jaxcheck`` block in these pages runs while the docs build, and every
citation of JAX source is checked against the pinned release.
"""

from __future__ import annotations

project = "sphinx-jaxcheck"
author = "the sphinx-jaxcheck authors"
copyright = "2026, the sphinx-jaxcheck authors"

# MyST-NB reads the Markdown pages (as MyST-Parser does) and the notebooks; jaxcheck runs the
# notebooks' cells, so MyST-NB runs none (see guide/notebooks).
extensions = [
    "myst_nb",
    "sphinx_copybutton",
    "sphinx_jaxcheck",
]

source_suffix = {
    ".rst": "restructuredtext",
    ".md": "myst-nb",
    ".ipynb": "myst-nb",
}
root_doc = "index"
exclude_patterns = ["_build"]

# MyST: ``:::`` fences for the Q&A cards, ``{role}`` syntax everywhere, and ``{.class}``
# before a table (``{.code-table}``: its names and commands never break inside; see guide.css).
myst_enable_extensions = ["attrs_block", "colon_fence", "deflist"]
myst_heading_anchors = 3

# -- the JAX these docs are pinned to ------------------------------------------
jaxcheck_jax_version = "0.10.2"
jaxcheck_jax_commit = "990e6a0b84138346e6a38785412f36356e0e5dc3"
# Every `jax.` name written as inline code in prose must exist at the pin.
jaxcheck_check_names = True

# The pages' own ``>>>`` examples are checked too (see guide/adopting).
jaxcheck_doctests = "check"

# -- HTML ----------------------------------------------------------------------
html_theme = "furo"
html_title = "sphinx-jaxcheck"
html_static_path = ["_static"]
# Example messages wrap in their column; tables fit it (see the file).
html_css_files = ["guide.css"]
# No repository links: the project has no public home yet. Furo's "view this
# page" button then opens the page source copied into the build.
html_theme_options = {"top_of_page_buttons": ["view"]}

# Copy buttons copy code only: in doctest blocks, the ``>>> `` / ``... ``
# statements without their prompts and without the expected output. Other
# blocks are copied whole; their expected output is comments, so it still runs.
copybutton_prompt_text = r">>> |\.\.\. "
copybutton_prompt_is_regexp = True
