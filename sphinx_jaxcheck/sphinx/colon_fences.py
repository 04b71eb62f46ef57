"""A ``:::{jaxcheck-…}`` fence that the page shows as text: never a silent loss of checks.

MyST reads ``:::`` fences only with its ``colon_fence`` extension; without it
(and in reStructuredText, which has no fences) a card or block written that way
becomes a paragraph, and its citations and checks quietly vanish. Each such
paragraph is a finding at its line that says which setting is missing.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import FiletypeNotFoundError, SphinxError
from sphinx.util import get_filetype

from ..model import Subtype
from ..report.findings import Finding
from .compat import source_path
from .domain import domain_of
from .stages import DoctreeRead

_UNREAD = re.compile(r"\s*(:{3,})\{(jaxcheck[\w-]*)\}")


def setup_colon_fences(app: Sphinx) -> None:
    """Look for unread fences in every document read."""
    app.connect("doctree-read", _report_unread_fences, priority=DoctreeRead.COLON_FENCES)


def _report_unread_fences(app: Sphinx, doctree: nodes.document) -> None:
    env = app.env
    docname = env.docname
    markdown = _read_by_myst(app, str(source_path(env, docname)))
    enabled = "colon_fence" in (getattr(app.config, "myst_enable_extensions", None) or ())
    for paragraph in doctree.findall(nodes.paragraph):
        found = _UNREAD.match(paragraph.astext())
        if found is None:
            continue
        fence, name = found.groups()
        opening = f"{fence}{{{name}}}"
        if markdown and not enabled:
            why = (
                f"MyST reads `{fence}` fences only with its colon_fence extension; expected "
                '"colon_fence" in myst_enable_extensions: add it in conf.py '
                f"(or open the fence with backticks, ```{{{name}}})"
            )
        else:
            why = (
                f"this page's parser has no `{fence}` fences; expected reStructuredText's "
                f"`.. {name}::` here"
            )
        path = paragraph.source or str(source_path(env, docname))
        message = f"`{opening}` is shown as text, not read as a {name} directive: {why}"
        domain_of(env).add_finding(
            docname, Finding(Subtype.SYNTAX, message, path, paragraph.line or 1, docname)
        )


def _read_by_myst(app: Sphinx, path: str) -> bool:
    """Whether MyST parses this file: MyST-Parser's "markdown", MyST-NB's "myst-nb", and any
    other filetype whose parser is MyST's (MyST-NB names its .md and .ipynb so)."""
    try:
        from myst_parser.parsers.sphinx_ import MystParser
    except ImportError:
        return False
    try:
        parser = app.registry.get_source_parser(get_filetype(app.config.source_suffix, path))
    except (FiletypeNotFoundError, SphinxError):
        return False
    return issubclass(parser, MystParser)
