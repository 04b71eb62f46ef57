"""Notebooks as documents: the code cells of each ``.ipynb`` page (and of each MyST text
notebook) become the blocks of one session, and MyST-NB, which reads and renders the page,
runs none of them.

Whatever parser made an ``.ipynb`` page (MyST-NB, nbsphinx), its cells are read from the file
itself with nbformat, so their stored outputs and lines are the file's own; a text notebook's
cells are read as MyST-NB reads them. Where MyST-NB rendered the page, each cell's container is
marked with its verdict and shows the outputs of our run (``rendering``); MyST-NB's own
execution is turned off, so nothing runs twice. A page the build copied into the sources
(sphinx-collections, a copy step in conf.py) is reported, and updated, at the notebook it
was copied from, found while the page is read (``rewrite.origins``).

Under ``jaxcheck_notebooks = "report"`` (the default where MyST-NB is not loaded) the cells
are only counted, for the summary, and MyST-NB (or nbsphinx) runs what the project tells it to.
"""

from __future__ import annotations

import json
import os
import weakref

import yaml
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.environment import BuildEnvironment
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from ..errors import NotebookError
from ..expect.notebooks import (
    OUTPUT_DIRECTIVE,
    Notebook,
    excluding_pattern,
    notebook_blocks,
    ran_code,
    read_notebook,
    read_text_notebook,
)
from ..model import Subtype
from ..report.findings import Finding
from ..rewrite.digests import file_digest
from ..rewrite.origins import Origins
from .compat import source_path
from .domain import BLOCKS, UNCHECKED_CELLS, JaxcheckDomain, domain_of
from .nodes import jaxcheck_block
from .settings import settings_of
from .stages import ConfigInited, DoctreeRead, SourceRead

logger = logging.getLogger(__name__)

SUFFIX = ".ipynb"
NOTEBOOK = "jaxcheck_notebook"  # in env.temp_data: the document being read is a notebook
# By build: where its notebook pages were copied from.
_ORIGINS: weakref.WeakKeyDictionary[BuildEnvironment, Origins] = weakref.WeakKeyDictionary()


def setup_notebooks(app: Sphinx) -> None:
    """Read notebook pages' cells, and keep MyST-NB from running them."""
    app.connect("config-inited", _no_second_run, priority=ConfigInited.NOTEBOOKS)
    app.connect("source-read", _name_language, priority=SourceRead.NOTEBOOK_LANGUAGE)
    app.connect("doctree-read", _read_cells, priority=DoctreeRead.NOTEBOOK_CELLS)
    app.add_directive(OUTPUT_DIRECTIVE, OutputBlock)


def is_notebook(env: BuildEnvironment) -> bool:
    """Whether the document being read is a notebook whose cells are its blocks (then its
    text holds no page examples of its own)."""
    return bool(env.temp_data.get(NOTEBOOK))


class OutputBlock(SphinxDirective):
    """``{jaxcheck-output}`` after a text notebook's code cell: the output it is expected to
    show. The page shows the cell's real outputs instead, so the block renders nothing."""

    has_content = True

    def run(self) -> list[nodes.Node]:
        return []


def _no_second_run(app: Sphinx, config: Config) -> None:
    # MyST-NB reads its settings when the builder starts, after this: the pages it renders
    # show our run's outputs instead of running the notebooks a second time.
    if "myst_nb" in app.extensions and settings_of(config).notebooks == "check":
        config.nb_execution_mode = "off"


# What an IPython kernel says of its language, as a notebook it ran stores it.
IPYTHON_LANGUAGE = {"name": "python", "pygments_lexer": "ipython3"}


def _name_language(app: Sphinx, docname: str, content: list[str]) -> None:
    # MyST-NB highlights a cell's code in the language the notebook's metadata names, which a
    # notebook saved without a run may lack: a run by MyST-NB would have stored the kernel's,
    # and with its run turned off it warns at each cell ("No source code lexer found"). The
    # page shows our run, in an IPython shell: its language, in the text MyST-NB parses only.
    if "myst_nb" not in app.extensions or settings_of(app.config).notebooks != "check":
        return
    if not str(source_path(app.env, docname)).endswith(SUFFIX):
        named = _text_notebook_with_language(content[0])
        if named is not None:
            content[0] = named
        return
    try:
        node = json.loads(content[0])
    except ValueError:
        return  # not JSON: reported where the cells are read
    metadata = node.get("metadata") if isinstance(node, dict) else None
    if not isinstance(metadata, dict):
        return
    info = metadata.get("language_info") or {}
    kernel = metadata.get("kernelspec") or {}
    if not isinstance(info, dict) or not isinstance(kernel, dict):
        return
    if info.get("pygments_lexer") or info.get("name") or kernel.get("language"):
        return
    metadata["language_info"] = {**info, **IPYTHON_LANGUAGE}
    content[0] = json.dumps(node)


def _text_notebook_with_language(text: str) -> str | None:
    """A MyST text notebook whose front matter names a kernel but no language, with the
    kernelspec written as a flow mapping on the same lines plus ``language: python``; None when
    the text is no such notebook, or its kernelspec is not a block of plain entries.

    Every line keeps its number (findings and markers are at the file's lines), and the new
    front matter must read as the old one plus the language, or the text is left alone.
    """
    lines = text.split("\n")
    if len(lines) < 3 or lines[0].rstrip() != "---":
        return None
    end = next((n for n in range(1, len(lines)) if lines[n].rstrip() == "---"), None)
    if end is None:
        return None
    try:
        front = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError:
        return None
    kernel = front.get("kernelspec") if isinstance(front, dict) else None
    info = front.get("language_info") if isinstance(front, dict) else None
    if not isinstance(kernel, dict) or kernel.get("language") or info:
        return None
    start = next((n for n in range(1, end) if lines[n].rstrip() == "kernelspec:"), None)
    if start is None:
        return None
    stop = start + 1
    while stop < end and lines[stop].startswith("  ") and lines[stop].strip():
        stop += 1
    entries = [line.strip() for line in lines[start + 1 : stop]]
    if not entries:
        return None
    flow = ["kernelspec: {", *(f"  {entry}," for entry in entries[:-1])]
    flow.append(f"  {entries[-1]}, language: python}}")
    new = [*lines[:start], *flow, *lines[stop:]]
    try:
        read = yaml.safe_load("\n".join(new[1:end]))
    except yaml.YAMLError:
        return None
    if read != {**front, "kernelspec": {**kernel, "language": "python"}}:
        return None
    return "\n".join(new)


def _read_cells(app: Sphinx, doctree: nodes.document) -> None:
    settings = settings_of(app.config)
    if settings.notebooks == "off":
        return
    env = app.env
    docname = env.docname
    path = str(source_path(env, docname))
    try:
        notebook = _notebook(app, path)
    except (OSError, UnicodeDecodeError):
        return  # unreadable sources are reported where Sphinx reads them
    except NotebookError as error:
        if settings.notebooks == "report":
            return  # nothing of it would run: the parser that renders it has its own say
        message = (
            f"{error}; its cells are not checked (open it in Jupyter and save it, or fix the JSON)"
        )
        where = _origins(env).of(path).path
        domain_of(env).add_finding(docname, Finding(Subtype.SYNTAX, message, where, 1, docname))
        return
    if notebook is None:
        return
    env.temp_data[NOTEBOOK] = True
    if notebook.language.lower() != "python":
        return  # a kernel of another language: nothing of ours can run it
    domain = domain_of(env)
    if settings.notebooks == "report":  # the cells checking would run, counted
        domain.per_document(UNCHECKED_CELLS)[docname] = len(notebook.cells)
        return
    # Asked now: a copy the build made may be gone once it ends.
    origin = _origins(env).of(path)
    blocks = notebook_blocks(
        docname,
        origin.path,
        notebook,
        timeout=settings.timeout,
        normalizers=settings.notebook_normalizers,
        digest=file_digest(path),
        first=len(domain.blocks(docname)),
        not_run=_excluded(app, path),
        environment=settings.notebooks_environment,
        floats_as_written=settings.notebooks_number,
        tolerance=settings.notebooks_tolerance,
        copy=origin.copy,
        update_refusal=origin.refusal,
        images=settings.notebook_images,
        twins=_twins(
            app, path, [ran_code(cell, settings.notebooks_environment) for cell in notebook.cells]
        ),
    )
    domain.per_document(BLOCKS).setdefault(docname, []).extend(blocks)
    by_cell = {cell.index: block for cell, block in zip(notebook.cells, blocks, strict=True)}
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


def _origins(env: BuildEnvironment) -> Origins:
    """The origins of this build's notebook pages (git is asked once per build)."""
    found = _ORIGINS.get(env)
    if found is None:
        found = _ORIGINS[env] = Origins(str(env.srcdir))
    return found


def _excluded(app: Sphinx, path: str) -> str:
    """Why conf.py keeps a notebook from being run ("": it does not): a pattern of
    ``jaxcheck_notebooks_exclude``, or of MyST-NB's ``nb_execution_excludepatterns`` (which
    MyST-NB would not run either), matched to the notebook's path or its jupytext twin's."""
    stem = os.path.splitext(path)[0]
    paths = [path, *(p for p in (stem + ".md", stem + SUFFIX) if p != path and os.path.isfile(p))]
    named = [("jaxcheck_notebooks_exclude", settings_of(app.config).notebooks_exclude)]
    # As MyST-NB resolved its settings (its legacy name, execution_excludepatterns, too).
    resolved = getattr(app.env, "mystnb_config", None)
    if "myst_nb" in app.extensions and resolved is not None:
        named.append(("nb_execution_excludepatterns", tuple(resolved.execution_excludepatterns)))
    for setting, patterns in named:
        pattern = excluding_pattern(paths, patterns)
        if pattern is not None:
            return f"excluded from execution by {setting} {pattern!r} in conf.py"
    return ""


def unchecked_cells(domain: JaxcheckDomain) -> int:
    """How many notebook code cells ``"report"`` counted and left unchecked."""
    return sum(domain.per_document(UNCHECKED_CELLS).values())


def _twins(app: Sphinx, path: str, codes: list[str]) -> list[str]:
    """Each cell's line in the notebook's jupytext twin (the ``.md`` beside it that jupytext
    keeps in step), as ``file:line``, when there is one with the same code cells (``codes``:
    those the cells run); empty when there is none."""
    twin = os.path.splitext(path)[0] + ".md"
    if not path.endswith(SUFFIX) or not os.path.isfile(twin):
        return []
    try:
        paired = _notebook(app, twin)
    except (OSError, UnicodeDecodeError, NotebookError):
        return []
    if paired is None or [c.source.rstrip() for c in paired.cells] != [c.rstrip() for c in codes]:
        return []  # not a twin in step: its lines would mislead
    name = os.path.basename(twin)
    return [f"{name}:{cell.line}" for cell in paired.cells]


def _notebook(app: Sphinx, path: str) -> Notebook | None:
    """The notebook a document's file holds, None when it holds none."""
    if path.endswith(SUFFIX):
        with open(path, encoding="utf-8") as handle:
            return read_notebook(handle.read())
    if "myst_nb" not in app.extensions or not path.endswith(".md"):
        return None
    from myst_nb.core.read import is_myst_markdown_notebook, read_myst_markdown_notebook

    with open(path, encoding=app.config.source_encoding) as handle:
        text = handle.read()
    if not is_myst_markdown_notebook(text):
        return None
    # Read as MyST-NB reads it, so the cells are the ones its page shows, by the same index.
    config = getattr(app.env, "myst_config", None)  # MyST's settings, as MyST-NB reads them
    node = read_myst_markdown_notebook(text, config=config, add_source_map=True)
    return read_text_notebook(node, node.metadata["source_map"], text)
