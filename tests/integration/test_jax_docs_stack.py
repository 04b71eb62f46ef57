"""JAX's own docs stack: Sphinx below 8, sphinx-book-theme 1.1.1, MyST-NB and JAX's list of
extensions, with sphinx_jaxcheck added as a JAX maintainer would add it.

The project every stack is tested with fails at its lines and passes once fixed; JAX's five
pages are built to HTML under that stack (``sphinx-build`` must pass and every page must show
its verdicts in the book theme), and checked with ``jaxcheck check``: every example gets the
verdict of JAX's own pytest run. ``tox -e jax-docs`` installs the stack as
JAX's ``docs/requirements.txt`` pins it at jax-v0.10.2.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest
from buildkit import jaxcheck, sphinx_build
from corpus import (
    CONF,
    PAGES,
    REALWORLD,
    REALWORLD_MISSING,
    STACK_PAGES,
    assert_caught_until_fixed,
    assert_pytests_verdicts,
)

STACK = (
    "myst_nb",
    "sphinx_book_theme",
    "sphinx_design",
    "sphinx_remove_toctrees",
    "sphinxext.rediraffe",
    "sphinxcontrib.mermaid",
    "matplotlib",
)
MISSING = [name for name in STACK if importlib.util.find_spec(name.split(".")[0]) is None]

pytestmark = [
    pytest.mark.skipif(
        bool(MISSING),
        reason=f"needs JAX's docs stack ({', '.join(MISSING)} missing): run `tox -e jax-docs`",
    ),
    pytest.mark.stack,
]
needs_realworld = pytest.mark.skipif(not REALWORLD.is_dir(), reason=REALWORLD_MISSING)

# docs/conf.py of JAX at jax-v0.10.2, less what needs its checkout (its own sphinxext
# extensions, its logo) or the network (intersphinx inventories), plus sphinx_jaxcheck with the
# settings of JAX's doctest run (corpus.CONF).
JAX_CONF = """
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.linkcode",
    "sphinx.ext.mathjax",
    "sphinx.ext.napoleon",
    "matplotlib.sphinxext.plot_directive",
    "myst_nb",
    "sphinx_remove_toctrees",
    "sphinx_copybutton",
    "sphinx_design",
    "sphinxext.rediraffe",
    "sphinxcontrib.mermaid",
    "sphinx_jaxcheck",
]
intersphinx_mapping = {}
suppress_warnings = ["ref.citation", "ref.footnote", "myst.header", "misc.highlighting_failure",
                     "ref.ref", "image.not_readable"]
source_suffix = [".rst", ".ipynb", ".md"]
main_doc = "index"
exclude_patterns = ["_build"]
pygments_style = None
autosummary_generate = True
html_theme = "sphinx_book_theme"
html_theme_options = {
    "show_toc_level": 2,
    "repository_url": "https://github.com/jax-ml/jax",
    "use_repository_button": True,
    "navigation_with_keys": False,
    "article_header_start": ["toggle-primary-sidebar.html", "breadcrumbs"],
}
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]
myst_ref_domains = ["py"]
myst_all_links_external = False
nb_execution_mode = "force"
nb_execution_allow_errors = False
nb_merge_streams = True
nb_execution_show_tb = True
nb_execution_timeout = 100


def linkcode_resolve(domain, info):
    return None
"""


def test_drift_and_a_bad_citation_fail_at_their_lines_under_jaxs_stack_until_fixed(
    tmp_path: Path,
) -> None:
    # The stack pages, .md read by MyST-NB (JAX lists no myst_parser), with the colon fences
    # the card needs added to JAX's MyST extensions.
    project = tmp_path / "docs"
    project.mkdir()
    for name, text in STACK_PAGES.items():
        (project / name).write_text(text, "utf-8")
    (project / "index.rst").write_text(
        "Stack\n=====\n\n.. toctree::\n\n   page_md\n   page_rst\n", "utf-8"
    )
    conf = JAX_CONF.replace('["dollarmath"]', '["dollarmath", "colon_fence"]')
    (project / "conf.py").write_text(conf + 'jaxcheck_doctests = "check"\n', "utf-8")
    assert_caught_until_fixed(project)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("jax-docs-stack") / "docs"
    root.mkdir()
    for page in PAGES:
        shutil.copyfile(REALWORLD / "jax-docs" / page, root / page)
    ours = "\n".join(
        line for line in CONF.splitlines() if not line.startswith(("extensions", "exclude", "supp"))
    )
    cache = root.parent / "cache"
    (root / "conf.py").write_text(JAX_CONF + ours.replace("CACHE", repr(str(cache))), "utf-8")
    toctree = "".join(f"   {page.rsplit('.', 1)[0]}\n" for page in PAGES)
    (root / "index.rst").write_text(f"JAX\n===\n\n.. toctree::\n\n{toctree}", "utf-8")
    return root


@needs_realworld
def test_jaxs_pages_build_in_the_book_theme_with_a_verdict_on_each_block(project: Path) -> None:
    out = project.parent / "html"
    built = sphinx_build("-b", "html", project, out)
    assert built.returncode == 0, built.stderr
    assert "Extension error" not in built.stderr and "[jaxcheck" not in built.stderr
    faq = (out / "faq.html").read_text("utf-8")
    assert "sphinx-book-theme" in faq or "bd-article" in faq  # the theme wrote the page
    assert faq.count("jaxcheck-status-verified") == 2  # faq.rst shows its examples in two blocks
    assert "jaxcheck-status-skipped" in (out / "async_dispatch.html").read_text("utf-8")


@needs_realworld
def test_every_example_gets_pytests_verdict_under_jaxs_stack(project: Path) -> None:
    checked = jaxcheck("check", project, "--format", "json")
    report = json.loads(checked.stdout)
    assert checked.returncode == 0, report["findings"]
    assert report["findings"] == []
    assert_pytests_verdicts(project, report["examples"])
