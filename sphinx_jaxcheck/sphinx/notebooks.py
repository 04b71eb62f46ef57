"""Notebooks as documents: the code cells of each ``.ipynb`` page become the blocks of one
session, and MyST-NB, which reads and renders the page, runs none of them.

Whatever parser made the page (MyST-NB, nbsphinx), the cells are read from the file itself
with nbformat, so their stored outputs and lines are the file's own. Where MyST-NB rendered
the page, each cell's container is marked with its verdict and shows the outputs of our run
(``rendering``); MyST-NB's own execution is turned off, so nothing runs twice.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.util import logging

from ..errors import NotebookError
from ..expect.notebooks import notebook_blocks, read_notebook
from ..model import Subtype
from ..report.findings import Finding
from ..rewrite.digests import file_digest
from .compat import source_path
from .domain import domain_of
from .nodes import jaxcheck_block
from .settings import settings_of
from .stages import ConfigInited, DoctreeRead

logger = logging.getLogger(__name__)

SUFFIX = ".ipynb"


def setup_notebooks(app: Sphinx) -> None:
    """Read notebook pages' cells, and keep MyST-NB from running them."""
    app.connect("config-inited", _no_second_run, priority=ConfigInited.NOTEBOOKS)
    app.connect("doctree-read", _read_cells, priority=DoctreeRead.NOTEBOOK_CELLS)


def is_notebook(path: str) -> bool:
    """Whether a document's source is a notebook whose cells jaxcheck runs."""
    return path.endswith(SUFFIX)


def _no_second_run(app: Sphinx, config: Config) -> None:
    # MyST-NB reads its settings when the builder starts, after this: the pages it renders
    # show our run's outputs instead of running the notebooks a second time.
    if "myst_nb" in app.extensions and settings_of(config).notebooks == "check":
        config.nb_execution_mode = "off"


def _read_cells(app: Sphinx, doctree: nodes.document) -> None:
    settings = settings_of(app.config)
    if settings.notebooks == "off":
        return
    env = app.env
    docname = env.docname
    path = str(source_path(env, docname))
    if not is_notebook(path):
        return
    try:
        with open(path, encoding="utf-8") as handle:
            notebook = read_notebook(handle.read())
    except (OSError, UnicodeDecodeError) as error:
        logger.warning("jaxcheck: %s: cannot read the notebook: %s", path, error)
        return
    except NotebookError as error:
        message = (
            f"{error}; its cells are not checked (open it in Jupyter and save it, or fix the JSON)"
        )
        domain_of(env).add_finding(docname, Finding(Subtype.SYNTAX, message, path, 1, docname))
        return
    if notebook.language != "python":
        return  # a kernel of another language: nothing of ours can run it
    blocks = notebook_blocks(
        docname,
        path,
        notebook,
        timeout=settings.timeout,
        normalizers=settings.notebook_normalizers,
        digest=file_digest(path),
    )
    domain = domain_of(env)
    domain.per_document("blocks")[docname] = blocks
    by_cell = {block.kind.cell: block for block in blocks}  # type: ignore[union-attr]
    for container in list(doctree.findall(nodes.container)):
        if container.get("nb_element") != "cell_code":
            continue
        block = by_cell.get(container.get("cell_index", -1))
        if block is not None:
            wrapper = jaxcheck_block(docname=docname, index=block.index, hidden=False)
            # Not replace_self: it would give the wrapper the cell's classes (a theme's
            # margins twice).
            container.parent.replace(container, wrapper)
            wrapper += container
